// Package operandstatuscontroller reports the secondary scheduler's health on the
// SecondaryScheduler: OperandAvailable, OperandProgressing and OperandDegraded
// from the Deployment and its pods, readyReplicas, observedGeneration, and the
// Available/Progressing/Degraded union of every controller's conditions, which
// is what `oc get secondaryscheduler` shows on OpenShift and Kubernetes alike.
package operandstatuscontroller

import (
	"context"
	"fmt"
	"slices"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsv1listers "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/report"
)

// Condition types this controller owns.
const (
	OperandAvailable   = "OperandAvailable"
	OperandProgressing = "OperandProgressing"
	OperandDegraded    = "OperandDegraded"
)

type operandStatusController struct {
	operatorClient   operatorclient.Interface
	deploymentLister appsv1listers.DeploymentNamespaceLister
	replicaSetLister appsv1listers.ReplicaSetNamespaceLister
	podLister        corev1listers.PodNamespaceLister
	versions         status.VersionGetter
}

// FieldManager is this controller's field manager on the SecondaryScheduler's
// status: it owns readyReplicas, observedGeneration, the Operand* and
// OperandPodsOnStaleConfig conditions and the Available/Progressing/Degraded
// roll-ups.
const FieldManager = "OperandStatusController"

// OperandVersionName is the operand's entry in the ClusterOperator's versions:
// the scheduler image, reported once every pod runs it.
const OperandVersionName = "secondary-scheduler"

// NewOperandStatusController returns the controller. It reads only the operand
// namespace's caches.
// versions receives the operand's version for the ClusterOperator.
func NewOperandStatusController(operatorClient operatorclient.Interface,
	kubeInformers v1helpers.KubeInformersForNamespaces, versions status.VersionGetter, recorder events.Recorder) factory.Controller {
	operand := kubeInformers.InformersFor(names.OperandNamespace)
	c := &operandStatusController{
		operatorClient:   operatorClient,
		deploymentLister: operand.Apps().V1().Deployments().Lister().Deployments(names.OperandNamespace),
		replicaSetLister: operand.Apps().V1().ReplicaSets().Lister().ReplicaSets(names.OperandNamespace),
		podLister:        operand.Core().V1().Pods().Lister().Pods(names.OperandNamespace),
		versions:         versions,
	}
	return factory.New().
		WithInformers(
			operatorClient.Informer(),
			operand.Apps().V1().Deployments().Informer(),
			operand.Apps().V1().ReplicaSets().Informer(),
			operand.Core().V1().Pods().Informer(),
		).
		WithSync(metrics.InstrumentSync("OperandStatusController", c.sync)).
		ToController("OperandStatusController", recorder)
}

func (c *operandStatusController) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	ss, err := c.operatorClient.Get()
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	state := ss.Spec.ManagementState
	operand, readyReplicas, err := c.operandConditions(state)
	if err != nil {
		return err
	}
	metrics.SetOperandReadyReplicas(readyReplicas)
	stale, err := c.staleConfigCondition(ss, operand)
	if err != nil {
		return err
	}
	operand = append(operand, stale)

	// The roll-ups of every controller's conditions as the cache has them,
	// with this sync's own. A change of another controller's condition
	// requeues this controller through the informer.
	conditions := slices.Clone(ss.Status.Conditions)
	for _, cond := range operand {
		v1helpers.SetOperatorCondition(&conditions, cond)
	}
	unions := union(state, conditions)
	desired := secondaryschedulerapply.SecondarySchedulerStatus().
		WithReadyReplicas(readyReplicas).
		WithObservedGeneration(ss.Generation)
	for _, cond := range append(operand, unions...) {
		desired.WithConditions(report.Condition(cond))
	}
	applied, err := c.operatorClient.ApplyStatus(ctx, FieldManager, desired)
	if err != nil || !applied {
		return err
	}
	for _, is := range unions {
		was := v1helpers.FindOperatorCondition(ss.Status.Conditions, is.Type)
		if was == nil || was.Status != is.Status {
			syncCtx.Recorder().Eventf("OperatorStatusChanged", "%s changed to %s: %s: %s", is.Type, is.Status, is.Reason, is.Message)
		}
	}
	return nil
}

