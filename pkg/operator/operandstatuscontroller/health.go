package operandstatuscontroller

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/podhealth"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// revisionAnnotation is where the Deployment controller numbers ReplicaSets.
const revisionAnnotation = "deployment.kubernetes.io/revision"

// podProblem is one operand pod that cannot run.
type podProblem struct {
	reason  string
	message string
}

// podProblems lists, sorted, why the operand's pods are not running.
func podProblems(pods []*corev1.Pod) []podProblem {
	var out []podProblem
	for _, pod := range pods {
		for _, p := range podhealth.Problems(pod) {
			out = append(out, podProblem{reason: p.Reason, message: fmt.Sprintf("pod %s %s", pod.Name, p.Message)})
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

// rolloutProgress describes a Deployment still moving to its newest revision, or "" when it is done.
func rolloutProgress(d *appsv1.Deployment, replicaSets []*appsv1.ReplicaSet) string {
	if rollout.Complete(d) {
		return ""
	}
	desired := int32(1)
	if d.Spec.Replicas != nil {
		desired = *d.Spec.Replicas
	}
	s := d.Status
	newRevision := d.Annotations[revisionAnnotation]
	var old []string
	for _, rs := range replicaSets {
		if rev := rs.Annotations[revisionAnnotation]; rev != newRevision && rs.Status.Replicas > 0 {
			old = append(old, rev)
		}
	}
	sort.Strings(old)
	if newRevision == "" {
		newRevision = "?"
	}
	// No older pods left: the new ones are still becoming available
	// (minReadySeconds), or this is the first rollout.
	from := ""
	if len(old) > 0 {
		from = " from revision " + strings.Join(old, ", ")
	}
	return fmt.Sprintf("Deployment %s/%s is rolling out revision %s%s: %d of %d pods updated, %d available",
		d.Namespace, d.Name, newRevision, from, s.UpdatedReplicas, desired, s.AvailableReplicas)
}
