package rollout

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// Gate holds the running Deployment while a trial of the change is due,
// running, blocked or failed.
const Gate Action = "Gate"

// Trial is what the gate reads.
type Trial struct {
	// Required: spec.rollout.strategy is Trial.
	Required bool
	// Policy is spec.rollout.trial.
	Policy *secondaryschedulerv1.TrialPolicy
	// Last is status.lastTrial, the trial controller's answer.
	Last *secondaryschedulerv1.TrialResult
	// Requested is status.trialRequest, the change held when the sync began.
	Requested *secondaryschedulerv1.TrialRequest
}

// TrialRequired says whether ss rolls changes out only after a trial.
func TrialRequired(ss *secondaryschedulerv1.SecondaryScheduler) bool {
	return ss.Spec.Rollout != nil && ss.Spec.Rollout.Strategy == secondaryschedulerv1.RolloutTrial
}

// SchedulerImage is the image of d's scheduler container.
func SchedulerImage(d *appsv1.Deployment) string {
	return TrialArm(d, "").Image
}

// TrialArm is the scheduler d runs with the configuration of configHash:
// its image, command and arguments without the flags a trial sets itself,
// as a trial runs it, and the hash of its environment and mounts as rendered
// (names.EnvironmentHashAnnotation).
func TrialArm(d *appsv1.Deployment, configHash string) secondaryschedulerv1.TrialArm {
	arm := secondaryschedulerv1.TrialArm{ConfigHash: configHash}
	if d == nil {
		return arm
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == names.OperandName {
			arm.Image, arm.Command, arm.Args = c.Image, slices.Clone(c.Command), render.TrialArgs(c.Args)
			arm.EnvironmentHash = d.Spec.Template.Annotations[names.EnvironmentHashAnnotation]
			if arm.EnvironmentHash == "" { // rendered by a release before the annotation
				arm.EnvironmentHash = render.EnvironmentHash(c, d.Spec.Template.Spec.Volumes)
			}
		}
	}
	return arm
}

// TrialGate is the gate of policy, with its defaults: no newly unschedulable
// unit, no bound on moves.
func TrialGate(policy *secondaryschedulerv1.TrialPolicy) secondaryschedulerv1.TrialGate {
	if policy == nil {
		return secondaryschedulerv1.TrialGate{}
	}
	return secondaryschedulerv1.TrialGate{MaxNewlyUnschedulable: ptr.Deref(policy.MaxNewlyUnschedulable, 0),
		MaxMovedPercent: policy.MaxMovedPercent}
}

// VerdictExpired says whether last, a verdict, is older than policy's
// verdictTTLSeconds at now: the cluster it was judged on has moved on, so the
// change is tried again.
func VerdictExpired(last *secondaryschedulerv1.TrialResult, policy *secondaryschedulerv1.TrialPolicy, now time.Time) bool {
	if last == nil || last.FinishedAt == nil || last.Verdict == secondaryschedulerv1.TrialRunning {
		return false
	}
	ttl := int32(secondaryschedulerv1.DefaultTrialVerdictTTLSeconds)
	if policy != nil && policy.VerdictTTLSeconds != nil {
		ttl = *policy.VerdictTTLSeconds
	}
	return now.Sub(last.FinishedAt.Time) > time.Duration(ttl)*time.Second
}

// NewTrialRequest pits candidate against current, keyed by both.
func NewTrialRequest(current, candidate secondaryschedulerv1.TrialArm, policy *secondaryschedulerv1.TrialPolicy) *secondaryschedulerv1.TrialRequest {
	arms, _ := json.Marshal([]secondaryschedulerv1.TrialArm{current, candidate}) // plain strings: cannot fail
	sum := sha256.Sum256(arms)
	return &secondaryschedulerv1.TrialRequest{Key: hex.EncodeToString(sum[:]), Current: current, Candidate: candidate, Gate: TrialGate(policy)}
}

