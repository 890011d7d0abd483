package targetconfigcontroller

import (
	"context"
	"slices"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/types"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// FieldManager is this controller's field manager on the SecondaryScheduler's
// status: it owns TargetConfigControllerDegraded, the Deployment's entry of
// generations, schedulerNames, configHash, lastKnownGood and failedRollout,
// and writes them all in one apply.
const FieldManager = "TargetConfigController"

// ownStatus is the status this controller applies for the SecondaryScheduler
// with uid: every field it owns, since an apply removes the owned fields it
// leaves out.
type ownStatus struct {
	uid            types.UID
	condition      operatorv1.OperatorCondition
	deployment     *operatorv1.GenerationStatus
	schedulerNames []string
	configHash     string
	lastKnownGood  *secondaryschedulerv1.Rollout
	failedRollout  *secondaryschedulerv1.FailedRollout
}

func (o *ownStatus) copy() *ownStatus {
	out := *o
	out.deployment = o.deployment.DeepCopy()
	out.schedulerNames = slices.Clone(o.schedulerNames)
	out.lastKnownGood = o.lastKnownGood.DeepCopy()
	out.failedRollout = o.failedRollout.DeepCopy()
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
		lastKnownGood:  ss.Status.LastKnownGood.DeepCopy(),
		failedRollout:  ss.Status.FailedRollout.DeepCopy(),
	}
	if cond := v1helpers.FindOperatorCondition(ss.Status.Conditions, ConditionType); cond != nil {
		own.condition = *cond
	}
	for i := range ss.Status.Generations {
		if g := &ss.Status.Generations[i]; g.Group == "apps" && g.Resource == "deployments" &&
			g.Namespace == render.OperandNamespace && g.Name == render.OperandName {
			own.deployment = g.DeepCopy()
		}
	}
	return own
}

// apply applies own as FieldManager (nothing is sent when the
// SecondaryScheduler has it already) and, once it is written, remembers it.
func (c *targetConfigController) apply(ctx context.Context, own *ownStatus) error {
	if _, err := c.operatorClient.ApplyStatus(ctx, FieldManager, own.applyConfiguration()); err != nil {
		return err
	}
	c.own = own.copy()
	return nil
}

func (o *ownStatus) applyConfiguration() *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration {
	status := secondaryschedulerapply.SecondarySchedulerStatus()
	if c := o.condition; c.Type != "" {
		status.WithConditions(applyoperatorv1.OperatorCondition().
			WithType(c.Type).WithStatus(c.Status).WithReason(c.Reason).WithMessage(c.Message))
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
	if lkg := o.lastKnownGood; lkg != nil {
		status.WithLastKnownGood(secondaryschedulerapply.Rollout().WithConfigHash(lkg.ConfigHash).WithTemplateHash(lkg.TemplateHash))
	}
	if f := o.failedRollout; f != nil {
		status.WithFailedRollout(secondaryschedulerapply.FailedRollout().WithConfigHash(f.ConfigHash).
			WithTemplateHash(f.TemplateHash).WithMessage(f.Message).WithFailedAt(f.FailedAt))
	}
	return status
}
