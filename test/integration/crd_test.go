package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	secschedv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// These tests prove the CRDs in manifests/ on a real kube-apiserver: schema,
// defaults and CEL rules, the status subresource and the printer columns. They
// create the singleton SecondaryScheduler "cluster": do not run them in parallel.

var (
	secondarySchedulerGVR = schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "secondaryschedulers"}
	simulatorGVR          = simv1alpha1.SchemeGroupVersion.WithResource("simulators")
)

const testImage = "registry.k8s.io/kube-scheduler:v1.37.2"

// obj is a JSON object literal; lists must be []any and numbers int64 (what
// unstructured accepts).
type obj = map[string]any

func validSecondaryScheduler() obj {
	return obj{
		"apiVersion": "operator.openshift.io/v1",
		"kind":       "SecondaryScheduler",
		"metadata":   obj{"name": "cluster"},
		"spec": obj{
			"managementState": "Managed",
			"schedulerImage":  testImage,
		},
	}
}

func validSimulator(name string) obj {
	return obj{
		"apiVersion": simv1alpha1.SchemeGroupVersion.String(),
		"kind":       "Simulator",
		"metadata":   obj{"name": name},
		"spec":       obj{},
	}
}

func container(name string) obj { return obj{"name": name, "image": "registry.example/sidecar:1"} }

func containers(prefix string, n int) []any {
	var out []any
	for i := range n {
		out = append(out, container(fmt.Sprintf("%s-%d", prefix, i)))
	}
	return out
}

func volume(name string) obj { return obj{"name": name, "emptyDir": obj{}} }

func volumes(n int) []any {
	var out []any
	for i := range n {
		out = append(out, volume(fmt.Sprintf("vol-%d", i)))
	}
	return out
}

func set(o obj, value any, path ...string) obj {
	if err := unstructured.SetNestedField(o, value, path...); err != nil {
		panic(err)
	}
	return o
}

// createSecondaryScheduler creates o and deletes it when the test ends.
func createSecondaryScheduler(t *testing.T, env *framework.Env, o obj) (*unstructured.Unstructured, error) {
	t.Helper()
	u, err := env.Admin.Dynamic.Resource(secondarySchedulerGVR).Create(context.Background(), &unstructured.Unstructured{Object: o}, metav1.CreateOptions{})
	if err == nil {
		deleteAtEnd(t, env, secondarySchedulerGVR, "", u.GetName())
	}
	return u, err
}

func createSimulator(t *testing.T, env *framework.Env, ns string, o obj) (*unstructured.Unstructured, error) {
	t.Helper()
	u, err := env.Admin.Dynamic.Resource(simulatorGVR).Namespace(ns).Create(context.Background(), &unstructured.Unstructured{Object: o}, metav1.CreateOptions{})
	if err == nil {
		deleteAtEnd(t, env, simulatorGVR, ns, u.GetName())
	}
	return u, err
}

