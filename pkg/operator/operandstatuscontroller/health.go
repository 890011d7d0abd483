package operandstatuscontroller

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// revisionAnnotation is where the Deployment controller numbers ReplicaSets.
const revisionAnnotation = "deployment.kubernetes.io/revision"

// waitingReasons are container states that will not fix themselves.
var waitingReasons = map[string]bool{
	"CrashLoopBackOff":           true,
	"ImagePullBackOff":           true,
	"ErrImagePull":               true,
	"InvalidImageName":           true,
	"CreateContainerConfigError": true,
	"CreateContainerError":       true,
	"RunContainerError":          true,
}

// podProblem is one pod that cannot run, in words a person can act on.
type podProblem struct {
	reason  string
	message string
}

// podProblems lists, sorted, why the operand's pods are not running.
func podProblems(pods []*corev1.Pod) []podProblem {
	var out []podProblem
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				out = append(out, podProblem{reason: "Unschedulable",
					message: fmt.Sprintf("pod %s cannot be scheduled: %s", pod.Name, c.Message)})
			}
		}
		statuses := append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
		for _, cs := range statuses {
			if w := cs.State.Waiting; w != nil && waitingReasons[w.Reason] {
				msg := fmt.Sprintf("pod %s container %s is waiting: %s", pod.Name, cs.Name, w.Reason)
				if w.Message != "" {
					msg += ": " + w.Message
				}
				if w.Reason == "CrashLoopBackOff" && cs.LastTerminationState.Terminated != nil {
					t := cs.LastTerminationState.Terminated
					msg += fmt.Sprintf(" (last exit code %d, %s, after %d restarts)", t.ExitCode, t.Reason, cs.RestartCount)
				}
				out = append(out, podProblem{reason: w.Reason, message: msg})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].message < out[j].message })
	return out
}

func joinMessages(problems []podProblem) string {
	msgs := make([]string, 0, len(problems))
	for _, p := range problems {
		msgs = append(msgs, p.message)
	}
	return strings.Join(msgs, "\n")
}

// rollout describes a Deployment still moving to its newest revision, or "" when it is done.
func rollout(d *appsv1.Deployment, replicaSets []*appsv1.ReplicaSet) string {
	desired := int32(1)
	if d.Spec.Replicas != nil {
		desired = *d.Spec.Replicas
	}
	s := d.Status
	if d.Generation == s.ObservedGeneration && s.UpdatedReplicas >= desired && s.Replicas == s.UpdatedReplicas && s.AvailableReplicas >= desired {
		return ""
	}
	newRevision := d.Annotations[revisionAnnotation]
	var old []string
	for _, rs := range replicaSets {
		if rev := rs.Annotations[revisionAnnotation]; rev != newRevision && rs.Status.Replicas > 0 {
			old = append(old, rev)
		}
	}
	sort.Strings(old)
	from := "nothing"
	if len(old) > 0 {
		from = "revision " + strings.Join(old, ", ")
	}
	if newRevision == "" {
		newRevision = "?"
	}
	return fmt.Sprintf("Deployment %s/%s is rolling out from %s to revision %s: %d of %d pods updated, %d available",
		d.Namespace, d.Name, from, newRevision, s.UpdatedReplicas, desired, s.AvailableReplicas)
}
