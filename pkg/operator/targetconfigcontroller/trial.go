package targetconfigcontroller

import (
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// TrialBlockedCondition is True while spec.rollout's trial holds a change
// back: it blocked it or could not run.
const TrialBlockedCondition = "TrialBlocked"

// TrialProgressingCondition is True while the trial of a change runs: the
// change is on its way, so it rolls up into Progressing (on the
// SecondaryScheduler and the ClusterOperator) as the rollout that follows does.
const TrialProgressingCondition = "TrialProgressing"

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
	case t.Verdict == secondaryschedulerv1.TrialInconclusive:
		blocked.Status, blocked.Reason, blocked.Message = operatorv1.ConditionTrue, "TrialInconclusive", message
	default: // a verdict the gate, as the spec is now, refuses
		blocked.Status, blocked.Reason, blocked.Message = operatorv1.ConditionTrue, "TrialBlocked", message
	}
	return blocked, progressing
}

// heldChange is the key of the change held for a trial ("" when none is)
// and the start of its latest trial (zero when none of it started).
func heldChange(req *secondaryschedulerv1.TrialRequest, last *secondaryschedulerv1.TrialResult) (string, time.Time) {
	if req == nil {
		return "", time.Time{}
	}
	if last == nil || last.Key != req.Key {
		return req.Key, time.Time{}
	}
	return req.Key, last.StartedAt.Time
}
