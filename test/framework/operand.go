package framework

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// The envtest tier runs no kube-controller-manager and no kubelet. What
// follows plays them for the operand: the Deployment's status, and scheduler
// pods with the status a kubelet would report.

// RolloutOf is the configuration and template the Deployment rolls out.
func RolloutOf(d *appsv1.Deployment) secondaryschedulerv1.Rollout {
	return secondaryschedulerv1.Rollout{
		ConfigHash:   d.Spec.Template.Annotations[names.ConfigHashAnnotation],
		TemplateHash: d.Spec.Template.Annotations[names.TemplateHashAnnotation],
	}
}

// SetRolloutStatus plays the Deployment controller for the template want:
// status is written only while the Deployment still has that template.
func (c *Clients) SetRolloutStatus(t testing.TB, want secondaryschedulerv1.Rollout, status func(d *appsv1.Deployment)) {
	t.Helper()
	ctx := context.Background()
	deployments := c.Kube.AppsV1().Deployments(names.OperandNamespace)
	WaitFor(ctx, t, fmt.Sprintf("the Deployment status of template %+v", want), func() (bool, error) {
		d, err := deployments.Get(ctx, names.OperandName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if got := RolloutOf(d); got != want {
			return false, fmt.Errorf("the Deployment has template %+v", got)
		}
		status(d)
		_, err = deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{})
		return err == nil, err
	})
}

// RolloutStarted is the status of a Deployment whose new ReplicaSet has a pod
// that is not available yet while the old one still serves.
func RolloutStarted(d *appsv1.Deployment) {
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 1,
		ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1}
}

// RolloutComplete is the status of a Deployment whose replicas all run its
// current template and are available.
func RolloutComplete(d *appsv1.Deployment) {
	n := ptr.Deref(d.Spec.Replicas, 1)
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n}
}

// FakeNode is where played scheduler pods run: a pod bound to a node is
// deleted gracefully, so without a kubelet it stays terminating unless
// deleted with a grace period of 0.
const FakeNode = "node-1"

// AddTemplatePod plays the ReplicaSet controller and the kubelet: a pod of the
// Deployment's current template, bound to FakeNode, in the given state.
func (c *Clients) AddTemplatePod(t testing.TB, name string, d *appsv1.Deployment, status corev1.PodStatus) {
	t.Helper()
	ctx := context.Background()
	pods := c.Kube.CoreV1().Pods(names.OperandNamespace)
	tmpl := d.Spec.Template
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: names.OperandNamespace, Labels: tmpl.Labels, Annotations: tmpl.Annotations},
		Spec:       *tmpl.Spec.DeepCopy(),
	}
	pod.Spec.NodeName = FakeNode
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status = status
	if _, err := pods.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// DeleteSchedulerPods deletes every scheduler pod at once, terminating ones included.
func (c *Clients) DeleteSchedulerPods(ctx context.Context) error {
	return c.Kube.CoreV1().Pods(names.OperandNamespace).DeleteCollection(ctx,
		metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)},
		metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + names.OperandName})
}

// RunningStatus is a ready scheduler container.
func RunningStatus() corev1.PodStatus {
	return corev1.PodStatus{
		Phase:      corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: names.OperandName, Ready: true, Started: ptr.To(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}},
	}
}

// CrashLoopStatus is a scheduler that exited at start with its error as the
// termination message, as the operand's FallbackToLogsOnError reports it.
func CrashLoopStatus(exitCode int32, message string) corev1.PodStatus {
	return corev1.PodStatus{
		Phase:      corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: names.OperandName, RestartCount: 1,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: "back-off 10s restarting failed container"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exitCode,
				Reason: "Error", Message: message}},
		}},
	}
}

// PodReady says whether the pod's Ready condition is True.
func PodReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
