package rollout

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	trialgate "github.com/openshift/secondary-scheduler-operator/pkg/trial/gate"
)

// Gate holds the running Deployment while a trial of the change is due,
// running, blocked or failed.
const Gate Action = "Gate"

// Change is what a trial tries: a merged configuration with a scheduler image.
type Change struct {
	ConfigHash string
	Image      string
}

// Trial is what the gate reads.
type Trial struct {
	// Required: spec.rollout.strategy is Trial.
	Required bool
	// Policy is spec.rollout.trial: its gate judges the last trial's counts
	// as the spec is now, so widening the gate needs no new trial.
	Policy *secondaryschedulerv1.TrialPolicy
	// Last is status.lastTrial.
	Last *secondaryschedulerv1.TrialResult
}

// RetryFailedTrialAfter is how long a trial that could not run (an image
// not pulled, no room for its Pods) stands before the same change is tried
// again: its cause may be gone without any input changing (a mirror set in
// spec.rollout.trial.sandboxImages, a node added).
const RetryFailedTrialAfter = 5 * time.Minute

// TrialRequired says whether ss rolls changes out only after a trial.
func TrialRequired(ss *secondaryschedulerv1.SecondaryScheduler) bool {
	return ss.Spec.Rollout != nil && ss.Spec.Rollout.Strategy == secondaryschedulerv1.RolloutTrial
}

// TrialFor is the trial that decides change, when last is one.
func TrialFor(change Change, last *secondaryschedulerv1.TrialResult) *secondaryschedulerv1.TrialResult {
	if last == nil || last.ConfigHash != change.ConfigHash || last.Image != change.Image {
		return nil
	}
	return last
}

// SchedulerImage is the image of d's scheduler container.
func SchedulerImage(d *appsv1.Deployment) string {
	if d == nil {
		return ""
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == names.OperandName {
			return c.Image
		}
	}
	return ""
}

// gate holds a rollout that changes the configuration or the scheduler image
// of a running Deployment until a trial of exactly that change allowed it.
// The first rollout has nothing to compare with, and a rollback or a held
// failure is never tried: they go back to what ran.
func gate(in Inputs, d Decision) Decision {
	if !in.Trial.Required || d.Action != RollOut || in.Live == nil {
		return d
	}
	current := Change{ConfigHash: in.Live.Spec.Template.Annotations[names.ConfigHashAnnotation], Image: SchedulerImage(in.Live)}
	candidate := Change{ConfigHash: in.Desired.ConfigHash, Image: SchedulerImage(in.Desired.Deployment)}
	if candidate == current {
		return d
	}
	last := TrialFor(candidate, in.Trial.Last)
	what := fmt.Sprintf("configuration %s with image %s", Short(candidate.ConfigHash), candidate.Image)
	blocked := ""
	if last != nil && last.Verdict != secondaryschedulerv1.TrialRunning && last.Verdict != secondaryschedulerv1.TrialFailed {
		if blocked = beyondGate(in.Trial.Policy, last); blocked == "" {
			d.Trial = last
			return d
		}
	}
	switch {
	case last == nil:
		d.Message = fmt.Sprintf("A trial of %s is starting; it rolls out once the trial allows it.", what)
	case last.Verdict == secondaryschedulerv1.TrialRunning:
		d.Message = fmt.Sprintf("A trial of %s is running since %s; it rolls out once the trial allows it.", what, last.StartedAt.UTC().Format("15:04:05Z"))
	case last.Verdict == secondaryschedulerv1.TrialFailed:
		d.Message, d.RetryTrial, d.RecheckAfter = failedTrial(what, last, in.Now)
	default:
		d.Message = fmt.Sprintf("The trial of %s is beyond spec.rollout.trial's gate: %s.\nThe trial found: %s\nThe running scheduler is left as it is. "+
			"Change the input to try again, widen the gate, or set spec.rollout.strategy to Direct.", what, blocked, last.Message)
	}
	d.Action, d.Deployment, d.ConfigHash, d.Trial = Gate, nil, current.ConfigHash, last
	d.Candidate = &candidate
	return d
}

// beyondGate says what of last's counts the gate of policy refuses, "" when
// it allows them (maxNewlyUnschedulable defaults to 0, maxMovedPercent to
// none). A verdict without counts stands as recorded.
func beyondGate(policy *secondaryschedulerv1.TrialPolicy, last *secondaryschedulerv1.TrialResult) string {
	counts := last.Counts
	if counts == nil {
		if last.Verdict == secondaryschedulerv1.TrialAllowed {
			return ""
		}
		return "as the trial recorded"
	}
	maxNew, maxMoved := trialgate.Bounds(policy)
	return strings.Join(trialgate.Exceeded(int(counts.NewlyUnschedulable), maxNew, int(counts.Same), int(counts.Moved), maxMoved), ", ")
}

// failedTrial says why a change waits after a trial that could not run, and
// whether to try it again now or when to look again.
func failedTrial(what string, last *secondaryschedulerv1.TrialResult, now metav1.Time) (string, bool, time.Duration) {
	msg := fmt.Sprintf("The trial of %s could not run: %s\nNothing rolls out without a verdict. ", what, last.Message)
	finished := last.StartedAt.Time
	if last.FinishedAt != nil {
		finished = last.FinishedAt.Time
	}
	left := finished.Add(RetryFailedTrialAfter).Sub(now.Time)
	if left <= 0 {
		return msg + "It is being tried again.", true, 0
	}
	return msg + fmt.Sprintf("It is tried again at %s, or at once when an input changes; set spec.rollout.strategy to Direct to roll out without a trial.",
		finished.Add(RetryFailedTrialAfter).UTC().Format("15:04:05Z")), false, left
}