// deleteAtEnd deletes an object when the test ends and waits until it is gone, so
// that the next test can create the singleton again.
func deleteAtEnd(t *testing.T, env *framework.Env, gvr schema.GroupVersionResource, ns, name string) {
	t.Cleanup(func() {
		ctx := context.Background()
		ri := env.Admin.Dynamic.Resource(gvr).Namespace(ns)
		if err := ri.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting %s %s: %v", gvr.Resource, name, err)
			return
		}
		framework.WaitFor(ctx, t, fmt.Sprintf("%s %s to be deleted", gvr.Resource, name), func() (bool, error) {
			_, err := ri.Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
	})
}

// managedSecondaryScheduler is the least SecondaryScheduler the API server admits.
func managedSecondaryScheduler() *secschedv1.SecondaryScheduler {
	return &secschedv1.SecondaryScheduler{
		ObjectMeta: metav1.ObjectMeta{Name: secschedv1.SingletonName},
		Spec: secschedv1.SecondarySchedulerSpec{
			OperatorSpec:   operatorv1.OperatorSpec{ManagementState: operatorv1.Managed},
			SchedulerImage: testImage,
		},
	}
}

func TestSecondarySchedulerIsDefaulted(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	created, err := env.Admin.Operator.OperatorV1().SecondarySchedulers().Create(ctx, managedSecondaryScheduler(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a valid SecondaryScheduler was refused: %v", err)
	}
	deleteAtEnd(t, env, secondarySchedulerGVR, "", created.Name)

	got, err := env.Admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, secschedv1.SingletonName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Replicas == nil || *got.Spec.Replicas != 1 {
		t.Errorf("spec.replicas = %v, want the default 1", got.Spec.Replicas)
	}
	if got.Spec.LogLevel != operatorv1.Normal {
		t.Errorf("spec.logLevel = %q, want the default Normal", got.Spec.LogLevel)
	}
	if got.Spec.OperatorLogLevel != operatorv1.Normal {
		t.Errorf("spec.operatorLogLevel = %q, want the default Normal", got.Spec.OperatorLogLevel)
	}
}

func TestSecondarySchedulerValidObjectsAreAccepted(t *testing.T) {
	env := framework.Shared(t)
	full := validSecondaryScheduler()
	set(full, containers("sidecar", 10), "spec", "sidecars")
	inits := containers("init", 10)
	inits[0].(obj)["restartPolicy"] = "Always" // a native sidecar
	set(full, inits, "spec", "initContainers")
	set(full, volumes(32), "spec", "volumes")
	set(full, int64(5), "spec", "replicas")
	set(full, "my-scheduler.config", "spec", "schedulerConfig")
	set(full, obj{
		"command":      []any{"/bin/kube-scheduler"},
		"args":         []any{"--v=2"},
		"volumeMounts": []any{obj{"name": "vol-0", "mountPath": "/plugins"}},
	}, "spec", "schedulerContainer")
	set(full, obj{
		"clusterRules":    []any{obj{"apiGroups": []any{""}, "resources": []any{"nodes"}, "verbs": []any{"get", "list", "watch"}}},
		"namespacedRules": []any{obj{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"get"}}},
	}, "spec", "rbac")
	set(full, obj{"nodeSelector": obj{"node-role.kubernetes.io/infra": ""}, "priorityClassName": "system-cluster-critical"}, "spec", "placement")

	noManagementState := validSecondaryScheduler()
	unstructured.RemoveNestedField(noManagementState, "spec", "managementState")

	for name, o := range map[string]obj{
		"minimal":                    validSecondaryScheduler(),
		"without managementState":    noManagementState,
		"every field, lists at max":  full,
		"same name in two lists, ok": set(set(validSecondaryScheduler(), []any{container("a")}, "spec", "sidecars"), []any{container("b")}, "spec", "initContainers"),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := createSecondaryScheduler(t, env, o); err != nil {
				t.Fatalf("refused: %v", err)
			}
		})
	}
}

