package simulatorrender

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Resources of the generated containers, and the size limit of the etcd data
// emptyDir. A podTemplate container of the same name replaces a container's
// resources whole (see mergeContainer), and a podTemplate volume named etcd-data
// replaces the emptyDir.
//
// Why set them at all: a Pod without requests is BestEffort, the first evicted
// when its node runs short, and a namespace whose ResourceQuota covers cpu or
// memory (requests or limits) refuses it outright. Simulators are started by
// namespace users, so the defaults also bound what one of them can take from a
// node: memory limits (an import of a large simulated cluster grows the
// simulator's in-memory caches without bound) and an emptyDir that cannot fill
// the node's disk.
//
// Why these values: they are estimates from what runs inside, not measurements
// (no container runtime where this repository is tested; docs/simulator.md).
//   - simulator: one process with a kube-apiserver (its watch caches hold the whole
//     simulated cluster), a kube-scheduler and the simulator server. Idle, such a
//     kube-apiserver with a handful of objects sits at a few hundred MiB: request
//     512Mi; 2Gi leaves room for simulated clusters of some thousand Pods. CPU is
//     mostly idle between simulations: request 100m, and a limit of 2 CPUs so that a
//     scheduling run is not throttled to a crawl while a quota on limits.cpu still
//     admits the Pod.
//   - etcd: the simulated cluster's store, written only by that kube-apiserver:
//     request 100m and 128Mi, limit 1 CPU and 1Gi.
//   - etcd-data sizeLimit 4Gi: above etcd's own default backend quota (2 GiB) plus
//     its retained WAL files (5 of 64 MiB), so that a full store makes etcd refuse
//     writes (the simulator reports errors) before the kubelet evicts the Pod for
//     its emptyDir and the simulated cluster is lost.
func simulatorResources() corev1.ResourceRequirements {
	return resources("100m", "512Mi", "2", "2Gi")
}

func etcdResources() corev1.ResourceRequirements {
	return resources("100m", "128Mi", "1", "1Gi")
}

func etcdDataSizeLimit() *resource.Quantity {
	q := resource.MustParse("4Gi")
	return &q
}

func resources(cpuRequest, memoryRequest, cpuLimit, memoryLimit string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpuRequest),
			corev1.ResourceMemory: resource.MustParse(memoryRequest),
		},
		Limits: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpuLimit),
			corev1.ResourceMemory: resource.MustParse(memoryLimit),
		},
	}
}
