package targetconfigcontroller

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/cached"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialrunner"
)

// TrialBlockedCondition is True while spec.rollout's trial holds a change
// back: it blocked it or could not run.
const TrialBlockedCondition = "TrialBlocked"

// TrialProgressingCondition is True while the trial of a change runs: the
// change is on its way, so it rolls up into Progressing (on the
// SecondaryScheduler and the ClusterOperator) as the rollout that follows does.
const TrialProgressingCondition = "TrialProgressing"

// Trials runs the trials the gate asks for (trialrunner.Runner).
type Trials interface {
	// Ensure starts a trial of the request's candidate unless one runs.
	Ensure(ss *secondaryschedulerv1.SecondaryScheduler, req trialrunner.Request)
	// Cancel stops a trial no change needs any more.
	Cancel()
}

// steerTrials starts the trial a held change needs, and stops the one that
// no change needs any more (the input was reverted, or the strategy is Direct).
// A verdict stands until an input changes.
func (c *targetConfigController) steerTrials(ss *secondaryschedulerv1.SecondaryScheduler, decision rollout.Decision, objs *render.Objects, in *gathered) {
	if decision.Action != rollout.Gate {
		c.trials.Cancel()
		return
	}
	if t := decision.Trial; t != nil && t.Verdict != secondaryschedulerv1.TrialRunning && !decision.RetryTrial {
		return
	}
	req := c.trialRequest(ss, decision.Candidate, objs, in.Live)
	req.Retry = decision.RetryTrial
	c.trials.Ensure(ss, req)
}

// trialRequest pits the desired configuration and image against what the
// live Deployment runs.
func (c *targetConfigController) trialRequest(ss *secondaryschedulerv1.SecondaryScheduler, candidate *rollout.Change, objs *render.Objects,
	live *appsv1.Deployment) trialrunner.Request {
	current := rollout.Change{ConfigHash: live.Spec.Template.Annotations[names.ConfigHashAnnotation], Image: rollout.SchedulerImage(live)}
	req := trialrunner.Request{
		Current:   armOf(current, live),
		Candidate: armOf(*candidate, objs.Deployment),
		Owner: metav1.OwnerReference{APIVersion: secondaryschedulerv1.SchemeGroupVersion.String(), Kind: "SecondaryScheduler",
			Name: ss.Name, UID: ss.UID, Controller: ptr.To(true)},
	}
	req.Candidate.Config = []byte(objs.ConfigMap.Data[names.ConfigKey])
	// A ConfigMap that is gone leaves Config empty: the trial then fails and says so.
	if cm, err := cached.Get(c.configMapLister.Get, names.ConfigMapNameFor(current.ConfigHash)); err == nil && cm != nil {
		req.Current.Config = []byte(cm.Data[names.ConfigKey])
	}
	if ss.Spec.Rollout.Trial != nil {
		req.Policy = *ss.Spec.Rollout.Trial.DeepCopy()
	}
	return req
}

func armOf(change rollout.Change, d *appsv1.Deployment) trialrunner.Arm {
	arm := trialrunner.Arm{Change: change}
	for _, ctr := range d.Spec.Template.Spec.Containers {
		if ctr.Name == names.OperandName {
			arm.Command, arm.Args = ctr.Command, render.TrialArgs(ctr.Args)
		}
	}
	return arm
}

// trialConditions are TrialBlocked and TrialProgressing for a decision:
// absent under Direct.
func trialConditions(required bool, decision rollout.Decision) (blocked, progressing operatorv1.OperatorCondition) {
	if !required {
		return operatorv1.OperatorCondition{}, operatorv1.OperatorCondition{}
	}
	blocked = operatorv1.OperatorCondition{Type: TrialBlockedCondition, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	progressing = operatorv1.OperatorCondition{Type: TrialProgressingCondition, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	if decision.Action != rollout.Gate {
		return blocked, progressing
	}
	message := boundMessage(decision.Message)
	switch t := decision.Trial; {
	case t == nil || t.Verdict == secondaryschedulerv1.TrialRunning:
		blocked.Reason, blocked.Message = "TrialRunning", message
		progressing.Status, progressing.Reason, progressing.Message = operatorv1.ConditionTrue, "TrialRunning", message
	case t.Verdict == secondaryschedulerv1.TrialFailed:
		blocked.Status, blocked.Reason, blocked.Message = operatorv1.ConditionTrue, "TrialFailed", message
	default: // a verdict the gate, as the spec is now, refuses
		blocked.Status, blocked.Reason, blocked.Message = operatorv1.ConditionTrue, "TrialBlocked", message
	}
	return blocked, progressing
}
