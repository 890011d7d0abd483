package podhealth

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestProblems(t *testing.T) {
	waiting := func(name, reason, msg string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}
	}
	unschedulable := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes are available: 3 Insufficient memory."}
	crashing := corev1.ContainerStatus{
		Name: "etcd", RestartCount: 4,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}},
	}
	for _, tc := range []struct {
		name   string
		status corev1.PodStatus
		// want is "Reason: message fragment" per problem, in order; empty: none.
		want []string
	}{
		{name: "running", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			{Name: "c", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}},
		{name: "creating is progress", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("c", "ContainerCreating", "")}}},
		{name: "initializing is progress", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("c", "PodInitializing", "")}}},
		{name: "pending to be scheduled is progress", status: corev1.PodStatus{Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "SchedulingGated"}}}},
		{name: "unschedulable", status: corev1.PodStatus{Conditions: []corev1.PodCondition{unschedulable}},
			want: []string{"Unschedulable: cannot be scheduled: 0/3 nodes are available: 3 Insufficient memory."}},
		{name: "image pull back-off", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("c", "ImagePullBackOff", "Back-off pulling image")}},
			want: []string{`ImagePullFailure: container "c" cannot pull image "example.com/c:1" (ImagePullBackOff): Back-off pulling image: check the image name`}},
		{name: "image pull error", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("c", "ErrImagePull", "")}},
			want: []string{`ImagePullFailure: (ErrImagePull): check`}},
		{name: "invalid image name", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("c", "InvalidImageName", "")}},
			want: []string{"ImagePullFailure: "}},
		{name: "image never pulled", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("c", "ErrImageNeverPull", "")}},
			want: []string{"ImagePullFailure: "}},
		{name: "crash loop names the last exit and the logs", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{crashing}},
			want: []string{"CrashLoopBackOff: container \"etcd\" is crash-looping, last exit code 2 (Error) after 4 restarts (CrashLoopBackOff): see `kubectl logs -n ns p -c etcd --previous`"}},
		{name: "config error in an init container", status: corev1.PodStatus{InitContainerStatuses: []corev1.ContainerStatus{
			waiting("init", "CreateContainerConfigError", "secret \"x\" not found")}},
			want: []string{`ContainerFailure: container "init" cannot start (CreateContainerConfigError): secret "x" not found`}},
		{name: "create error", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("c", "CreateContainerError", "")}},
			want: []string{`ContainerFailure: container "c" cannot start (CreateContainerError)`}},
		{name: "run error", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("c", "RunContainerError", "")}},
			want: []string{"ContainerFailure: "}},
		{name: "hook errors", status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
			waiting("a", "PreCreateHookError", ""), waiting("b", "PreStartHookError", "")}},
			want: []string{`ContainerFailure: container "a"`, `ContainerFailure: container "b"`}},
		{name: "scheduling first, then init containers, then containers", status: corev1.PodStatus{
			Conditions:            []corev1.PodCondition{unschedulable},
			InitContainerStatuses: []corev1.ContainerStatus{waiting("init", "ErrImagePull", "")},
			ContainerStatuses:     []corev1.ContainerStatus{crashing},
		}, want: []string{"Unschedulable: ", `ImagePullFailure: container "init"`, `CrashLoopBackOff: container "etcd"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/c:1"}}},
				Status:     tc.status,
			}
			got := Problems(pod)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %d problems", got, len(tc.want))
			}
			for i, w := range tc.want {
				reason, fragment, _ := strings.Cut(w, ": ")
				if got[i].Reason != reason || !strings.Contains(got[i].Message, fragment) {
					t.Errorf("problem %d: got %+v, want reason %s and %q", i, got[i], reason, fragment)
				}
			}
			now := metav1.Now()
			pod.DeletionTimestamp = &now
			if got := Problems(pod); len(got) != 0 {
				t.Errorf("a Pod being deleted has problems: %+v", got)
			}
		})
	}
}