func TestSecondarySchedulerAdmissionRules(t *testing.T) {
	env := framework.Shared(t)
	for _, tc := range []struct {
		name   string
		obj    obj
		naming []string // what the API server's message must say
	}{
		{
			name:   "name other than cluster",
			obj:    set(validSecondaryScheduler(), "other", "metadata", "name"),
			naming: []string{"metadata.name", "must be named 'cluster'"},
		},
		{
			name:   "duplicate sidecar names",
			obj:    set(validSecondaryScheduler(), []any{container("a"), container("a")}, "spec", "sidecars"),
			naming: []string{"spec.sidecars[1]", "Duplicate value"},
		},
		{
			name: "duplicate sidecar names beside init containers",
			obj: set(set(validSecondaryScheduler(), []any{container("a"), container("a")}, "spec", "sidecars"),
				[]any{container("b")}, "spec", "initContainers"),
			naming: []string{"spec.sidecars[1]", "Duplicate value"},
		},
		{
			name:   "sidecar named secondary-scheduler",
			obj:    set(validSecondaryScheduler(), []any{container("secondary-scheduler")}, "spec", "sidecars"),
			naming: []string{"spec.sidecars", "'secondary-scheduler' is reserved"},
		},
		{
			name:   "duplicate init container names",
			obj:    set(validSecondaryScheduler(), []any{container("a"), container("a")}, "spec", "initContainers"),
			naming: []string{"spec.initContainers[1]", "Duplicate value"},
		},
		{
			name:   "init container named secondary-scheduler",
			obj:    set(validSecondaryScheduler(), []any{container("secondary-scheduler")}, "spec", "initContainers"),
			naming: []string{"spec.initContainers", "'secondary-scheduler' is reserved"},
		},
		{
			name: "same name in sidecars and initContainers",
			obj: set(set(validSecondaryScheduler(), []any{container("a"), container("b")}, "spec", "sidecars"),
				[]any{container("c"), container("b")}, "spec", "initContainers"),
			naming: []string{"spec", "sidecars and initContainers", "only once across both lists"},
		},
		{
			name:   "duplicate volume names",
			obj:    set(validSecondaryScheduler(), []any{volume("v"), volume("v")}, "spec", "volumes"),
			naming: []string{"spec.volumes[1]", "Duplicate value"},
		},
		{
			name:   "reserved volume name secondary-scheduler-config",
			obj:    set(validSecondaryScheduler(), []any{volume("secondary-scheduler-config")}, "spec", "volumes"),
			naming: []string{"spec.volumes", "reserved"},
		},
		{
			name:   "reserved volume name secondary-scheduler-serving-cert",
			obj:    set(validSecondaryScheduler(), []any{volume("x"), volume("secondary-scheduler-serving-cert")}, "spec", "volumes"),
			naming: []string{"spec.volumes", "reserved"},
		},
		{
			name:   "empty schedulerImage",
			obj:    set(validSecondaryScheduler(), "", "spec", "schedulerImage"),
			naming: []string{"spec.schedulerImage", "at least 1 chars"},
		},
		{
			name: "no schedulerImage",
			obj: func() obj {
				o := validSecondaryScheduler()
				unstructured.RemoveNestedField(o, "spec", "schedulerImage")
				return o
			}(),
			naming: []string{"spec.schedulerImage", "Required value"},
		},
		{
			name:   "no spec",
			obj:    obj{"apiVersion": "operator.openshift.io/v1", "kind": "SecondaryScheduler", "metadata": obj{"name": "cluster"}},
			naming: []string{"spec", "Required value"},
		},
		{
			name:   "11 sidecars",
			obj:    set(validSecondaryScheduler(), containers("s", 11), "spec", "sidecars"),
			naming: []string{"spec.sidecars", "at most 10 items"},
		},
		{
			name:   "11 init containers",
			obj:    set(validSecondaryScheduler(), containers("i", 11), "spec", "initContainers"),
			naming: []string{"spec.initContainers", "at most 10 items"},
		},
		{
			name:   "33 volumes",
			obj:    set(validSecondaryScheduler(), volumes(33), "spec", "volumes"),
			naming: []string{"spec.volumes", "at most 32 items"},
		},
		{
			name:   "replicas 0",
			obj:    set(validSecondaryScheduler(), int64(0), "spec", "replicas"),
			naming: []string{"spec.replicas", "greater than or equal to 1"},
		},
		{
			name:   "replicas 6",
			obj:    set(validSecondaryScheduler(), int64(6), "spec", "replicas"),
			naming: []string{"spec.replicas", "less than or equal to 5"},
		},
		{
			name:   "schedulerConfig not a ConfigMap name",
			obj:    set(validSecondaryScheduler(), "My_Config", "spec", "schedulerConfig"),
			naming: []string{"spec.schedulerConfig", "must be a ConfigMap name"},
		},
		{
			name:   "unknown managementState",
			obj:    set(validSecondaryScheduler(), "Sometimes", "spec", "managementState"),
			naming: []string{"spec.managementState"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := createSecondaryScheduler(t, env, tc.obj)
			framework.ExpectInvalid(t, err, tc.naming...)
			t.Logf("rejected: %v", err)
		})
	}
}

func TestSimulatorIsDefaulted(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "sim-defaults")

	noSpec := validSimulator("no-spec")
	delete(noSpec, "spec")
	if _, err := createSimulator(t, env, ns, noSpec); err != nil {
		t.Fatalf("a Simulator without spec was refused: %v", err)
	}
	typed, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Create(ctx,
		&simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "empty-spec"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a Simulator with an empty spec was refused: %v", err)
	}
	deleteAtEnd(t, env, simulatorGVR, ns, typed.Name)

	for _, name := range []string{"no-spec", "empty-spec"} {
		got, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := simv1alpha1.SimulatorSpec{
			KubeAPIServerPort:   simv1alpha1.DefaultKubeAPIServerPort,
			SimulatorServerPort: simv1alpha1.DefaultSimulatorServerPort,
			Image:               simv1alpha1.DefaultImage,
		}
		if gotJSON, wantJSON := mustJSON(got.Spec), mustJSON(want); gotJSON != wantJSON {
			t.Errorf("%s: spec = %s, want %s", name, gotJSON, wantJSON)
		}
	}
}

