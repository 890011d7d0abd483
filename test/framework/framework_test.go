package framework

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestMain(m *testing.M) { RunMain(m, Options{}) }

func TestOpenShiftConfigCRDsAreServed(t *testing.T) {
	env := Shared(t)
	ctx := context.Background()
	cfg := env.Admin.OpenShift.ConfigV1()
	for name, list := range map[string]func() error{
		"clusteroperators": func() error { _, err := cfg.ClusterOperators().List(ctx, metav1.ListOptions{}); return err },
		"apiservers":       func() error { _, err := cfg.APIServers().List(ctx, metav1.ListOptions{}); return err },
		"schedulers":       func() error { _, err := cfg.Schedulers().List(ctx, metav1.ListOptions{}); return err },
		"infrastructures":  func() error { _, err := cfg.Infrastructures().List(ctx, metav1.ListOptions{}); return err },
	} {
		if err := list(); err != nil {
			t.Errorf("listing %s: %v", name, err)
		}
	}
}

func TestPlainKubernetesHasOnlyOurCRDs(t *testing.T) {
	env := StartForTest(t, Options{WithoutOpenShiftCRDs: true})
	groups, err := env.Admin.Kube.Discovery().ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, g := range groups.Groups {
		served[g.Name] = true
	}
	if served["config.openshift.io"] {
		t.Error("config.openshift.io is served on plain Kubernetes")
	}
	for _, g := range []string{"operator.openshift.io", "simulation.kube-scheduler-simulator.x-k8s.io"} {
		if !served[g] {
			t.Errorf("%s is not served", g)
		}
	}
}

func TestRequestHeaderAuthenticationIsPublished(t *testing.T) {
	env := Shared(t)
	ctx := context.Background()
	WaitFor(ctx, t, "kube-system/extension-apiserver-authentication to hold the requestheader CA", func() (bool, error) {
		cm, err := env.Admin.Kube.CoreV1().ConfigMaps("kube-system").Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if cm.Data["requestheader-client-ca-file"] != string(env.RequestHeaderCA) {
			return false, errors.New("requestheader-client-ca-file is not our front-proxy CA")
		}
		if !strings.Contains(cm.Data["requestheader-allowed-names"], "front-proxy-client") {
			return false, errors.New("requestheader-allowed-names = " + cm.Data["requestheader-allowed-names"])
		}
		return true, nil
	})
}

func TestServiceAccountConfigHasExactlyItsGrants(t *testing.T) {
	env := Shared(t)
	ctx := context.Background()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "test-pod-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}},
	}
	if _, err := env.Admin.Kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Admin.Kube.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{}) })

	cfg := env.ServiceAccountConfig(t, "sa-test", "reader",
		ClusterRole("test-pod-reader"), Role("kube-system", "extension-apiserver-authentication-reader"))
	if cfg.CertData != nil || cfg.KeyData != nil {
		t.Fatal("the ServiceAccount config carries a client certificate")
	}
	sa := MustClients(t, cfg)
	if _, err := sa.Kube.CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("listing pods, granted: %v", err)
	}
	if _, err := sa.Kube.CoreV1().ConfigMaps("kube-system").Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{}); err != nil {
		t.Errorf("reading the authentication ConfigMap, granted: %v", err)
	}
	if _, err := sa.Kube.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing secrets, not granted: want Forbidden, got %v", err)
	}
	if _, err := sa.Kube.CoreV1().Pods("default").Create(ctx, &corev1.Pod{}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("creating a pod, not granted: want Forbidden, got %v", err)
	}
}

