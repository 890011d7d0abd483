package trial

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// leakyMeta is metadata a trimmed object must not keep (each value holds
// "LEAK") but for its name, namespace and labels.
func leakyMeta(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": "a"},
		Annotations:     map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "LEAK-annotation"},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "LEAK-manager"}},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "LEAK-owner", UID: "u", Controller: ptr.To(false)}}}
}

// opaque is driver configuration, which may hold credentials.
var opaque = resourcev1.DeviceConfiguration{Opaque: &resourcev1.OpaqueDeviceConfiguration{Driver: "gpu.example.com",
	Parameters: runtime.RawExtension{Raw: []byte(`{"token":"LEAK-parameters"}`)}}}

var gpuRequest = resourcev1.DeviceRequest{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu",
	Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: "device.attributes['gpu.example.com'].model == 'a100'"}}}}}

func allocated(pod string) resourcev1.ResourceClaimStatus {
	return resourcev1.ResourceClaimStatus{
		Allocation: &resourcev1.AllocationResult{
			Devices: resourcev1.DeviceAllocationResult{
				Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: "gpu.example.com", Pool: "node-1", Device: "gpu-0"}},
				Config:  []resourcev1.DeviceAllocationConfiguration{{Source: resourcev1.AllocationConfigSourceClaim, DeviceConfiguration: opaque}}},
			NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}}}}}}},
		ReservedFor: []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: pod, UID: types.UID("live-" + pod)}},
		Devices: []resourcev1.AllocatedDeviceStatus{{Driver: "gpu.example.com", Pool: "node-1", Device: "gpu-0",
			Data: &runtime.RawExtension{Raw: []byte(`{"LEAK":"device data"}`)}, NetworkData: &resourcev1.NetworkDeviceData{InterfaceName: "LEAK-if"}}},
	}
}

