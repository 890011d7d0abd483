package simulatorcontroller

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/message"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/podhealth"
)

// Condition types and reasons on a Simulator.
const (
	ConditionAvailable = "Available"
	ConditionDegraded  = "Degraded"

	ReasonAsExpected       = "AsExpected"
	ReasonInvalidSpec      = "InvalidSpec"
	ReasonPodNotCreated    = "PodNotCreated"
	ReasonPodNotReady      = "PodNotReady"
	ReasonPodReady         = "PodReady"
	ReasonImagePullFailure = podhealth.ImagePullFailure
	ReasonCrashLoop        = podhealth.CrashLoop
	ReasonContainerFailure = podhealth.ContainerFailure
	ReasonUnschedulable    = podhealth.Unschedulable
	ReasonSyncFailed       = "SyncFailed"
)

// MessageWaitingForPod is the Creating message while nothing is known to be wrong.
const MessageWaitingForPod = "waiting for the Pod to become ready"

// MaxMessageBytes bounds every message the controller writes: status.message,
// the conditions' messages and its events'. What it reports may echo what a
// user wrote (an API error quoting a field, a container's status message);
// a longer message is cut at a rune boundary and ends in message.TruncatedMarker.
const MaxMessageBytes = 1024

// statusMessage is obs's message and note, within MaxMessageBytes: the note
// (what is kept, and why) keeps up to half of it.
func statusMessage(msg, note string) string {
	note = message.Cap(note, MaxMessageBytes/2)
	return message.Cap(msg, MaxMessageBytes-len(note)) + note
}

// failed is the observation of a sync that failed with err: Degraded,
// Creating when the Pod exists, else Pending; reason NameConflict when an
// object of the Simulator's is someone else's.
func failed(err error, podExists bool) observation {
	obs := observation{phase: simv1alpha1.SimulatorPending, reason: ReasonSyncFailed, message: err.Error(), degraded: true}
	if podExists {
		obs.phase = simv1alpha1.SimulatorCreating
	}
	if isConflict(err) {
		obs.reason = ReasonNameConflict
	}
	return obs
}

// observation is what a sync found: the phase, why, and whether it is a problem a
// user has to act on (Degraded).
type observation struct {
	phase    simv1alpha1.SimulatorPhase
	reason   string
	message  string
	degraded bool
	// requeueAfter asks for another sync then (a back-off ends).
	requeueAfter time.Duration
	// note ends the message, whatever the phase makes of it.
	note string
}

// invalidSpec is the observation for a spec Render refused.
func invalidSpec(err error) observation {
	return observation{
		phase:    simv1alpha1.SimulatorPending,
		reason:   ReasonInvalidSpec,
		message:  fmt.Sprintf("the spec is invalid; nothing is created or changed for it until it is fixed: %v", err),
		degraded: true,
	}
}

// observePod says where a simulator is from its current Pod (nil: none yet),
// the way the kubelet and the scheduler report it.
func observePod(pod *corev1.Pod) observation {
	if pod == nil {
		return observation{phase: simv1alpha1.SimulatorPending, reason: ReasonPodNotCreated, message: "the Pod has not been created yet"}
	}
	creating := func(reason, message string, degraded bool) observation {
		return observation{phase: simv1alpha1.SimulatorCreating, reason: reason, message: message, degraded: degraded}
	}
	if pod.DeletionTimestamp != nil {
		return creating(ReasonPodNotReady, fmt.Sprintf("waiting for the previous Pod %s to terminate", pod.Name), false)
	}
	if finished(pod) {
		return creating(ReasonPodNotReady, fmt.Sprintf("the Pod ended (%s%s%s), replacing it", pod.Status.Phase, detail(pod.Status.Reason), detail(pod.Status.Message)), false)
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return observation{phase: simv1alpha1.SimulatorAvailable, reason: ReasonPodReady, message: "the simulator is ready"}
		}
	}
	if problems := podhealth.Problems(pod); len(problems) > 0 {
		return creating(problems[0].Reason, fmt.Sprintf("pod %s %s", pod.Name, problems[0].Message), true)
	}
	return creating(ReasonPodNotReady, MessageWaitingForPod, false)
}

func detail(msg string) string {
	if msg = strings.TrimSpace(msg); msg == "" {
		return ""
	}
	return ": " + msg
}

// desiredStatus is the status a Simulator should have after a sync that made obs;
// url is empty when unknown (the existing one is then kept). Condition transition
// times move only when a condition's status changes, so a sync that observes
// nothing new returns a status equal to the current one.
func desiredStatus(sim *simv1alpha1.Simulator, obs observation, url string, now metav1.Time) simv1alpha1.SimulatorStatus {
	status := *sim.Status.DeepCopy()
	if url != "" {
		status.KubeAPIServerURL = url
	}
	if obs.phase == simv1alpha1.SimulatorAvailable && status.KubeAPIServerURL != "" {
		obs.message = "the simulator is ready: its kube-apiserver is at " + status.KubeAPIServerURL
	}
	obs.message = statusMessage(obs.message, obs.note)
	status.Phase = obs.phase
	status.Message = &obs.message
	status.ObservedGeneration = sim.Generation

	available := metav1.Condition{Type: ConditionAvailable, Status: metav1.ConditionFalse, Reason: obs.reason, Message: obs.message}
	if obs.phase == simv1alpha1.SimulatorAvailable {
		available.Status = metav1.ConditionTrue
	}
	degraded := metav1.Condition{Type: ConditionDegraded, Status: metav1.ConditionFalse, Reason: ReasonAsExpected}
	if obs.degraded {
		degraded.Status, degraded.Reason, degraded.Message = metav1.ConditionTrue, obs.reason, obs.message
	}
	for _, c := range []metav1.Condition{available, degraded} {
		c.ObservedGeneration = sim.Generation
		c.LastTransitionTime = now
		meta.SetStatusCondition(&status.Conditions, c)
	}
	return status
}

// statusChanged says whether writing desired would change anything.
func statusChanged(current, desired *simv1alpha1.SimulatorStatus) bool {
	return !equality.Semantic.DeepEqual(current, desired)
}
