package trial

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
)

// gangObject is a Workload or PodGroup of Kubernetes' own gangs at
// v1beta1, the version Kubernetes 1.37 serves, with a gang of minCount 1.
func gangObject(kind, namespace, name string) unstructured.Unstructured {
	policy := map[string]interface{}{"gang": map[string]interface{}{"minCount": int64(1)}}
	spec := map[string]interface{}{"schedulingPolicy": policy}
	if kind == "Workload" {
		spec = map[string]interface{}{"podGroupTemplates": []interface{}{map[string]interface{}{"name": "workers", "schedulingPolicy": policy}}}
	}
	return unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": GangGroup + "/v1beta1", "kind": kind,
		"metadata": map[string]interface{}{"namespace": namespace, "name": name}, "spec": spec}}
}

// gangCluster is a live cluster of objects that serves Kubernetes' own
// gangs at v1beta1 (its discovery says so, beside scheduling.k8s.io/v1)
// and holds gangs.
func gangCluster(objects []runtime.Object, gangs ...unstructured.Unstructured) (*fake.Clientset, *dynamicfake.FakeDynamicClient) {
	kube := fake.NewClientset(objects...)
	kube.Resources = append(kube.Resources,
		&metav1.APIResourceList{GroupVersion: GangGroup + "/v1", APIResources: []metav1.APIResource{{Name: "priorityclasses"}}},
		&metav1.APIResourceList{GroupVersion: GangGroup + "/v1beta1", APIResources: []metav1.APIResource{{Name: "workloads"}, {Name: "podgroups"}}})
	lists := map[schema.GroupVersionResource]string{gangResource("v1beta1", "workloads"): "WorkloadList", gangResource("v1beta1", "podgroups"): "PodGroupList"}
	var objs []runtime.Object
	for i := range gangs {
		objs = append(objs, gangs[i].DeepCopy())
	}
	return kube, dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, objs...)
}

// The version of scheduling.k8s.io gangs are copied at is the one that
// serves both kinds, the server's preferred first.
func TestServedGangVersion(t *testing.T) {
	resources := func(gv string, names ...string) *metav1.APIResourceList {
		l := &metav1.APIResourceList{GroupVersion: gv}
		for _, n := range names {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: n})
		}
		return l
	}
	for _, tc := range []struct {
		name   string
		served []*metav1.APIResourceList
		want   string
	}{
		{"no gangs", []*metav1.APIResourceList{resources("scheduling.k8s.io/v1", "priorityclasses")}, ""},
		{"Kubernetes 1.36", []*metav1.APIResourceList{resources("scheduling.k8s.io/v1", "priorityclasses"), resources("scheduling.k8s.io/v1alpha2", "workloads", "podgroups")}, "v1alpha2"},
		{"Kubernetes 1.37, both versions on", []*metav1.APIResourceList{resources("scheduling.k8s.io/v1beta1", "workloads", "podgroups"), resources("scheduling.k8s.io/v1alpha3", "workloads", "podgroups")}, "v1beta1"},
		{"one kind only", []*metav1.APIResourceList{resources("scheduling.k8s.io/v1beta1", "workloads")}, ""},
		{"another group's podgroups", []*metav1.APIResourceList{resources("scheduling.x-k8s.io/v1alpha1", "podgroups", "workloads")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := fake.NewClientset()
			kube.Resources = tc.served
			got, err := servedGangVersion(kube.Discovery())
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// A snapshot file's gangs are at its gangVersion, and that version is one
// Kubernetes would name: it goes on the sandbox's command line.
func TestCheckGangVersion(t *testing.T) {
	group := gangObject("PodGroup", "ml", "g")
	for _, tc := range []struct {
		name string
		snap Snapshot
		want string
	}{
		{"at its version", Snapshot{GangVersion: "v1beta1", PodGroups: []unstructured.Unstructured{group}}, ""},
		{"no gangs, no version", Snapshot{}, ""},
		{"another version", Snapshot{GangVersion: "v1alpha3", PodGroups: []unstructured.Unstructured{group}}, `PodGroup ml/g is at apiVersion scheduling.k8s.io/v1beta1, but the snapshot's gangVersion is "v1alpha3"`},
		{"no version", Snapshot{PodGroups: []unstructured.Unstructured{group}}, `gangVersion is ""`},
		{"a flag smuggled in", Snapshot{GangVersion: "v1beta1=true,api/all"}, `gangVersion "v1beta1=true,api/all" is not a version of scheduling.k8s.io`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.snap.checkGangVersion()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
