package podruntime

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// Memory a sandbox container takes: what it holds with nothing seeded, and
// what each 10,000 pods of the snapshot (bound and replayed) add. etcd's and
// kube-apiserver's bound their peak RSS in the local sandboxes at 5,000,
// 30,000 and 100,000 pods, seeded through storage or through the API
// (BenchmarkTrial, docs/benchmarks.md "Trial before rollout"; docs/trial.md
// "Cost model"); the scheduler's bound its peak RSS at 5,000 and 30,000 pods
// (BenchmarkTrial's MiB-scheduler-peak: 135 and 447 MiB). Nodes are left
// out: a snapshot has a tenth as many nodes as pods or fewer, each the size
// of a few pods.
var containerMemory = map[string]struct{ base, per10kPods int64 }{
	EtcdContainer:      {base: 64 * mib, per10kPods: 32 * mib},
	APIServerContainer: {base: 320 * mib, per10kPods: 256 * mib},
	SchedulerContainer: {base: 80 * mib, per10kPods: 128 * mib},
}

const (
	mib = 1 << 20
	// memoryMargin is the share of headroom over the estimate in each
	// container's request: Go's collector lets the heap grow past what is
	// live, and a snapshot's pods differ in size.
	memoryMargin = 1.2
)

// sizeFor sets each sandbox container's memory request from what the arm's
// sandbox holds: the estimate with its margin, never below the asset's
// request. A limit is raised to the request when below it; otherwise it
// stays at what the snapshot bound needs (see the asset): a limit reserves
// nothing, and one cut to the estimate would kill a sandbox whose pods are
// larger than measured. It fails, before anything is created, when the Pod
// needs more memory than any node of the snapshot can give.
func sizeFor(pod *corev1.Pod, load trial.SandboxLoad) error {
	var total int64
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range list {
			c := &list[i]
			m, ok := containerMemory[c.Name]
			if !ok {
				continue
			}
			estimate := int64(float64(m.base+m.per10kPods*int64(load.Pods)/10000) * memoryMargin)
			request := max(estimate, c.Resources.Requests.Memory().Value())
			request = (request + mib - 1) / mib * mib
			setMemory(c, request)
			total += request
		}
	}
	if load.LargestNodeMemory > 0 && total > load.LargestNodeMemory {
		return fmt.Errorf("a sandbox of %d pods and %d nodes needs %d MiB of memory for each trial Pod (etcd, kube-apiserver and scheduler), more than any node of the cluster can give (the most allocatable memory is %d MiB): the trial cannot run here",
			load.Pods, load.Nodes, total/mib, load.LargestNodeMemory/mib)
	}
	return nil
}

// setMemory sets c's memory request, and its limit when below it.
func setMemory(c *corev1.Container, request int64) {
	q := *resource.NewQuantity(request, resource.BinarySI)
	if c.Resources.Requests == nil {
		c.Resources.Requests = corev1.ResourceList{}
	}
	c.Resources.Requests[corev1.ResourceMemory] = q
	if limit, ok := c.Resources.Limits[corev1.ResourceMemory]; ok && limit.Value() < request {
		c.Resources.Limits[corev1.ResourceMemory] = q
	}
}
