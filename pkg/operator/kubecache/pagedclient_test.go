package kubecache

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	crfake "github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned/fake"
)

// The paged clients list through the transform and leave every other call
// (a Get here) to the client they wrap.
func TestPagedClients(t *testing.T) {
	ctx := context.Background()
	om := metav1.ObjectMeta{Name: "o", Namespace: "ns", Annotations: map[string]string{"note": "big"}}
	drop := func(obj any) (any, error) {
		obj.(metav1.Object).SetAnnotations(nil)
		return obj, nil
	}
	kube := PagedKubeLists(kubefake.NewClientset(&corev1.Pod{ObjectMeta: om}, &corev1.Service{ObjectMeta: om},
		&networkingv1.NetworkPolicy{ObjectMeta: om}), drop)
	cr := PagedSimulatorLists(crfake.NewClientset(&simv1alpha1.Simulator{ObjectMeta: om}), drop)
	for kind, lg := range map[string]struct {
		list func() (runtime.Object, error)
		get  func() (metav1.Object, error)
	}{
		"Pod": {func() (runtime.Object, error) { return kube.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{}) },
			func() (metav1.Object, error) { return kube.CoreV1().Pods("ns").Get(ctx, "o", metav1.GetOptions{}) }},
		"Service": {func() (runtime.Object, error) { return kube.CoreV1().Services("ns").List(ctx, metav1.ListOptions{}) },
			func() (metav1.Object, error) { return kube.CoreV1().Services("ns").Get(ctx, "o", metav1.GetOptions{}) }},
		"NetworkPolicy": {func() (runtime.Object, error) {
			return kube.NetworkingV1().NetworkPolicies("ns").List(ctx, metav1.ListOptions{})
		},
			func() (metav1.Object, error) {
				return kube.NetworkingV1().NetworkPolicies("ns").Get(ctx, "o", metav1.GetOptions{})
			}},
		"Simulator": {func() (runtime.Object, error) {
			return cr.SimulationV1alpha1().Simulators("ns").List(ctx, metav1.ListOptions{})
		},
			func() (metav1.Object, error) {
				return cr.SimulationV1alpha1().Simulators("ns").Get(ctx, "o", metav1.GetOptions{})
			}},
	} {
		list, err := lg.list()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		items, err := metaItems(list)
		if err != nil || len(items) != 1 || items[0].GetAnnotations() != nil {
			t.Errorf("%s list: %v %v, want one object, trimmed", kind, items, err)
		}
		got, err := lg.get()
		if err != nil || got.GetAnnotations()["note"] != "big" {
			t.Errorf("%s get: %v %v, want the object as stored", kind, got, err)
		}
	}
}

func metaItems(list runtime.Object) ([]metav1.Object, error) {
	var out []metav1.Object
	objs, err := apimeta.ExtractList(list)
	for _, o := range objs {
		out = append(out, o.(metav1.Object))
	}
	return out, err
}
