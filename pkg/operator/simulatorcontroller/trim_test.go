package simulatorcontroller

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trim"
)

// TestTrimmedPodsReadTheSame: the controller decides the same from a Pod as its
// informer caches it (trim.SimulatorObjects) as from the whole Pod.
func TestTrimmedPodsReadTheSame(t *testing.T) {
	sim := newSimulator("sim")
	rendered, err := Render(sim)
	if err != nil {
		t.Fatal(err)
	}
	finishedAt := metav1.NewTime(time.Unix(2000, 0))
	statuses := map[string]corev1.PodStatus{
		"ready": {Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		"pulling": {Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: rendered.Pod.Spec.Containers[0].Name,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "not found"}}}}},
		"crash-looping": {Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "etcd", RestartCount: 3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}}}},
		"failed": {Phase: corev1.PodFailed, Reason: "Evicted", Message: "low on memory", ContainerStatuses: []corev1.ContainerStatus{{Name: "etcd",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, FinishedAt: finishedAt}}}}},
	}
	for name, status := range statuses {
		full := rendered.Pod.DeepCopy()
		full.UID, full.ResourceVersion, full.CreationTimestamp = "pod-uid", "7", metav1.NewTime(time.Unix(1000, 0))
		full.Status = status
		cached, err := trim.SimulatorObjects(full.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		trimmed := cached.(*corev1.Pod)
		if a, b := observePod(full), observePod(trimmed); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: observed %+v of the whole Pod, %+v of the cached one", name, a, b)
		}
		if a, b := endedAt(full), endedAt(trimmed); !a.Equal(b) {
			t.Errorf("%s: ended at %v, or %v by the cached Pod", name, a, b)
		}
		ours, stale := controlledBy(trimmed, sim)
		keys, _ := ownerKeys(trimmed)
		if !ours || stale || !reflect.DeepEqual(keys, []string{sim.Namespace + "/" + sim.Name}) || finished(full) != finished(trimmed) {
			t.Errorf("%s: the cached Pod lost its owner (ours %v, stale %v, keys %v) or its phase", name, ours, stale, keys)
		}
	}
}
