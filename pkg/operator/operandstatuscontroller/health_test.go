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

// TestPodProblems: every operand pod's problems (classified by podhealth, whose
// own test covers the kubelet's reasons), named by pod, sorted, none for a pod
// being deleted.
func TestPodProblems(t *testing.T) {
	waiting := func(name, reason string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Status: corev1.PodStatus{
			ContainerStatuses: []corev1.ContainerStatus{{Name: "secondary-scheduler",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}},
		}}
	}
	deleting := waiting("c", "ErrImagePull")
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	got := podProblems([]*corev1.Pod{waiting("b", "CrashLoopBackOff"), deleting, waiting("a", "ContainerCreating"), waiting("a2", "ImagePullBackOff")})
	want := []podProblem{
		{reason: "ImagePullFailure", message: `pod a2 container "secondary-scheduler" cannot pull image "" (ImagePullBackOff): check the image name and the pull secret`},
		{reason: "CrashLoopBackOff", message: "pod b container \"secondary-scheduler\" is crash-looping after 0 restarts (CrashLoopBackOff): see `kubectl logs -n ns b -c secondary-scheduler --previous`"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("problem %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestRollout(t *testing.T) {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", Generation: 3, Annotations: map[string]string{revisionAnnotation: "3"}},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)},
		Status:     appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 2},
	}
	if msg := rolloutProgress(d, nil); msg != "" {
		t.Errorf("a finished rollout reads %q", msg)
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 3, UpdatedReplicas: 1, AvailableReplicas: 2}
	old := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{revisionAnnotation: "2"}}, Status: appsv1.ReplicaSetStatus{Replicas: 2}}
	current := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{revisionAnnotation: "3"}}, Status: appsv1.ReplicaSetStatus{Replicas: 1}}
	want := "Deployment ns/s is rolling out revision 3 from revision 2: 1 of 2 pods updated, 2 available"
	if msg := rolloutProgress(d, []*appsv1.ReplicaSet{old, current}); msg != want {
		t.Errorf("rollout message\n got %q\nwant %q", msg, want)
	}
	// The old pods are gone, the new ones not yet available for minReadySeconds.
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 2, UpdatedReplicas: 2, AvailableReplicas: 1}
	old.Status.Replicas = 0
	want = "Deployment ns/s is rolling out revision 3: 2 of 2 pods updated, 1 available"
	if msg := rolloutProgress(d, []*appsv1.ReplicaSet{old, current}); msg != want {
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

func TestAvailableMessageDuringSurge(t *testing.T) {
	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)}, Status: appsv1.DeploymentStatus{AvailableReplicas: 2}}
	if got, want := availableMessage(d), "2 scheduler pods available, 1 desired: a rollout is replacing 1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	d.Status.AvailableReplicas = 1
	if got, want := availableMessage(d), "1 of 1 scheduler pods available"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The roll-ups come in one order, so their events do too.
func TestUnionOrder(t *testing.T) {
	for range 20 {
		var types []string
		for _, c := range union(operatorv1.Managed, nil) {
			types = append(types, c.Type)
		}
		if got := strings.Join(types, ","); got != "Available,Progressing,Degraded" {
			t.Fatalf("roll-ups in order %s", got)
		}
	}
}
