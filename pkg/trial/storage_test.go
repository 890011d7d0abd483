package trial

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

func storedSnapshot(t *testing.T) *Snapshot {
	s := &Snapshot{
		Namespaces:      []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "work"}}},
		Nodes:           []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}},
		Services:        []corev1.Service{TrimService(&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "web"}})},
		PriorityClasses: []schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}, {ObjectMeta: metav1.ObjectMeta{Name: "low"}, Value: -5, GlobalDefault: true}},
		RuntimeClasses: []nodev1.RuntimeClass{{ObjectMeta: metav1.ObjectMeta{Name: "kata"}, Handler: "kata",
			Overhead: &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}}}},
		CRDs: []unstructured.Unstructured{{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": "podgroups.scheduling.x-k8s.io"},
			"spec": map[string]any{"group": "scheduling.x-k8s.io", "scope": "Namespaced",
				"names":    map[string]any{"kind": "PodGroup", "plural": "podgroups"},
				"versions": []any{map[string]any{"name": "v1alpha1", "served": true, "storage": true}}}}}},
		Custom: []unstructured.Unstructured{{Object: map[string]any{"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
			"metadata": map[string]any{"name": "gang", "namespace": "work"}, "spec": map[string]any{"minMember": int64(2)}}}},
	}
	for _, p := range []corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "high"}, Spec: corev1.PodSpec{NodeName: "n1", PriorityClassName: "high", RuntimeClassName: ptr.To("kata"),
			Containers: []corev1.Container{{Name: "c", Image: "app:1"}}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "default"}, Spec: corev1.PodSpec{NodeName: "n1",
			Containers: []corev1.Container{{Name: "c", Image: "app:1", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}},
	} {
		if _, err := s.Pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// The stored objects are under the keys kube-apiserver reads them from, in
// its encodings, with what its create and admission set.
func TestStored(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	values := map[string][]byte{}
	if err := storedSnapshot(t).Storage(now).Objects()(func(key string, value []byte) error {
		if _, ok := values[key]; ok {
			t.Errorf("%s written twice", key)
		}
		values[key] = value
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"namespaces/work", "minions/n1", "services/specs/work/web", "priorityclasses/high", "runtimeclasses/kata",
		"apiextensions.k8s.io/customresourcedefinitions/podgroups.scheduling.x-k8s.io", "pods/work/high", "pods/work/default"} {
		if !bytes.HasPrefix(values[key], []byte("k8s\x00")) {
			t.Errorf("%s: want a protobuf value (k8s\\x00 envelope), got %q", key, values[key])
		}
	}
	decoder := storageCodecs.UniversalDeserializer()
	pod := func(key string) *corev1.Pod {
		obj, _, err := decoder.Decode(values[key], nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return obj.(*corev1.Pod)
	}
	high, def := pod("pods/work/high"), pod("pods/work/default")
	if *high.Spec.Priority != 1000 || *high.Spec.PreemptionPolicy != corev1.PreemptLowerPriority || high.Spec.Overhead.Cpu().MilliValue() != 250 {
		t.Errorf("the pod of class high, runtime class kata: priority %d, preemption %s, overhead %v; want 1000, PreemptLowerPriority, 250m",
			*high.Spec.Priority, *high.Spec.PreemptionPolicy, high.Spec.Overhead)
	}
	if def.Spec.PriorityClassName != "low" || *def.Spec.Priority != -5 || def.Status.QOSClass != corev1.PodQOSBurstable || def.Status.Phase != corev1.PodPending {
		t.Errorf("the pod without a class: class %q priority %d QoS %s phase %s; want the global default low, -5, Burstable, Pending",
			def.Spec.PriorityClassName, *def.Spec.Priority, def.Status.QOSClass, def.Status.Phase)
	}
	if def.UID == "" || !def.CreationTimestamp.Equal(&metav1.Time{Time: now.Truncate(time.Second)}) || def.ResourceVersion != "" || def.Generation != 1 {
		t.Errorf("the pod's metadata: %+v; want a uid, created at %s, no resourceVersion, generation 1", def.ObjectMeta, now)
	}
	var pg map[string]any
	if err := json.Unmarshal(values["scheduling.x-k8s.io/podgroups/work/gang"], &pg); err != nil {
		t.Fatalf("the PodGroup: want JSON: %v", err)
	}
	if meta := pg["metadata"].(map[string]any); meta["uid"] == nil || pg["apiVersion"] != "scheduling.x-k8s.io/v1alpha1" {
		t.Errorf("the PodGroup: %v; want its apiVersion and a uid", pg)
	}
	var ns corev1.Namespace
	obj, _, err := decoder.Decode(values["namespaces/work"], nil, &ns)
	if err != nil || obj.(*corev1.Namespace).Status.Phase != corev1.NamespaceActive {
		t.Errorf("the namespace: %v, %v; want it Active", obj, err)
	}
}

// A pod of a class the snapshot lacks is refused, as admission refuses it.
func TestStoredRefusesUnknownClass(t *testing.T) {
	s := &Snapshot{}
	if _, err := s.Pods.Add(corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "p"}, Spec: corev1.PodSpec{PriorityClassName: "gone"}}); err != nil {
		t.Fatal(err)
	}
	err := s.Storage(time.Now()).Objects()(func(string, []byte) error { return nil })
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(`no PriorityClass with name gone`)) {
		t.Errorf("got %v, want the pod refused for its missing class", err)
	}
}

