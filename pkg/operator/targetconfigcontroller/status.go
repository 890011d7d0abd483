package targetconfigcontroller

import (
	"context"
	"errors"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/message"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/report"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// FieldManager is this controller's field manager on the SecondaryScheduler's
// status: it owns TargetConfigControllerDegraded, the Deployment's entry of
// generations, schedulerNames, configHash, lastKnownGood and failedRollout,
// and writes them all in one apply.
const FieldManager = "TargetConfigController"

var deployments = schema.GroupResource{Group: "apps", Resource: "deployments"}

// Reasons of TargetConfigControllerDegraded=True that need a person.
const (
	reasonInvalidInput  = "InvalidInput"
	reasonRBACRefused   = "RBACRefused"
	reasonApplyFailed   = "ApplyFailed"
	reasonRolloutFailed = "RolloutFailed"
)

// ownStatus is the status this controller applies for the SecondaryScheduler
// with uid: every field it owns, since an apply removes the owned fields it
// leaves out.
type ownStatus struct {
	uid              types.UID
	condition        operatorv1.OperatorCondition
	trialBlocked     operatorv1.OperatorCondition
	trialProgressing operatorv1.OperatorCondition
	deployment       *operatorv1.GenerationStatus
	schedulerNames   []string
	configHash       string
	record           rollout.Record
	// trialRequest is the change held for the trial controller, nil when none is.
	trialRequest *secondaryschedulerv1.TrialRequest
}

func (o *ownStatus) copy() *ownStatus {
	out := *o
	out.deployment = o.deployment.DeepCopy()
	out.schedulerNames = slices.Clone(o.schedulerNames)
	out.record = o.record.Copy()
	out.trialRequest = o.trialRequest.DeepCopy()
	return &out
}

// ownStatus is the status this controller last applied to ss, to change and
// apply again. After a restart (or for a new SecondaryScheduler) it is what
// the cached status holds, which is what this controller wrote: the cache
// may lag behind this controller's own writes, never the other way round.
func (c *targetConfigController) ownStatus(ss *secondaryschedulerv1.SecondaryScheduler) *ownStatus {
	if c.own != nil && c.own.uid == ss.UID {
		return c.own.copy()
	}
	own := &ownStatus{
		uid:            ss.UID,
		schedulerNames: slices.Clone(ss.Status.SchedulerNames),
		configHash:     ss.Status.ConfigHash,
		record:         rollout.Record{LastKnownGood: ss.Status.LastKnownGood, FailedRollout: ss.Status.FailedRollout}.Copy(),
		trialRequest:   ss.Status.TrialRequest.DeepCopy(),
	}
	if cond := v1helpers.FindOperatorCondition(ss.Status.Conditions, ConditionType); cond != nil {
		own.condition = *cond
	}
	if cond := v1helpers.FindOperatorCondition(ss.Status.Conditions, TrialBlockedCondition); cond != nil {
		own.trialBlocked = *cond
	}
	if cond := v1helpers.FindOperatorCondition(ss.Status.Conditions, TrialProgressingCondition); cond != nil {
		own.trialProgressing = *cond
	}
	own.deployment = resourcemerge.GenerationFor(ss.Status.Generations, deployments, names.OperandNamespace, names.OperandName).DeepCopy()
	return own
}

// applyStatus applies own as FieldManager (nothing is sent when the
// SecondaryScheduler has it already) and, once it is written, remembers it.
func (c *targetConfigController) applyStatus(ctx context.Context, own *ownStatus) error {
	if _, err := c.operatorClient.ApplyStatus(ctx, FieldManager, own.applyConfiguration()); err != nil {
		return err
	}
	step(ctx, "status applied")
	c.own = own.copy()
	return nil
}

func (o *ownStatus) applyConfiguration() *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration {
	status := secondaryschedulerapply.SecondarySchedulerStatus()
	if o.condition.Type != "" {
		status.WithConditions(report.Condition(o.condition))
	}
	for _, c := range []operatorv1.OperatorCondition{o.trialBlocked, o.trialProgressing} {
		if c.Type != "" {
			status.WithConditions(report.Condition(c))
		}
	}
	if g := o.deployment; g != nil {
		status.WithGenerations(applyoperatorv1.GenerationStatus().WithGroup(g.Group).WithResource(g.Resource).
			WithNamespace(g.Namespace).WithName(g.Name).WithLastGeneration(g.LastGeneration).WithHash(g.Hash))
	}
	if len(o.schedulerNames) > 0 {
		status.WithSchedulerNames(o.schedulerNames...)
	}
	if o.configHash != "" {
		status.WithConfigHash(o.configHash)
	}
	o.record.ApplyTo(status)
	rollout.ApplyTrialRequest(status, o.trialRequest)
	return status
}

// rolledOut records what was rolled out: the condition, the Deployment's
// generation, schedulerNames and configHash, with the rollout record, in one
// apply, sent only when one of them changed.
func (c *targetConfigController) rolledOut(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus, objs *render.Objects,
	d *appsv1.Deployment, decision rollout.Decision) error {
	condition := notDegraded("AsExpected", "")
	failed := decision.Action == rollout.RollBack || decision.Action == rollout.Hold
	switch {
	case failed:
		condition = operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionTrue, Reason: reasonRolloutFailed, Message: boundMessage(decision.Message)}
	case decision.Action == rollout.Gate:
		// Doing what spec.rollout asks: TrialBlocked says what holds the change.
		condition = notDegraded("HeldForTrial", boundMessage(decision.Message))
	case decision.Message != "":
		// A rollout with a caveat: an allowed tag that could not be pinned to the digest tried.
		condition = notDegraded("AsExpected", boundMessage(decision.Message))
	}
	own.trialRequest = decision.TrialRequest.DeepCopy()
	previousTrial := own.trialBlocked
	own.trialBlocked, own.trialProgressing = trialConditions(rollout.TrialRequired(ss), decision)
	report.Transition(c.recorderOn(ss), previousTrial, own.trialBlocked)
	if own.configHash != "" && own.configHash != objs.ConfigHash && !failed && decision.Action != rollout.Gate {
		c.recorderOn(ss).Eventf("ConfigurationChanged", "rolling out the merged configuration in ConfigMap %s (schedulerNames %s)",
			names.ConfigMapNameFor(objs.ConfigHash), strings.Join(objs.SchedulerNames, ", "))
	}
	if d != nil { // none while a held change leaves a gone Deployment gone
		var generations []operatorv1.GenerationStatus
		resourcemerge.SetDeploymentGeneration(&generations, d)
		own.deployment = resourcemerge.GenerationFor(generations, deployments, d.Namespace, d.Name)
	}
	if decision.Action != rollout.Gate { // the running configuration's names serve until the change rolls out
		own.schedulerNames = slices.Clone(objs.SchedulerNames)
	}
	own.configHash = objs.ConfigHash
	return c.setCondition(ctx, ss, own, condition)
}

