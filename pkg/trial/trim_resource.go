package trial

import (
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The trimming functions of Dynamic Resource Allocation (resource.k8s.io)
// and of Kubernetes' own gang scheduling (scheduling.k8s.io, gangs.go) keep
// what the scheduler's DynamicResources and gang plugins read. Opaque device
// configuration (parameters for a driver, which may hold credentials) is
// dropped everywhere: the allocator only copies it into the allocation.

// extendedResourceClaimAnnotation marks the claim the scheduler makes for a
// pod's extended resources backed by devices; it finds the claim by it.
const extendedResourceClaimAnnotation = resourcev1.ExtendedResourceClaimAnnotation

// TrimDeviceClass keeps the selectors and the extended resource the class
// provides.
func TrimDeviceClass(c *resourcev1.DeviceClass) resourcev1.DeviceClass {
	return resourcev1.DeviceClass{ObjectMeta: meta(c.ObjectMeta), Spec: resourcev1.DeviceClassSpec{
		Selectors: c.Spec.Selectors, ExtendedResourceName: c.Spec.ExtendedResourceName}}
}

// TrimResourceSlice keeps the whole spec: the devices, their attributes,
// capacities, counters and taints, and the nodes they are reachable from are
// all the allocator matches against.
func TrimResourceSlice(s *resourcev1.ResourceSlice) resourcev1.ResourceSlice {
	return resourcev1.ResourceSlice{ObjectMeta: meta(s.ObjectMeta), Spec: s.Spec}
}

// TrimResourceClaimTemplate keeps the claim spec the template makes, without
// the generated claims' metadata.
func TrimResourceClaimTemplate(t *resourcev1.ResourceClaimTemplate) resourcev1.ResourceClaimTemplate {
	return resourcev1.ResourceClaimTemplate{ObjectMeta: meta(t.ObjectMeta),
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: trimDeviceClaim(t.Spec.Spec)}}
}

// TrimResourceClaim keeps the requests and constraints, the allocation
// (which devices are in use, and on which nodes) and the reservations. It
// keeps its controller when that is a pod or a PodGroup: the scheduler uses
// a claim made from a template only for the pod that controls it, and the
// seeder points the reference at that owner in the sandbox (ownerUIDs).
// Whether a claim stays allocated is settled with the replay set
// (settleClaims).
func TrimResourceClaim(c *resourcev1.ResourceClaim) resourcev1.ResourceClaim {
	out := resourcev1.ResourceClaim{ObjectMeta: meta(c.ObjectMeta), Spec: trimDeviceClaim(c.Spec)}
	if v, ok := c.Annotations[extendedResourceClaimAnnotation]; ok {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[extendedResourceClaimAnnotation] = v
	}
	if ref := metav1.GetControllerOfNoCopy(c); ref != nil && claimOwnerKinds[ref.Kind] {
		out.OwnerReferences = []metav1.OwnerReference{{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name, UID: ref.UID,
			Controller: ref.Controller}}
	}
	if a := c.Status.Allocation; a != nil {
		out.Status.Allocation = &resourcev1.AllocationResult{
			Devices:      resourcev1.DeviceAllocationResult{Results: a.Devices.Results},
			NodeSelector: a.NodeSelector, AllocationTimestamp: a.AllocationTimestamp}
		out.Status.ReservedFor = c.Status.ReservedFor
	}
	return out
}

// claimOwnerKinds are the controllers a claim keeps (TrimResourceClaim).
var claimOwnerKinds = map[string]bool{"Pod": true, "PodGroup": true}

// trimDeviceClaim keeps the requests and constraints, not the configuration.
func trimDeviceClaim(s resourcev1.ResourceClaimSpec) resourcev1.ResourceClaimSpec {
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: s.Devices.Requests, Constraints: s.Devices.Constraints}}
}