// staleConfigCondition reports the scheduler pods running another configuration
// than the merged one (status.configHash) once no rollout is in progress.
func (c *operandStatusController) staleConfigCondition(ss *secondaryschedulerv1.SecondaryScheduler, operand []operatorv1.OperatorCondition) (operatorv1.OperatorCondition, error) {
	var d *appsv1.Deployment
	var pods []*corev1.Pod
	desired := ""
	if state := ss.Spec.ManagementState; state == operatorv1.Managed || state == operatorv1.Force {
		desired = ss.Status.ConfigHash
		var err error
		if d, err = c.deploymentLister.Get(names.OperandName); apierrors.IsNotFound(err) {
			d = nil
		} else if err != nil {
			return operatorv1.OperatorCondition{}, err
		} else if pods, err = c.podsOf(d); err != nil {
			return operatorv1.OperatorCondition{}, err
		}
	}
	progressing := v1helpers.FindOperatorCondition(operand, OperandProgressing)
	cond, n := staleConfig(d, pods, desired, progressing != nil && progressing.Status != operatorv1.ConditionFalse)
	metrics.SetOperandPodsOnStaleConfig(n)
	return cond, nil
}

// operandConditions judges the Deployment and its pods.
func (c *operandStatusController) operandConditions(state operatorv1.ManagementState) ([]operatorv1.OperatorCondition, int32, error) {
	if conditions := unmanagedConditions(state); conditions != nil {
		return conditions, 0, nil
	}
	d, err := c.deploymentLister.Get(names.OperandName)
	if apierrors.IsNotFound(err) {
		msg := fmt.Sprintf("Deployment %s/%s does not exist yet", names.OperandNamespace, names.OperandName)
		return []operatorv1.OperatorCondition{
			condition(OperandAvailable, operatorv1.ConditionFalse, "DeploymentMissing", msg),
			condition(OperandProgressing, operatorv1.ConditionTrue, "DeploymentMissing", msg),
			condition(OperandDegraded, operatorv1.ConditionFalse, "AsExpected", ""),
		}, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	pods, err := c.podsOf(d)
	if err != nil {
		return nil, 0, err
	}
	replicaSets, err := c.replicaSetLister.List(labels.Everything())
	if err != nil {
		return nil, 0, err
	}
	available, progressing, degraded := deploymentConditions(d, pods, replicaSets)
	if progressing.Status == operatorv1.ConditionFalse && available.Status == operatorv1.ConditionTrue {
		c.setOperandVersion(d)
	}
	return []operatorv1.OperatorCondition{available, progressing, degraded}, d.Status.ReadyReplicas, nil
}

// condition is a condition of type t.
func condition(t string, s operatorv1.ConditionStatus, reason, msg string) operatorv1.OperatorCondition {
	return operatorv1.OperatorCondition{Type: t, Status: s, Reason: reason, Message: msg}
}

// unmanagedConditions are the conditions without a managed operand, where the
// three share a reason and a message; nil when the operand is managed.
func unmanagedConditions(state operatorv1.ManagementState) []operatorv1.OperatorCondition {
	fixed := func(available, progressing, degraded operatorv1.ConditionStatus, reason, msg string) []operatorv1.OperatorCondition {
		return []operatorv1.OperatorCondition{
			condition(OperandAvailable, available, reason, msg),
			condition(OperandProgressing, progressing, reason, msg),
			condition(OperandDegraded, degraded, reason, msg),
		}
	}
	switch state {
	case operatorv1.Unmanaged:
		u := operatorv1.ConditionUnknown
		return fixed(u, u, u, "Unmanaged", "managementState is Unmanaged: the operator does not look after the secondary scheduler")
	case operatorv1.Removed:
		return fixed(operatorv1.ConditionTrue, operatorv1.ConditionFalse, operatorv1.ConditionFalse, "Removed",
			"managementState is Removed: no secondary scheduler runs")
	}
	return nil
}

// deploymentConditions judge an existing Deployment, its pods and its
// ReplicaSets.
func deploymentConditions(d *appsv1.Deployment, pods []*corev1.Pod, replicaSets []*appsv1.ReplicaSet) (available, progressing, degraded operatorv1.OperatorCondition) {
	problems := podProblems(pods)
	available = condition(OperandAvailable, operatorv1.ConditionTrue, "AsExpected", availableMessage(d))
	if d.Status.AvailableReplicas == 0 {
		available = condition(OperandAvailable, operatorv1.ConditionFalse, "NoAvailablePods",
			fmt.Sprintf("Deployment %s/%s has no available pod", d.Namespace, d.Name))
		if len(problems) > 0 {
			available.Reason, available.Message = problems[0].reason, available.Message+": "+joinMessages(problems)
		}
	}
	progressing = condition(OperandProgressing, operatorv1.ConditionFalse, "AsExpected", "")
	if msg := rolloutProgress(d, replicaSets); msg != "" {
		progressing = condition(OperandProgressing, operatorv1.ConditionTrue, "RollingOut", msg)
	}
	degraded = condition(OperandDegraded, operatorv1.ConditionFalse, "AsExpected", "")
	if len(problems) > 0 {
		degraded = condition(OperandDegraded, operatorv1.ConditionTrue, problems[0].reason, joinMessages(problems))
	}
	return available, progressing, degraded
}

// setOperandVersion reports the scheduler image of a Deployment that has
// rolled out as the operand's version.
func (c *operandStatusController) setOperandVersion(d *appsv1.Deployment) {
	for _, container := range d.Spec.Template.Spec.Containers {
		if container.Name == names.OperandName {
			c.versions.SetVersion(OperandVersionName, container.Image)
		}
	}
}

// availableMessage counts available pods against the desired ones; during a
// rollout's surge there is one more than desired.
func availableMessage(d *appsv1.Deployment) string {
	available, want := d.Status.AvailableReplicas, desired(d)
	if available > want {
		return fmt.Sprintf("%d scheduler pods available, %d desired: a rollout is replacing %d", available, want, available-want)
	}
	return fmt.Sprintf("%d of %d scheduler pods available", available, want)
}

func (c *operandStatusController) podsOf(d *appsv1.Deployment) ([]*corev1.Pod, error) {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	return c.podLister.List(selector)
}

func desired(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// union rolls every controller's conditions up into Available, Progressing and
// Degraded, as library-go's ClusterOperator status controller does (there with
// degraded inertia; here without, so the SecondaryScheduler shows the moment).
func union(state operatorv1.ManagementState, conditions []operatorv1.OperatorCondition) []operatorv1.OperatorCondition {
	var inputs []operatorv1.OperatorCondition
	for _, c := range conditions {
		if _, isUnion := operatorclient.UnionConditionTypes[c.Type]; !isUnion {
			inputs = append(inputs, c)
		}
	}
	var out []operatorv1.OperatorCondition
	// In a fixed order: the roll-up events follow it.
	for _, t := range []string{operatorv1.OperatorStatusTypeAvailable, operatorv1.OperatorStatusTypeProgressing, operatorv1.OperatorStatusTypeDegraded} {
		def := operatorclient.UnionConditionTypes[t]
		if state == operatorv1.Unmanaged {
			out = append(out, operatorv1.OperatorCondition{Type: t, Status: operatorv1.ConditionUnknown, Reason: "Unmanaged",
				Message: "managementState is Unmanaged"})
			continue
		}
		out = append(out, status.UnionCondition(t, def, nil, inputs...))
	}
	return out
}
