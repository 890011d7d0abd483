// Package rollout decides, without side effects, what the scheduler's
// Deployment should run: the desired template, a rollback to the last
// configuration that ran, nothing new until the inputs change, or, under
// spec.rollout.strategy Trial, the running one while a trial of the change is
// requested (status.trialRequest) and until its verdict allows it. It reads
// the rendered objects, the live Deployment with its pods, and the rollout
// record and trial verdict kept in the SecondaryScheduler's status.
package rollout

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/message"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// MaxFailureMessage bounds what a pod's termination message adds to status.
const MaxFailureMessage = 1024

// Observed is what the Deployment and its pods say about the template the
// Deployment is rolling out.
type Observed struct {
	Current secondaryschedulerv1.Rollout
	// Completed: every replica runs the current template and is available.
	Completed bool
	// Failure, when set, says why the current template's pods fail.
	Failure string
}

// Complete is the one rule for a finished rollout: the Deployment controller
// has seen the newest template, and every replica runs it and is available.
func Complete(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return d.Generation == s.ObservedGeneration && s.UpdatedReplicas >= want && s.Replicas == s.UpdatedReplicas && s.AvailableReplicas >= want
}

// TemplateHash identifies d's pod template; "" for no Deployment.
func TemplateHash(d *appsv1.Deployment) string {
	if d == nil {
		return ""
	}
	return d.Spec.Template.Annotations[names.TemplateHashAnnotation]
}

// Observe reads the Deployment and its pods. A new pod whose container exited
// with an error has failed at once (a scheduler that refuses its
// configuration exits within a second); anything else that keeps the rollout
// from finishing fails it at the Deployment's progress deadline.
func Observe(d *appsv1.Deployment, pods []*corev1.Pod) Observed {
	o := Observed{Current: secondaryschedulerv1.Rollout{
		ConfigHash:   d.Spec.Template.Annotations[names.ConfigHashAnnotation],
		TemplateHash: TemplateHash(d),
	}}
	if d.Status.ObservedGeneration != d.Generation {
		return o // the Deployment controller has not seen this template yet
	}
	if o.Completed = Complete(d); o.Completed {
		return o
	}
	if crash := firstCrash(pods, o.Current.TemplateHash); crash != "" {
		o.Failure = crash
		return o
	}
	o.Failure = deadlineExceeded(d)
	return o
}

// firstCrash is the first, in name order, container of the template's pods
// that exited with an error.
func firstCrash(pods []*corev1.Pod, templateHash string) string {
	var crashes []string
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Annotations[names.TemplateHashAnnotation] != templateHash {
			continue
		}
		statuses := append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
		for _, cs := range statuses {
			if msg, crashed := crashOf(cs); crashed {
				crashes = append(crashes, fmt.Sprintf("pod %s container %s %s", p.Name, cs.Name, msg))
			}
		}
	}
	if len(crashes) == 0 {
		return ""
	}
	sort.Strings(crashes)
	return message.Cap(crashes[0], MaxFailureMessage)
}

func deadlineExceeded(d *appsv1.Deployment) string {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
			deadline := int32(600)
			if d.Spec.ProgressDeadlineSeconds != nil {
				deadline = *d.Spec.ProgressDeadlineSeconds
			}
			return fmt.Sprintf("no new scheduler pod became available within %ds (the Deployment's progressDeadlineSeconds): %s",
				deadline, c.Message)
		}
	}
	return ""
}

// crashOf tells whether a container exited with an error, with the exit code
// and its termination message (the scheduler's own error: the operand
// container uses FallbackToLogsOnError).
func crashOf(cs corev1.ContainerStatus) (string, bool) {
	t := cs.LastTerminationState.Terminated
	if cs.State.Terminated != nil {
		t = cs.State.Terminated
	}
	if t == nil || t.ExitCode == 0 {
		return "", false
	}
	msg := fmt.Sprintf("exited with code %d", t.ExitCode)
	if m := strings.TrimSpace(t.Message); m != "" {
		// A log tail ends with the error that stopped the process: keep the end.
		msg += ": " + message.KeepEnd(m, MaxFailureMessage-len(msg)-100)
	}
	return msg, true
}
