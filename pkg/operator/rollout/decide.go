package rollout

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// Record is the rollout record kept in the SecondaryScheduler's status.
type Record struct {
	LastKnownGood *secondaryschedulerv1.Rollout
	FailedRollout *secondaryschedulerv1.FailedRollout
}

// ApplyTo sets the record in a status apply configuration.
func (r Record) ApplyTo(status *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration) {
	if lkg := r.LastKnownGood; lkg != nil {
		status.WithLastKnownGood(secondaryschedulerapply.Rollout().WithConfigHash(lkg.ConfigHash).WithTemplateHash(lkg.TemplateHash))
	}
	if f := r.FailedRollout; f != nil {
		status.WithFailedRollout(secondaryschedulerapply.FailedRollout().WithConfigHash(f.ConfigHash).
			WithTemplateHash(f.TemplateHash).WithMessage(f.Message).WithFailedAt(f.FailedAt))
	}
}

// Copy returns a deep copy.
func (r Record) Copy() Record {
	return Record{LastKnownGood: r.LastKnownGood.DeepCopy(), FailedRollout: r.FailedRollout.DeepCopy()}
}

// Observe notes a completed rollout as the last known good one. It needs no
// desired template, so it runs before rendering: the rollback Render prepares
// is then the one Decide picks.
func (r Record) Observe(o Observed) Record {
	out := r.Copy()
	if o.Completed && o.Current.TemplateHash != "" {
		lkg := o.Current
		out.LastKnownGood = &lkg
	}
	return out
}

// Action is what Decide chose for the Deployment.
type Action string

const (
	// RollOut applies the desired Deployment (nothing rolls when it runs already).
	RollOut Action = "RollOut"
	// RollBack applies the last configuration that ran, while the desired one fails.
	RollBack Action = "RollBack"
	// Hold keeps the desired Deployment, which failed, because there is nothing to roll back to.
	Hold Action = "Hold"
	// Wait applies nothing yet: the first rollout waits for an input still to come.
	Wait Action = "Wait"
)

// Inputs is what Decide reads.
type Inputs struct {
	Desired *render.Objects
	// Live is the Deployment the caches hold, nil when there is none.
	Live *appsv1.Deployment
	// Observed is Observe of Live and its pods; zero when Live is nil.
	Observed Observed
	// Record is the rollout record, brought up to date by Record.Observe.
	Record Record
	// Awaiting, when set, says what a first rollout waits for.
	Awaiting string
	// Trial is what the gate of spec.rollout reads.
	Trial Trial
	Now   metav1.Time
}

// Decision is what to apply, and the record and report that go with it.
type Decision struct {
	Action Action
	// Deployment is what to apply, the desired or the rolled-back one; nil for Wait.
	Deployment *appsv1.Deployment
	// ConfigHash is the configuration Deployment runs.
	ConfigHash string
	// Record is the rollout record to write.
	Record Record
	// Message says why, for RollBack and Hold the message of RolloutFailed;
	// for Wait what is awaited; for Gate what the trial says or is doing.
	Message string
	// Trial is the trial of the desired change: the one that allowed it, or
	// for Gate the verdict that holds it (nil while none is in).
	Trial *secondaryschedulerv1.TrialResult
	// TrialRequest, for Gate, is the change a trial must allow: status.trialRequest.
	TrialRequest *secondaryschedulerv1.TrialRequest
}

// Decide takes back a rollout that failed: while the desired template is the
// one that failed, the Deployment runs the last configuration that ran, if
// there is one and its ConfigMap is sound (Render then prepared
// Objects.Rollback). The failed template is tried again only once an input
// changes it. A failing rolled-back template is reported, never recorded, so
// the two cannot take turns.
func Decide(in Inputs) Decision {
	desired := in.Desired
	if in.Live == nil && in.Awaiting != "" {
		return Decision{Action: Wait, Record: in.Record.Copy(), Message: in.Awaiting}
	}
	d := Decision{Action: RollOut, Deployment: desired.Deployment, ConfigHash: desired.ConfigHash, Record: recordFailure(in)}
	failed := d.Record.FailedRollout
	if failed == nil || failed.TemplateHash != desired.TemplateHash {
		return gate(in, d)
	}
	what := fmt.Sprintf("The scheduler pods of configuration %s failed: %s.\n", Short(failed.ConfigHash), failed.Message)
	lkg := d.Record.LastKnownGood
	d.Action = Hold
	switch {
	case lkg == nil:
		d.Message = what + "No configuration has run before, so there is nothing to roll back to. " +
			"Fix the input (spec, or the ConfigMap named by spec.schedulerConfig); it is rolled out again when it changes."
	case lkg.ConfigHash == failed.ConfigHash:
		d.Message = what + "The configuration is the one that last ran, so something else in the " +
			"pod template (image, command, sidecars ...) made them fail. The previous pods keep serving; fix the spec."
	case desired.Rollback == nil || desired.Rollback.ConfigHash != lkg.ConfigHash:
		d.Message = what + fmt.Sprintf("ConfigMap %s of the last configuration that ran is gone, "+
			"so it cannot be rolled back to. The previous pods keep serving; fix the input.", names.ConfigMapNameFor(lkg.ConfigHash))
	default:
		d.Action, d.Deployment, d.ConfigHash = RollBack, desired.Rollback.Deployment, lkg.ConfigHash
		d.Message = what + fmt.Sprintf("Rolled back to configuration %s, the last that ran. Fix the input "+
			"(spec, or the ConfigMap named by spec.schedulerConfig); it is rolled out again when it changes.", Short(lkg.ConfigHash))
		if o := in.Observed; o.Failure != "" && o.Current.TemplateHash == desired.Rollback.TemplateHash {
			d.Message += "\nThe rolled-back pods fail too: " + o.Failure
		}
	}
	return d
}

// recordFailure notes a failing rollout of the desired template as failed,
// and clears the failure once the desired template has run.
func recordFailure(in Inputs) Record {
	r := in.Record.Copy()
	o, desired := in.Observed, in.Desired.TemplateHash
	if o.Current.TemplateHash == "" || o.Current.TemplateHash != desired {
		return r // no Deployment, one of an earlier release, or another template
	}
	if o.Completed {
		r.FailedRollout = nil
		return r
	}
	if o.Failure != "" {
		if f := r.FailedRollout; f == nil || f.TemplateHash != desired || f.Message != o.Failure {
			r.FailedRollout = &secondaryschedulerv1.FailedRollout{
				ConfigHash: o.Current.ConfigHash, TemplateHash: o.Current.TemplateHash, Message: o.Failure, FailedAt: in.Now,
			}
		}
	}
	return r
}

// Short is the prefix of a hash people read.
func Short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}