// Each trimmed kind keeps what the scheduler reads of it (keep: JSON it
// must still hold) and nothing else: no annotation, managed field, owner
// but a pod or PodGroup, driver configuration or device status.
func TestTrimResourceAndGangKinds(t *testing.T) {
	podOwned := leakyMeta("ml", "trainer-gpu-x7k2p")
	podOwned.OwnerReferences = append(podOwned.OwnerReferences,
		metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "trainer", UID: "live-trainer", Controller: ptr.To(true)})
	podOwned.Annotations[extendedResourceClaimAnnotation] = "true"
	for _, tc := range []struct {
		name    string
		trimmed any
		keep    []string
	}{
		{"DeviceClass", TrimDeviceClass(&resourcev1.DeviceClass{ObjectMeta: leakyMeta("", "gpu"), Spec: resourcev1.DeviceClassSpec{
			Selectors: gpuRequest.Exactly.Selectors, Config: []resourcev1.DeviceClassConfiguration{{DeviceConfiguration: opaque}},
			ExtendedResourceName: ptr.To("example.com/gpu")}}),
			[]string{`"name":"gpu"`, `"app":"a"`, `model == 'a100'`, `"extendedResourceName":"example.com/gpu"`}},
		{"ResourceSlice", TrimResourceSlice(&resourcev1.ResourceSlice{ObjectMeta: leakyMeta("", "node-1-gpu"), Spec: resourcev1.ResourceSliceSpec{
			Driver: "gpu.example.com", Pool: resourcev1.ResourcePool{Name: "node-1", Generation: 3, ResourceSliceCount: 1}, NodeName: ptr.To("node-1"),
			Devices: []resourcev1.Device{{Name: "gpu-0", Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: ptr.To("a100")}},
				Taints: []resourcev1.DeviceTaint{{Key: "broken", Effect: resourcev1.DeviceTaintEffectNoSchedule}}}}}}),
			[]string{`"driver":"gpu.example.com"`, `"generation":3`, `"nodeName":"node-1"`, `"name":"gpu-0"`, `"string":"a100"`, `"key":"broken"`}},
		{"ResourceClaimTemplate", TrimResourceClaimTemplate(&resourcev1.ResourceClaimTemplate{ObjectMeta: leakyMeta("ml", "gpu"),
			Spec: resourcev1.ResourceClaimTemplateSpec{ObjectMeta: leakyMeta("", ""), Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{gpuRequest}, Config: []resourcev1.DeviceClaimConfiguration{{DeviceConfiguration: opaque}}}}}}),
			[]string{`"namespace":"ml"`, `"deviceClassName":"gpu"`, `model == 'a100'`}},
		{"ResourceClaim", TrimResourceClaim(&resourcev1.ResourceClaim{ObjectMeta: podOwned, Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests:    []resourcev1.DeviceRequest{gpuRequest},
			Constraints: []resourcev1.DeviceConstraint{{MatchAttribute: ptr.To[resourcev1.FullyQualifiedName]("gpu.example.com/numa")}},
			Config:      []resourcev1.DeviceClaimConfiguration{{DeviceConfiguration: opaque}}}},
			Status: allocated("trainer")}),
			[]string{`"deviceClassName":"gpu"`, `"matchAttribute":"gpu.example.com/numa"`, `"device":"gpu-0"`, `"values":["node-1"]`,
				`"reservedFor":[{"resource":"pods","name":"trainer","uid":"live-trainer"}]`,
				`"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"trainer","uid":"live-trainer","controller":true}]`,
				`"resource.kubernetes.io/extended-resource-claim":"true"`}},
		{"Workload", TrimWorkload(liveGang(t, "Workload", `"spec":{"controllerRef":{"apiGroup":"batch","kind":"Job","name":"training"},
			"podGroupTemplates":[{"name":"workers","schedulingPolicy":{"gang":{"minCount":4}}}]}`)),
			[]string{`"name":"workers"`, `"minCount":4`, `"kind":"Workload"`, `"apiVersion":"scheduling.k8s.io/v1beta1"`}},
		{"PodGroup", TrimPodGroup(liveGang(t, "PodGroup", `"spec":{"schedulingPolicy":{"gang":{"minCount":4}}},
			"status":{"conditions":[{"type":"PodGroupScheduled","status":"False","reason":"Unschedulable","message":"LEAK-message","observedGeneration":7,
			"lastTransitionTime":"2026-12-01T00:00:00Z"}],"resourceClaimStatuses":[{"name":"shared","resourceClaimName":"training-workers-shared-x"}]}`)),
			[]string{`"minCount":4`, `"type":"PodGroupScheduled"`, `"reason":"Unschedulable"`, `"resourceClaimName":"training-workers-shared-x"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(tc.trimmed)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "LEAK") {
				t.Errorf("keeps what it must not:\n%s", data)
			}
			for _, want := range tc.keep {
				if !strings.Contains(string(data), want) {
					t.Errorf("lost %s:\n%s", want, data)
				}
			}
		})
	}
}

// liveGang is a Workload or PodGroup as a 1.37 cluster serves it, with
// leakyMeta's metadata and the fields given (JSON).
func liveGang(t *testing.T, kind, fields string) *unstructured.Unstructured {
	t.Helper()
	meta, err := json.Marshal(leakyMeta("ml", "training-workers"))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(`{"apiVersion":"scheduling.k8s.io/v1beta1","kind":"` + kind + `","metadata":` + string(meta) + `,` + fields + `}`)); err != nil {
		t.Fatal(err)
	}
	return u
}

// A trimmed pod keeps its claims in the pod and its containers alike, the
// names of the claims made for it from templates, and its scheduling group.
func TestTrimPodKeepsClaimsAndGroup(t *testing.T) {
	p := leaky()
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu")}}
	p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("training-workers")}
	p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("p-gpu-x7k2p")}}
	got := TrimPod(p)
	if len(got.Spec.ResourceClaims) != 1 || len(got.Spec.Containers[0].Resources.Claims) != 1 {
		t.Errorf("claims lost: pod %v, container %v", got.Spec.ResourceClaims, got.Spec.Containers[0].Resources.Claims)
	}
	if names := podClaimNames(&got); len(names) != 1 || names[0] != "p-gpu-x7k2p" {
		t.Errorf("the pod's claims are %v, want the one made from its template, p-gpu-x7k2p", names)
	}
	if podGroupName(&got) != "training-workers" {
		t.Errorf("scheduling group %v, want training-workers", got.Spec.SchedulingGroup)
	}
	withoutClaims(&got)
	if len(got.Spec.ResourceClaims) != 0 || len(got.Spec.Containers[0].Resources.Claims) != 0 || len(got.Status.ResourceClaimStatuses) != 0 {
		t.Errorf("withoutClaims left %+v", got)
	}
	if len(p.Spec.Containers[0].Resources.Claims) != 1 {
		t.Error("withoutClaims changed the live pod")
	}
}