// gate holds a rollout that changes the scheduler a running Deployment runs
// (its configuration, image, command, arguments, env or mounts) until a trial of exactly
// that change, judged by the gate as it is now, allowed it. The first
// rollout has nothing to compare with, and a rollback or a held failure is
// never tried: they go back to what ran. A Deployment that is gone is
// compared as the one that last ran, which is created while the change is
// held (lastRan).
func gate(in Inputs, d Decision) Decision {
	if !in.Trial.Required || d.Action != RollOut {
		return d
	}
	live := in.Live
	if live == nil {
		var why string
		if live, why = lastRan(in); why != "" {
			d.Action, d.Deployment, d.ConfigHash, d.TrialRequest = Gate, nil, "", in.Trial.Requested.DeepCopy()
			d.Message = why + "Nothing is created, so no untried change runs: put the spec back to what last ran, " +
				"or set spec.rollout.strategy to Direct to roll the change out without a trial."
			return d
		}
		if live == nil {
			return d
		}
	}
	if kept := keptPin(live, d.Deployment, in.Desired.TemplateHash, in.Trial.Last); kept != nil {
		d.Deployment = kept
	}
	current := TrialArm(live, live.Spec.Template.Annotations[names.ConfigHashAnnotation])
	candidate := TrialArm(d.Deployment, in.Desired.ConfigHash)
	req := NewTrialRequest(current, candidate, in.Trial.Policy)
	if sameScheduler(current, candidate) {
		return d
	}
	last := in.Trial.Last
	if last != nil && (last.Key != req.Key || VerdictExpired(last, in.Trial.Policy, in.Now.Time)) {
		last = nil // a trial of another change, or one too old to hold
	}
	what := fmt.Sprintf("configuration %s with image %s", Short(candidate.ConfigHash), candidate.Image)
	judged := last != nil && last.Gate != nil && SameGate(*last.Gate, req.Gate)
	switch {
	case last == nil:
		d.Message = fmt.Sprintf("A trial of %s is starting; it rolls out once the trial allows it.", what)
	case last.Verdict == secondaryschedulerv1.TrialRunning:
		d.Message = fmt.Sprintf("A trial of %s is running since %s; it rolls out once the trial allows it.", what, last.StartedAt.UTC().Format("15:04:05Z"))
	case last.Verdict == secondaryschedulerv1.TrialFailed:
		d.Message = fmt.Sprintf("The trial of %s could not run: %s\nNothing rolls out without a verdict; "+
			"set spec.rollout.strategy to Direct to roll out without a trial.", what, last.Message)
	case last.Verdict == secondaryschedulerv1.TrialInconclusive:
		d.Message = fmt.Sprintf("The trial of %s was inconclusive: %s\nNothing rolls out on a trial that proves nothing; "+
			"it is tried again, or set spec.rollout.strategy to Direct to roll out without a trial.", what, last.Message)
	case !judged || last.Counts == nil:
		// Counts judged by another gate, or none to judge: the trial controller judges them again.
		d.Message = fmt.Sprintf("The trial of %s is being judged by spec.rollout.trial's gate as it is now.", what)
		last = nil
	case last.Verdict == secondaryschedulerv1.TrialAllowed:
		d.Trial = last
		d.Deployment, d.Message = pinTried(d.Deployment, last)
		return d
	default:
		d.Message = fmt.Sprintf("The trial of %s is beyond spec.rollout.trial's gate.\nThe trial found: %s\nThe running scheduler is left as it is. "+
			"Change the input to try again, widen the gate, or set spec.rollout.strategy to Direct.", what, last.Message)
	}
	d.Action, d.Deployment, d.ConfigHash, d.Trial, d.TrialRequest = Gate, nil, current.ConfigHash, last, req
	if in.Live == nil {
		d.Deployment = live // recreated as it last ran, still held
		d.Message = fmt.Sprintf("Deployment %s/%s was gone; it is recreated as it last ran (configuration %s) while the change is held.\n",
			names.OperandNamespace, names.OperandName, Short(current.ConfigHash)) + d.Message
	}
	return d
}

// sameScheduler says whether a and b run the same scheduler process: every
// field of the trial key.
func sameScheduler(a, b secondaryschedulerv1.TrialArm) bool {
	return a.ConfigHash == b.ConfigHash && a.Image == b.Image && slices.Equal(a.Command, b.Command) && slices.Equal(a.Args, b.Args) &&
		a.EnvironmentHash == b.EnvironmentHash
}

// SameGate says whether a and b judge counts alike.
func SameGate(a, b secondaryschedulerv1.TrialGate) bool {
	return a.MaxNewlyUnschedulable == b.MaxNewlyUnschedulable && ptr.Equal(a.MaxMovedPercent, b.MaxMovedPercent)
}

// ApplyTrialRequest sets r on status; nil sets nothing, which an apply reads
// as removing it.
func ApplyTrialRequest(status *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration, r *secondaryschedulerv1.TrialRequest) {
	if r == nil {
		return
	}
	arm := func(a secondaryschedulerv1.TrialArm) *secondaryschedulerapply.TrialArmApplyConfiguration {
		out := secondaryschedulerapply.TrialArm().WithConfigHash(a.ConfigHash).WithImage(a.Image).WithCommand(a.Command...).WithArgs(a.Args...)
		if a.EnvironmentHash != "" {
			out.WithEnvironmentHash(a.EnvironmentHash)
		}
		return out
	}
	status.WithTrialRequest(secondaryschedulerapply.TrialRequest().WithKey(r.Key).WithCurrent(arm(r.Current)).
		WithCandidate(arm(r.Candidate)).WithGate(TrialGateApply(r.Gate)))
}

// TrialGateApply is g as an apply configuration.
func TrialGateApply(g secondaryschedulerv1.TrialGate) *secondaryschedulerapply.TrialGateApplyConfiguration {
	out := secondaryschedulerapply.TrialGate().WithMaxNewlyUnschedulable(g.MaxNewlyUnschedulable)
	if g.MaxMovedPercent != nil {
		out.WithMaxMovedPercent(*g.MaxMovedPercent)
	}
	return out
}
