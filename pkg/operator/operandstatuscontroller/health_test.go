package operandstatuscontroller

import (
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestPodProblems(t *testing.T) {
	waiting := func(reason, msg string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: "secondary-scheduler", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: msg}}}
	}
	for _, tc := range []struct {
		name   string
		status corev1.PodStatus
		want   []string // reason, then message fragments; empty: no problem
	}{
		{"running", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}, nil},
		{"still creating is not a problem", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("ContainerCreating", "")}}, nil},
		{"image pull", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{waiting("ImagePullBackOff", "Back-off pulling image x")}},
			[]string{"ImagePullBackOff", "pod p container secondary-scheduler is waiting: ImagePullBackOff: Back-off pulling image x"}},
		{"crash loop names the last exit", corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name: "sidecar", RestartCount: 3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}},
		}}}, []string{"CrashLoopBackOff", "container sidecar", "last exit code 2, Error, after 3 restarts"}},
		{"init container", corev1.PodStatus{InitContainerStatuses: []corev1.ContainerStatus{waiting("CreateContainerConfigError", "secret missing")}},
			[]string{"CreateContainerConfigError", "secret missing"}},
		{"unschedulable", corev1.PodStatus{Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes are available",
		}}}, []string{"Unschedulable", "pod p cannot be scheduled: 0/3 nodes are available"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := podProblems([]*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: tc.status}})
			if len(tc.want) == 0 {
				if len(got) != 0 {
					t.Fatalf("want no problem, got %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].reason != tc.want[0] {
				t.Fatalf("got %+v, want reason %s", got, tc.want[0])
			}
			for _, f := range tc.want[1:] {
				if !strings.Contains(got[0].message, f) {
					t.Errorf("message %q lacks %q", got[0].message, f)
				}
			}
		})
	}
}

func TestRollout(t *testing.T) {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Generation: 3, Annotations: map[string]string{revisionAnnotation: "3"}},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)},
		Status:     appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2},
	}
	if msg := rollout(d, nil); msg != "" {
		t.Errorf("a finished rollout reads %q", msg)
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 3, UpdatedReplicas: 1, AvailableReplicas: 2}
	old := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{revisionAnnotation: "2"}}, Status: appsv1.ReplicaSetStatus{Replicas: 2}}
	current := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{revisionAnnotation: "3"}}, Status: appsv1.ReplicaSetStatus{Replicas: 1}}
	want := "Deployment ns/s is rolling out from revision 2 to revision 3: 1 of 2 pods updated, 2 available"
	if msg := rollout(d, []*appsv1.ReplicaSet{old, current}); msg != want {
		t.Errorf("rollout message\n got %q\nwant %q", msg, want)
	}
}

func TestUnion(t *testing.T) {
	conds := []operatorv1.OperatorCondition{
		{Type: OperandAvailable, Status: operatorv1.ConditionFalse, Reason: "CrashLoopBackOff", Message: "pod p crashes"},
		{Type: OperandDegraded, Status: operatorv1.ConditionTrue, Reason: "CrashLoopBackOff", Message: "pod p crashes"},
		{Type: "TargetConfigControllerDegraded", Status: operatorv1.ConditionFalse},
		{Type: "Available", Status: operatorv1.ConditionTrue}, // a previous union must not feed the next
	}
	got := map[string]operatorv1.ConditionStatus{}
	for _, c := range union(operatorv1.Managed, conds) {
		got[c.Type] = c.Status
	}
	want := map[string]operatorv1.ConditionStatus{"Available": "False", "Degraded": "True", "Progressing": "Unknown"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %s, want %s (all: %v)", k, got[k], v, got)
		}
	}
	for _, c := range union(operatorv1.Unmanaged, conds) {
		if c.Status != operatorv1.ConditionUnknown {
			t.Errorf("Unmanaged: %s = %s, want Unknown", c.Type, c.Status)
		}
	}
}
