package podruntime

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// How a trial Pod that will not serve is reported: failure for what ends the
// arm at once, notAnswering for what a start that timed out was waiting for.
func TestTrialPodReasons(t *testing.T) {
	s := &podArm{arm: "current", namespace: "ns", name: "secondary-scheduler-trial-current"}
	terminated := func(name string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", Message: "E: no such plugin\n"}}}
	}
	for _, tc := range []struct {
		name    string
		status  corev1.PodStatus
		node    string
		failure string // "" when the arm may still start
		waiting string
	}{
		{name: "pending, not scheduled", status: corev1.PodStatus{Phase: corev1.PodPending},
			waiting: "the Pod is not scheduled yet"},
		{name: "no capacity", status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
			Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes are available: 3 Insufficient memory."}}},
			waiting: "cannot be scheduled: 0/3 nodes are available: 3 Insufficient memory."},
		{name: "starting", node: "n1", status: corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{
			{Name: EtcdContainer, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
			{Name: APIServerContainer, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}},
			waiting: `container "etcd" has not started; container "kube-apiserver" is waiting (ContainerCreating); the Pod has no IP`},
		{name: "running, no IP", node: "n1", status: corev1.PodStatus{Phase: corev1.PodRunning}, waiting: "the Pod has no IP"},
		{name: "running, not answering", node: "n1", status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.7"},
			waiting: "the sandbox at 10.0.0.7:6443: connection refused"},
		{name: "the scheduler exited", node: "n1", status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{terminated(SchedulerContainer)}},
			failure: "current: the scheduler container of the trial Pod ns/secondary-scheduler-trial-current terminated (exit code 1, Error): E: no such plugin"},
		{name: "evicted", node: "n1", status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: memory."},
			failure: "current: the trial Pod ns/secondary-scheduler-trial-current ended (Failed, Evicted): The node was low on resource: memory."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: s.name}, Spec: corev1.PodSpec{NodeName: tc.node}, Status: tc.status}
			err := s.failure(pod)
			if (err == nil) != (tc.failure == "") || err != nil && err.Error() != tc.failure {
				t.Errorf("failure: %v, want %q", err, tc.failure)
			}
			if tc.waiting != "" {
				if got := notAnswering(pod, nil, errors.New("connection refused")); !strings.Contains(got, tc.waiting) {
					t.Errorf("notAnswering: %q, want it to say %q", got, tc.waiting)
				}
			}
		})
	}
}

// An arm reports the image its scheduler container ran, as the kubelet
// resolved it, and nothing for a Pod that reports none or is gone.
func TestArmReportsTheImageItRan(t *testing.T) {
	const id = "docker-pullable://quay.io/org/sched@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "secondary-scheduler-trial-candidate"},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: APIServerContainer, ImageID: "registry.k8s.io/kube-apiserver@sha256:aaaa"}, {Name: SchedulerContainer, ImageID: id}}}}
	s := &podArm{kube: fake.NewClientset(pod), arm: "candidate", namespace: "ns", name: pod.Name}
	if got := s.ImageID(context.Background()); got != id {
		t.Errorf("ImageID = %q, want the scheduler container's %q", got, id)
	}
	gone := &podArm{kube: fake.NewClientset(), arm: "candidate", namespace: "ns", name: pod.Name}
	if got := gone.ImageID(context.Background()); got != "" {
		t.Errorf("ImageID of a deleted Pod = %q, want none", got)
	}
}