func TestSimulatorValidObjectsAreAccepted(t *testing.T) {
	env := framework.Shared(t)
	ns := env.CreateNamespace(t, "sim-valid")
	origins := make([]any, 32)
	for i := range origins {
		origins[i] = fmt.Sprintf("https://ui-%d.example:3000", i)
	}
	full := validSimulator("full")
	full["spec"] = obj{
		"kubeAPIServerPort":              int64(1),
		"simulatorServerPort":            int64(65535),
		"kubeSchedulerConfigurationPath": "/config/scheduler.yaml",
		"etcdURL":                        "https://etcd.example:2379",
		"corsAllowedOriginList":          origins,
		"image":                          "registry.example/simulator:dev",
		"podTemplate": obj{
			"metadata": obj{"labels": obj{"app": "sim"}},
			"spec":     obj{"containers": []any{obj{"name": "simulator", "image": "registry.example/simulator:dev"}}},
		},
	}
	for _, o := range []obj{
		full,
		set(validSimulator("http-etcd"), "http://127.0.0.1:2379", "spec", "etcdURL"),
		set(validSimulator("localhost-origin"), []any{"http://localhost:3000"}, "spec", "corsAllowedOriginList"),
	} {
		t.Run(o["metadata"].(obj)["name"].(string), func(t *testing.T) {
			if _, err := createSimulator(t, env, ns, o); err != nil {
				t.Fatalf("refused: %v", err)
			}
		})
	}
}

func TestSimulatorAdmissionRules(t *testing.T) {
	env := framework.Shared(t)
	ns := env.CreateNamespace(t, "sim-admission")
	sim := func(path string, value any) obj { return set(validSimulator("bad"), value, "spec", path) }
	tooManyOrigins := make([]any, 33)
	for i := range tooManyOrigins {
		tooManyOrigins[i] = fmt.Sprintf("https://ui-%d.example", i)
	}
	for _, tc := range []struct {
		name   string
		obj    obj
		naming []string
	}{
		{"kubeAPIServerPort 0", sim("kubeAPIServerPort", int64(0)), []string{"spec.kubeAPIServerPort", "greater than or equal to 1"}},
		{"kubeAPIServerPort 65536", sim("kubeAPIServerPort", int64(65536)), []string{"spec.kubeAPIServerPort", "less than or equal to 65535"}},
		{"simulatorServerPort 0", sim("simulatorServerPort", int64(0)), []string{"spec.simulatorServerPort", "greater than or equal to 1"}},
		{"simulatorServerPort 65536", sim("simulatorServerPort", int64(65536)), []string{"spec.simulatorServerPort", "less than or equal to 65535"}},
		{
			"equal ports",
			set(sim("kubeAPIServerPort", int64(8080)), int64(8080), "spec", "simulatorServerPort"),
			[]string{"spec", "kubeAPIServerPort and simulatorServerPort must differ"},
		},
		{
			"simulatorServerPort equal to the default kubeAPIServerPort",
			sim("simulatorServerPort", int64(simv1alpha1.DefaultKubeAPIServerPort)),
			[]string{"spec", "kubeAPIServerPort and simulatorServerPort must differ"},
		},
		{"etcdURL without scheme", sim("etcdURL", "etcd.example:2379"), []string{"spec.etcdURL", "http:// or https:// URL"}},
		{"etcdURL of another scheme", sim("etcdURL", "unix:///run/etcd.sock"), []string{"spec.etcdURL", "http:// or https:// URL"}},
		{"etcdURL without host", sim("etcdURL", "http://"), []string{"spec.etcdURL", "http:// or https:// URL"}},
		{"CORS origin without scheme", sim("corsAllowedOriginList", []any{"http://ok.example", "localhost:3000"}), []string{"spec.corsAllowedOriginList", "absolute URL"}},
		{"CORS origin relative", sim("corsAllowedOriginList", []any{"/ui"}), []string{"spec.corsAllowedOriginList", "absolute URL"}},
		{"33 CORS origins", sim("corsAllowedOriginList", tooManyOrigins), []string{"spec.corsAllowedOriginList", "at most 32 items"}},
		{"relative kubeSchedulerConfigurationPath", sim("kubeSchedulerConfigurationPath", "config/scheduler.yaml"), []string{"spec.kubeSchedulerConfigurationPath", "absolute path"}},
		{"empty image", sim("image", ""), []string{"spec.image", "at least 1 chars"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := createSimulator(t, env, ns, tc.obj)
			framework.ExpectInvalid(t, err, tc.naming...)
			t.Logf("rejected: %v", err)
		})
	}
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}
