package rollout

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
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
	// Last is status.lastTrial.
	Last *secondaryschedulerv1.TrialResult
}

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
	switch {
	case last != nil && last.Verdict == secondaryschedulerv1.TrialAllowed:
		d.Trial = last
		return d
	case last == nil:
		d.Message = fmt.Sprintf("A trial of %s is starting; it rolls out once the trial allows it.", what)
	case last.Verdict == secondaryschedulerv1.TrialRunning:
		d.Message = fmt.Sprintf("A trial of %s is running since %s; it rolls out once the trial allows it.", what, last.StartedAt.UTC().Format("15:04:05Z"))
	case last.Verdict == secondaryschedulerv1.TrialBlocked:
		d.Message = fmt.Sprintf("The trial of %s blocked it: %s\nThe running scheduler is left as it is. "+
			"Change the input to try again, widen spec.rollout.trial's gate, or set spec.rollout.strategy to Direct.", what, last.Message)
	default:
		d.Message = fmt.Sprintf("The trial of %s could not run: %s\nNothing rolls out without a verdict. "+
			"Fix the cause and change the input to try again, or set spec.rollout.strategy to Direct.", what, last.Message)
	}
	d.Action, d.Deployment, d.ConfigHash, d.Trial = Gate, nil, current.ConfigHash, last
	d.Candidate = &candidate
	return d
}
