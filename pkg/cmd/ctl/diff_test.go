package ctl

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

func renderedForDiff(t *testing.T) *render.Objects {
	t.Helper()
	ss := &secondaryschedulerv1.SecondaryScheduler{ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: secondaryschedulerv1.SecondarySchedulerSpec{SchedulerImage: "example.com/scheduler:1"}}
	objs, err := render.Render(render.Inputs{SecondaryScheduler: ss})
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// clusterOf holds the rendered objects, each passed through edit first (nil:
// left out of the cluster).
func clusterOf(t *testing.T, objs *render.Objects, edit func(runtime.Object) runtime.Object) (*dynamicfake.FakeDynamicClient, *kubefake.Clientset) {
	t.Helper()
	var live []runtime.Object
	for _, obj := range objs.All() {
		obj = obj.DeepCopyObject()
		if ns, ok := obj.(*corev1.Namespace); ok {
			// As the operator leaves it: the Pod Security labels put back.
			for k, v := range render.PodSecurityLabels {
				ns.Labels[k] = v
			}
		}
		if o := edit(obj); o != nil {
			live = append(live, o)
		}
	}
	return dynamicfake.NewSimpleDynamicClient(scheme.Scheme, live...), kubefake.NewClientset(live...)
}

func TestDiffObjectChanges(t *testing.T) {
	objs := renderedForDiff(t)
	same := func(o runtime.Object) runtime.Object { return o }
	tests := []struct {
		name  string
		state operatorv1.ManagementState
		edit  func(runtime.Object) runtime.Object
		extra []runtime.Object
		want  []string
	}{
		{name: "converged", state: operatorv1.Managed, edit: same, want: nil},
		{name: "nothing there", state: operatorv1.Managed, edit: func(runtime.Object) runtime.Object { return nil },
			want: []string{"+ create Namespace openshift-secondary-scheduler", "+ create Deployment openshift-secondary-scheduler/secondary-scheduler"}},
		{name: "Service drifted", state: operatorv1.Managed, edit: func(o runtime.Object) runtime.Object {
			if s, ok := o.(*corev1.Service); ok {
				s.Spec.Ports[0].Port = 443
			}
			return o
		}, want: []string{"~ change Service openshift-secondary-scheduler/secondary-scheduler-metrics: ports, selector or type"}},
		{name: "a Pod Security label removed from the Namespace", state: operatorv1.Managed, edit: func(o runtime.Object) runtime.Object {
			if n, ok := o.(*corev1.Namespace); ok {
				delete(n.Labels, "pod-security.kubernetes.io/enforce")
			}
			return o
		}, want: []string{"~ change Namespace openshift-secondary-scheduler: label pod-security.kubernetes.io/enforce=baseline"}},
		{name: "the ServiceAccount's label changed, another label added", state: operatorv1.Managed, edit: func(o runtime.Object) runtime.Object {
			if sa, ok := o.(*corev1.ServiceAccount); ok {
				sa.Labels = map[string]string{names.ManagedByLabel: "someone", "team": "x"}
			}
			return o
		}, want: []string{"~ change ServiceAccount openshift-secondary-scheduler/secondary-scheduler: label app.kubernetes.io/managed-by=secondary-scheduler-operator"}},
		{name: "an earlier release's binding", state: operatorv1.Managed, edit: same,
			extra: []runtime.Object{&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: names.FormerOperandBindingNames[0]}}},
			want:  []string{"- delete ClusterRoleBinding secondary-scheduler-system-kube-scheduler"}},
		{name: "Unmanaged", state: operatorv1.Unmanaged, edit: func(runtime.Object) runtime.Object { return nil },
			want: []string{"none: managementState is Unmanaged"}},
		{name: "Removed", state: operatorv1.Removed, edit: same,
			want: []string{"- delete Deployment openshift-secondary-scheduler/secondary-scheduler (managementState Removed)",
				"- delete ClusterRoleBinding secondary-scheduler-operand (managementState Removed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dyn, kube := clusterOf(t, objs, tt.edit)
			for _, o := range tt.extra {
				if _, err := kube.RbacV1().ClusterRoleBindings().Create(context.Background(), o.(*rbacv1.ClusterRoleBinding), metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			lines, err := objectChanges(context.Background(), kube, dyn, tt.state, objs)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(lines, "\n")
			if len(tt.want) == 0 && got != "" {
				t.Errorf("changes:\n%s\nwant none", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("changes:\n%s\nlack %q", got, w)
				}
			}
			if tt.state == operatorv1.Removed && strings.Contains(got, "Namespace") {
				t.Errorf("Removed keeps the namespace, which holds the user's ConfigMap:\n%s", got)
			}
		})
	}
}

// TestDiffRefusesUnboundedDocumentsFirst: a configuration with YAML anchors is
// refused, with render's message, before any request: the kubeconfig names a
// server nobody answers on.
func TestDiffRefusesUnboundedDocumentsFirst(t *testing.T) {
	dir := t.TempDir()
	input := `apiVersion: operator.openshift.io/v1
kind: SecondaryScheduler
metadata:
  name: cluster
spec:
  managementState: Managed
  schedulerImage: example.com/scheduler:1
  schedulerConfig: my-config
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: my-config
  namespace: openshift-secondary-scheduler
data:
  config.yaml: |
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - schedulerName: &n a
    - schedulerName: *n
`
	kubeconfig := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`
	for name, data := range map[string]string{"input.yaml": input, "kubeconfig": kubeconfig} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	err := Diff(context.Background(), []string{filepath.Join(dir, "input.yaml")}, filepath.Join(dir, "kubeconfig"), nil, &out)
	want := "ConfigMap openshift-secondary-scheduler/my-config config.yaml: line 4: YAML anchors and aliases"
	if !render.IsInputError(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("diff of a configuration with an alias: %v, want an input error with %q and no request", err, want)
	}
}