// conflictsBeforeDegraded is how many conflicts in a row an apply may meet
// before they are reported: one is the cache behind a write, and its update
// event brings the retry; a run of them is someone fighting over the object.
const conflictsBeforeDegraded = 5

// applyFailed reports an apply that failed as Degraded, but retries a
// conflict quietly, so that Degraded does not flap on a stale cache.
func (c *targetConfigController) applyFailed(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus, err error, message string) error {
	if apierrors.IsConflict(err) {
		c.conflicts++
		if c.conflicts < conflictsBeforeDegraded {
			klog.V(2).InfoS("Apply conflict; retrying", "attempt", c.conflicts, "err", err)
			return err
		}
	}
	return errors.Join(err, c.setDegraded(ctx, ss, own, reasonApplyFailed, message))
}

func notDegraded(reason, message string) operatorv1.OperatorCondition {
	return operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionFalse, Reason: reason, Message: message}
}

func (c *targetConfigController) setDegraded(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus, reason, message string) error {
	return c.setCondition(ctx, ss, own, operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionTrue, Reason: reason, Message: boundMessage(message)})
}

// setCondition applies this controller's status with condition (and what
// else own holds) and, when the condition changes, tells the
// SecondaryScheduler's users: a Warning for a new problem they must fix, an
// event when it is resolved.
func (c *targetConfigController) setCondition(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus,
	condition operatorv1.OperatorCondition) error {
	previous := own.condition
	own.condition = condition
	if !rollout.TrialRequired(ss) {
		own.trialBlocked, own.trialProgressing = operatorv1.OperatorCondition{}, operatorv1.OperatorCondition{}
		own.trialRequest = nil
	}
	if err := c.applyStatus(ctx, own); err != nil {
		return err
	}
	metrics.SetHeldChange(heldChange(own.trialRequest, ss.Status.LastTrial))
	report.Transition(c.recorderOn(ss), previous, condition)
	return nil
}

// maxConditionMessage keeps a condition readable in `oc describe` and the
// SecondaryScheduler far from the API server's object size limit, however
// many problems an input has.
const maxConditionMessage = 8192

func boundMessage(msg string) string { return message.Bounded(msg, maxConditionMessage) }