func TestRequestCounterCountsByVerb(t *testing.T) {
	env := Shared(t)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "counter")
	cfg, counter := CountRequests(env.Config)
	kube := MustClients(t, cfg).Kube.CoreV1().ConfigMaps(ns)

	if _, err := kube.List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if ok, err := counter.NoWrites(); !ok {
		t.Fatalf("a list counted as a write: %v", err)
	}
	cm, err := kube.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.Get(ctx, "c", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{"a": "b"}
	if _, err := kube.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.Patch(ctx, "c", types.MergePatchType, []byte(`{"data":{"c":"d"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kube.Delete(ctx, "c", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"list": 1, "create": 1, "get": 1, "update": 1, "patch": 1, "delete": 1}
	for verb, n := range want {
		if got := counter.Count(verb); got != n {
			t.Errorf("%s requests = %d, want %d (all: %v)", verb, got, n, counter.Counts())
		}
	}
	if got := counter.Writes(); got != 4 {
		t.Errorf("writes = %d, want 4: %v", got, counter.WriteRequests())
	}
	if ok, err := counter.NoWrites(); ok || !strings.Contains(err.Error(), "PATCH /api/v1/namespaces/"+ns+"/configmaps/c") {
		t.Errorf("NoWrites = %t, %v; want false naming the PATCH", ok, err)
	}
	counter.Reset()
	Consistently(ctx, t, 300*time.Millisecond, "no writes after Reset", counter.NoWrites)
}

func TestApplyFiles(t *testing.T) {
	env := Shared(t)
	ns := env.CreateNamespace(t, "apply")
	path := filepath.Join(t.TempDir(), "objects.yaml")
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n  namespace: " + ns + "\ndata:\n  a: b\n---\n" +
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: test-apply\nrules: []\n"
	if err := os.WriteFile(path, []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.Admin.Kube.RbacV1().ClusterRoles().Delete(context.Background(), "test-apply", metav1.DeleteOptions{})
	})
	for range 2 { // applying twice is a no-op, not a conflict
		if objs := env.ApplyFiles(t, path); len(objs) != 2 {
			t.Fatalf("applied %d objects, want 2", len(objs))
		}
	}
	cm, err := env.Admin.Kube.CoreV1().ConfigMaps(ns).Get(context.Background(), "one", metav1.GetOptions{})
	if err != nil || cm.Data["a"] != "b" {
		t.Fatalf("the applied ConfigMap: %v, %v", cm, err)
	}
}

func TestPollFailureSaysWhatAndWhy(t *testing.T) {
	err := poll(context.Background(), 300*time.Millisecond, func() (bool, error) {
		return false, errors.New("replicas 0/1")
	})
	if err == nil || !strings.Contains(err.Error(), "timed out after 300ms") || !strings.Contains(err.Error(), "last error: replicas 0/1") {
		t.Errorf("poll error = %v", err)
	}
	err = poll(context.Background(), 300*time.Millisecond, func() (bool, error) { return false, nil })
	if err == nil || !strings.Contains(err.Error(), "the condition stayed false") {
		t.Errorf("poll error = %v", err)
	}
	n := 0
	if err := poll(context.Background(), time.Second, func() (bool, error) { n++; return n == 3, nil }); err != nil || n != 3 {
		t.Errorf("poll = %v after %d calls, want success on the 3rd", err, n)
	}
}

func TestWaitForStableReturnsTheValueOnceItStopsChanging(t *testing.T) {
	n := 0
	start := time.Now()
	got := WaitForStable(context.Background(), t, 300*time.Millisecond, "the counter", func() (int, error) {
		if n < 5 {
			n++
		}
		return n, nil
	})
	if got != 5 {
		t.Errorf("WaitForStable = %d, want 5, the value it settled on", got)
	}
	// Five changes at PollInterval, then 300 ms without one.
	if elapsed := time.Since(start); elapsed < 4*PollInterval+300*time.Millisecond {
		t.Errorf("returned after %s, before the value had been stable for 300ms", elapsed)
	}
}

func TestRunInBackgroundStopsAtCleanup(t *testing.T) {
	returned := make(chan struct{})
	t.Run("inner", func(t *testing.T) {
		RunInBackground(t, func(ctx context.Context) {
			<-ctx.Done()
			close(returned)
		})
	})
	select {
	case <-returned:
	default:
		t.Fatal("the background function was still running after its test ended")
	}
}

func TestCreateNamespaceRemovesItAndItsContentAtCleanup(t *testing.T) {
	env := Shared(t)
	ctx := context.Background()
	var ns string
	t.Run("inner", func(t *testing.T) {
		ns = env.CreateNamespace(t, "cleanup")
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept", Finalizers: []string{"example.com/keep"}}}
		if _, err := env.Admin.Kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := env.Admin.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s after its test: want NotFound, got %v", ns, err)
	}
	if _, err := env.Admin.Kube.CoreV1().ConfigMaps(ns).Get(ctx, "kept", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a ConfigMap with a finalizer after its namespace's test: want NotFound, got %v", err)
	}
}

// TestMissingBinaryFailsInCI: a binary that Binary cannot find skips a test
// only outside CI and with KUBEBUILDER_ASSETS unset.
func TestMissingBinaryFailsInCI(t *testing.T) {
	for _, c := range []struct {
		ci, assets string
		mustFail   bool
	}{
		{"", "", false},
		{"true", "", true},
		{"", t.TempDir(), true},
	} {
		t.Setenv("CI", c.ci)
		t.Setenv("KUBEBUILDER_ASSETS", c.assets)
		_, err := checkBinaries("build it", "no-such-binary")
		var e *errAssets
		if !errors.As(err, &e) || e.mustFail != c.mustFail || !strings.Contains(e.msg, "no-such-binary") || !strings.Contains(e.msg, "build it") {
			t.Errorf("CI=%q KUBEBUILDER_ASSETS=%q: %v, want an error naming the binary and the build with mustFail %t", c.ci, c.assets, err, c.mustFail)
		}
	}
	dir := t.TempDir()
	t.Setenv("KUBEBUILDER_ASSETS", dir)
	if err := os.WriteFile(filepath.Join(dir, "kube-scheduler"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Binary(t, "kube-scheduler"); got != filepath.Join(dir, "kube-scheduler") {
		t.Errorf("Binary: %s", got)
	}
}