// Dynamic Resource Allocation's and native gangs' objects are stored under
// their resource's key, resource.k8s.io in the version kube-apiserver
// stores (v1), gangs in JSON at the version they were read at; a claim names
// the UID its controlling pod or PodGroup is stored with, a replayed pod's
// too, though that pod is written after it (Replay).
func TestStoredClaimsAndGangs(t *testing.T) {
	controller := func(kind, name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "v1", Kind: kind, Name: name, UID: "live", Controller: ptr.To(true)}}
	}
	claim := func(name string, owners []metav1.OwnerReference, status resourcev1.ResourceClaimStatus) resourcev1.ResourceClaim {
		return resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: name, OwnerReferences: owners},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{gpuRequest}}}, Status: status}
	}
	s := &Snapshot{
		Namespaces:             []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "work"}}},
		DeviceClasses:          []resourcev1.DeviceClass{{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}},
		ResourceSlices:         []resourcev1.ResourceSlice{{ObjectMeta: metav1.ObjectMeta{Name: "n1-gpu"}, Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com"}}},
		ResourceClaimTemplates: []resourcev1.ResourceClaimTemplate{{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "gpu"}}},
		ResourceClaims: []resourcev1.ResourceClaim{claim("b-gpu", controller("Pod", "b"), allocated("b")),
			claim("g-shared", controller("PodGroup", "g"), resourcev1.ResourceClaimStatus{}), claim("r-gpu", controller("Pod", "r"), resourcev1.ResourceClaimStatus{})},
		Workloads:   []unstructured.Unstructured{gangObject("Workload", "work", "w")},
		PodGroups:   []unstructured.Unstructured{gangObject("PodGroup", "work", "g")},
		GangVersion: "v1beta1",
		Replay:      []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "r"}}},
	}
	b := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "b"}, Spec: corev1.PodSpec{NodeName: "n1",
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu")}}},
		Status: corev1.PodStatus{ResourceClaimStatuses: []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("b-gpu")}}}}
	if _, err := s.Pods.Add(b); err != nil {
		t.Fatal(err)
	}
	values := map[string][]byte{}
	storage := s.Storage(time.Now())
	if err := storage.Objects()(func(key string, value []byte) error { values[key] = value; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok := values["pods/work/r"]; ok {
		t.Error("the replayed pod was written with the objects: it must wait until the scheduler has seen them")
	}
	replayClaim := decode(t, values, "resourceclaims/work/r-gpu", "resource.k8s.io/v1").(*resourcev1.ResourceClaim)
	if err := storage.Replay()(func(key string, value []byte) error { values[key] = value; return nil }); err != nil {
		t.Fatal(err)
	}
	if r := decode(t, values, "pods/work/r", "v1").(*corev1.Pod); metav1.GetControllerOf(replayClaim).UID != r.UID {
		t.Errorf("r-gpu names controller %+v, want the replayed pod's stored UID %s", metav1.GetControllerOf(replayClaim), r.UID)
	}
	decode := func(key, apiVersion string) runtime.Object { t.Helper(); return decode(t, values, key, apiVersion) }
	decode("deviceclasses/gpu", "resource.k8s.io/v1")
	decode("resourceslices/n1-gpu", "resource.k8s.io/v1")
	decode("resourceclaimtemplates/work/gpu", "resource.k8s.io/v1")
	// Gangs are JSON at the version they were read at, which this client
	// may not know (kube-apiserver's storage reads JSON as well).
	gang := func(key string) *unstructured.Unstructured {
		t.Helper()
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(values[key]); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if u.GetAPIVersion() != "scheduling.k8s.io/v1beta1" || u.GetUID() == "" || u.GetCreationTimestamp().Time.IsZero() {
			t.Errorf("%s stored at %s, uid %q, created %v; want v1beta1 and what the API server sets on create",
				key, u.GetAPIVersion(), u.GetUID(), u.GetCreationTimestamp())
		}
		return u
	}
	gang("workloads/work/w")
	group := gang("podgroups/work/g")
	if f := group.GetFinalizers(); len(f) != 1 || f[0] != "scheduling.k8s.io/podgroup-protection" {
		t.Errorf("PodGroup g stored with finalizers %q, want the one admission stamps on a new group", f)
	}
	pod := decode("pods/work/b", "v1").(*corev1.Pod)
	podClaim := decode("resourceclaims/work/b-gpu", "resource.k8s.io/v1").(*resourcev1.ResourceClaim)
	groupClaim := decode("resourceclaims/work/g-shared", "resource.k8s.io/v1").(*resourcev1.ResourceClaim)
	if ref := metav1.GetControllerOf(podClaim); ref == nil || ref.UID == "live" || ref.UID != pod.UID || podClaim.Status.Allocation == nil {
		t.Errorf("b-gpu: controller %+v, allocation %v; want pod b's stored UID %s, allocated", ref, podClaim.Status.Allocation, pod.UID)
	}
	if ref := metav1.GetControllerOf(groupClaim); ref == nil || ref.UID != group.GetUID() {
		t.Errorf("g-shared: controller %+v, want PodGroup g's stored UID %s", ref, group.GetUID())
	}
	if names := podClaimNames(pod); len(names) != 1 || names[0] != "b-gpu" {
		t.Errorf("the stored pod's claims resolve to %v, want b-gpu", names)
	}
}

// decode decodes the value stored at key, which must be of apiVersion.
func decode(t *testing.T, values map[string][]byte, key, apiVersion string) runtime.Object {
	t.Helper()
	obj, gvk, err := storageCodecs.UniversalDeserializer().Decode(values[key], nil, nil)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	if gvk.GroupVersion().String() != apiVersion {
		t.Errorf("%s stored as %s, want %s", key, gvk.GroupVersion(), apiVersion)
	}
	return obj
}

// The replayed pods are written in replay order, labelled, admitted as the
// bound ones are, and free of the seeding gate a seed through the API needs;
// a gate of their own stays.
func TestStoredReplay(t *testing.T) {
	s := storedSnapshot(t)
	for _, name := range []string{"z", "a", "m"} {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: name, Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{PriorityClassName: "high", Containers: []corev1.Container{{Name: "c", Image: "app:1"}}}}
		if name == "m" {
			p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/quota"}}
		}
		s.Replay = append(s.Replay, p)
	}
	storage := s.Storage(time.Now())
	if err := storage.Objects()(func(string, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	var keys []string
	values := map[string][]byte{}
	if err := storage.Replay()(func(key string, value []byte) error { keys = append(keys, key); values[key] = value; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []string{"pods/work/z", "pods/work/a", "pods/work/m"}; !slices.Equal(keys, want) {
		t.Fatalf("replayed pods written as %v, want %v (replay order)", keys, want)
	}
	for _, key := range keys {
		p := decode(t, values, key, "v1").(*corev1.Pod)
		if p.Labels[ReplayLabel] != "true" || p.Labels["app"] != "web" || p.UID == "" || *p.Spec.Priority != 1000 || p.Status.Phase != corev1.PodPending {
			t.Errorf("%s: labels %v, uid %q, priority %d, phase %s; want its labels and the replay label, a uid, class high's 1000, Pending",
				key, p.Labels, p.UID, *p.Spec.Priority, p.Status.Phase)
		}
		var gates []string
		for _, g := range p.Spec.SchedulingGates {
			gates = append(gates, g.Name)
		}
		if want := map[string][]string{"pods/work/m": {"example.com/quota"}}[key]; !slices.Equal(gates, want) {
			t.Errorf("%s: gates %v, want %v", key, gates, want)
		}
	}
	if s.Replay[0].Labels[ReplayLabel] != "" {
		t.Error("writing the replay set changed the snapshot's pods")
	}
}
