package podruntime

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// podMemory is the memory each sandbox container of pod requests, in MiB,
// and their sum.
func podMemory(t *testing.T, pod *corev1.Pod) (map[string]int64, int64) {
	t.Helper()
	out, total := map[string]int64{}, int64(0)
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if _, ok := containerMemory[c.Name]; !ok {
			continue
		}
		r := c.Resources.Requests.Memory().Value()
		if l := c.Resources.Limits.Memory(); !l.IsZero() && l.Value() < r {
			t.Errorf("container %s: limit %s below its request %d MiB", c.Name, l, r/mib)
		}
		out[c.Name] = r / mib
		total += r
	}
	if len(out) != len(containerMemory) {
		t.Fatalf("the Pod has sandbox containers %v, want %d", out, len(containerMemory))
	}
	return out, total / mib
}

// Requests grow with the pods a sandbox holds, never below the asset's; a
// Pod no node can hold fails before anything is made.
func TestSandboxSizedFromTheSnapshot(t *testing.T) {
	assetPod, _ := podTemplates()
	asset, assetTotal := podMemory(t, assetPod)

	small := testInputs()
	small.arm.Holds = trial.SandboxLoad{Nodes: 3, Pods: 10, LargestNodeMemory: 256 << 30}
	objs, err := renderArm(small)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := podMemory(t, objs.pod)
	for name, want := range asset {
		if got[name] < want {
			t.Errorf("%d pods: container %s requests %d MiB, below the asset's %d MiB", small.arm.Holds.Pods, name, got[name], want)
		}
	}

	var last int64
	for _, pods := range []int{5000, 30000, 100000} {
		in := testInputs()
		in.arm.Holds = trial.SandboxLoad{Nodes: pods / 20, Pods: pods, LargestNodeMemory: 256 << 30}
		objs, err := renderArm(in)
		if err != nil {
			t.Fatalf("%d pods: %v", pods, err)
		}
		each, total := podMemory(t, objs.pod)
		t.Logf("%d pods: %v MiB, %d MiB in all", pods, each, total)
		if total <= last || total < assetTotal {
			t.Errorf("%d pods: %d MiB in all, want more than %d MiB (fewer pods) and the asset's %d MiB", pods, total, last, assetTotal)
		}
		last = total
	}

	tooBig := testInputs()
	tooBig.arm.Holds = trial.SandboxLoad{Nodes: 5000, Pods: 100000, LargestNodeMemory: 2 << 30}
	if _, err := renderArm(tooBig); err == nil || !strings.Contains(err.Error(), "more than any node") || !strings.Contains(err.Error(), "2048 MiB") {
		t.Errorf("100,000 pods on nodes of 2 GiB: %v, want an error naming the largest node's memory", err)
	}
	unknown := testInputs()
	unknown.arm.Holds = trial.SandboxLoad{Pods: 100000}
	if _, err := renderArm(unknown); err != nil {
		t.Errorf("no node's memory known: %v, want the Pod made (the scheduler of the cluster decides)", err)
	}
}
