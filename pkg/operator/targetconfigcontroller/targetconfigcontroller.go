// Package targetconfigcontroller renders the SecondaryScheduler into the merged
// scheduler config, the operand Deployment and the extra RBAC of spec.rbac, and
// applies them. Bad input never reaches a running scheduler: it is reported in
// TargetConfigControllerDegraded and the last good objects stay as they are.
package targetconfigcontroller

import (
	"context"
	"errors"
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacv1informers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"
	appsv1listers "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

const (
	// ConditionType is this controller's condition on the SecondaryScheduler.
	ConditionType = "TargetConfigControllerDegraded"
	// CleanupFinalizer keeps the SecondaryScheduler until the cluster-scoped
	// objects made for it are deleted: they cannot be owned by it (a cluster
	// object owned by a singleton would be garbage collected only by accident).
	CleanupFinalizer = "operator.openshift.io/secondary-scheduler-cleanup"
)

// Reasons of TargetConfigControllerDegraded=True that need a person.
const (
	reasonInvalidInput = "InvalidInput"
	reasonRBACRefused  = "RBACRefused"
	reasonApplyFailed  = "ApplyFailed"

	// EventSource is the component of the events recorded on the SecondaryScheduler.
	EventSource = "secondary-scheduler-operator"
)

type targetConfigController struct {
	operatorClient  operatorclient.Interface
	kubeClient      kubernetes.Interface
	configMapLister corev1listers.ConfigMapNamespaceLister
	podLister       corev1listers.PodNamespaceLister
	grantableLister rbacv1listers.ClusterRoleLister
	deployments     appsv1listers.DeploymentNamespaceLister
	secretLister    corev1listers.SecretNamespaceLister
	namespaces      corev1listers.NamespaceLister
	kubeInformers   v1helpers.KubeInformersForNamespaces
	// deleteStatic deletes the fixed objects of the static resources controller
	// when the SecondaryScheduler itself is deleted.
	deleteStatic func(ctx context.Context, recorder events.Recorder) error
	// own is the status this controller last applied (its condition, the
	// Deployment's generation, schedulerNames, configHash), with the rollout
	// record it decided since (one worker: no locking).
	own *ownStatus
	// recorderOn records events on the SecondaryScheduler itself.
	recorderOn func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder
	// conflicts counts the applies in a row that met a conflict.
	conflicts int
}

// NewTargetConfigController returns the controller. kubeClient should read
// from kubeInformers (operatorclient.NewCachedKubeClient) so that a converged
// sync sends no request.
func NewTargetConfigController(
	operatorClient operatorclient.Interface,
	kubeClient kubernetes.Interface,
	kubeInformers v1helpers.KubeInformersForNamespaces,
	grantable rbacv1informers.ClusterRoleInformer,
	deleteStatic func(ctx context.Context, recorder events.Recorder) error,
	recorder events.Recorder,
) factory.Controller {
	operand := kubeInformers.InformersFor(render.OperandNamespace)
	cluster := kubeInformers.InformersFor("")
	c := &targetConfigController{
		operatorClient:  operatorClient,
		kubeClient:      kubeClient,
		configMapLister: operand.Core().V1().ConfigMaps().Lister().ConfigMaps(render.OperandNamespace),
		podLister:       operand.Core().V1().Pods().Lister().Pods(render.OperandNamespace),
		grantableLister: grantable.Lister(),
		deployments:     operand.Apps().V1().Deployments().Lister().Deployments(render.OperandNamespace),
		secretLister:    operand.Core().V1().Secrets().Lister().Secrets(render.OperandNamespace),
		namespaces:      cluster.Core().V1().Namespaces().Lister(),
		kubeInformers:   kubeInformers,
		deleteStatic:    deleteStatic,
		recorderOn:      onSecondaryScheduler(kubeClient),
	}
	return factory.New().
		WithInformers(
			operatorClient.Informer(),
			// The user's ConfigMap and ours, the serving cert, and every object written here:
			// a change or deletion of any of them is repaired in the next sync.
			operand.Core().V1().ConfigMaps().Informer(),
			operand.Core().V1().Secrets().Informer(),
			operand.Apps().V1().Deployments().Informer(),
			// The scheduler pods: a new pod that fails takes its rollout back.
			operand.Core().V1().Pods().Informer(),
			operand.Rbac().V1().Roles().Informer(),
			operand.Rbac().V1().RoleBindings().Informer(),
			// Its Pod Security labels: a missing one is put back, and user
			// containers are held to the level it enforces.
			cluster.Core().V1().Namespaces().Informer(),
			cluster.Rbac().V1().ClusterRoles().Informer(),
			cluster.Rbac().V1().ClusterRoleBindings().Informer(),
			// The ceiling of spec.rbac: widening it lets a refused rule through.
			grantable.Informer(),
		).
		WithSync(metrics.InstrumentSync("TargetConfigController", c.sync)).
		ToController("TargetConfigController", recorder)
}

func (c *targetConfigController) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	ss, err := c.operatorClient.Get()
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	recorder := syncCtx.Recorder()
	if ss.DeletionTimestamp != nil {
		return c.finalize(ctx, recorder, ss.Spec.SchedulerConfig)
	}
	own := c.ownStatus(ss)
	switch ss.Spec.ManagementState {
	case operatorv1.Unmanaged:
		metrics.ForgetConfigValid()
		return nil
	case operatorv1.Removed:
		metrics.ForgetConfigValid()
		if err := c.deleteOperand(ctx, recorder, ss.Spec.SchedulerConfig); err != nil {
			return c.applyFailed(ctx, ss, own, err, "removing the secondary scheduler: "+err.Error())
		}
		// Nothing runs, so nothing is degraded: an earlier complaint must not
		// keep the ClusterOperator Degraded and its alert firing.
		return c.setCondition(ctx, ss, own, operatorv1.OperatorCondition{
			Type: ConditionType, Status: operatorv1.ConditionFalse, Reason: "Removed",
			Message: "managementState is Removed: the secondary scheduler and its configuration are deleted",
		})
	}
	if err := c.operatorClient.EnsureFinalizer(ctx, CleanupFinalizer); err != nil {
		return err
	}

	objs, err := c.render(ss, "")
	metrics.SetConfigValid(!render.IsInputError(err))
	if err != nil {
		if render.IsInputError(err) {
			// Nothing to retry until the input changes; the informers requeue then.
			return c.setDegraded(ctx, ss, own, reasonInvalidInput, err.Error()+"\nThe running scheduler is left as it is until this is fixed.")
		}
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}

	refused, err := c.checkGrantable(ss)
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		// Nothing new is applied; the informers requeue when the spec or the role changes.
		if err := c.revokeUncovered(ctx, recorder); err != nil {
			return c.applyFailed(ctx, ss, own, err, err.Error())
		}
		return c.setDegraded(ctx, ss, own, reasonRBACRefused, strings.Join(refused, "\n")+
			"\nNothing was applied, and granted rules that the ceiling no longer holds were revoked; the running scheduler is left as it is otherwise.")
	}

	return c.rollOut(ctx, recorder, ss, own, objs)
}

// rollOut applies a rendered, permitted configuration: the rollout record
// first, then a rollback if the last rollout failed, then RBAC, ConfigMap and
// Deployment, then status.
func (c *targetConfigController) rollOut(ctx context.Context, recorder events.Recorder, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus, objs *render.Objects) error {
	history, err := c.recordRollout(own, objs.TemplateHash)
	if err != nil {
		return err
	}
	// Remembered before anything is applied: the status write comes last and
	// may fail, and the next sync must still see this record.
	own.lastKnownGood, own.failedRollout = history.status.LastKnownGood.DeepCopy(), history.status.FailedRollout.DeepCopy()
	c.own = own.copy()
	decision := decideRollout(objs, &history.status, c.configMapExists)
	if decision.rollbackTo != "" {
		if objs, err = c.render(ss, decision.rollbackTo); err != nil {
			return c.applyFailed(ctx, ss, own, err, err.Error())
		}
		if pinned := history.observed; pinned.failure != "" && pinned.current.TemplateHash != objs.TemplateHash {
			decision.degraded += "\nThe rolled-back pods fail too: " + pinned.failure
		}
	}

	// RBAC first: a scheduler or sidecar that needs a new rule must not roll before it has it.
	if err := c.applyExtraRBAC(ctx, recorder, objs); err != nil {
		if apierrors.IsForbidden(err) {
			return errors.Join(err, c.setDegraded(ctx, ss, own, reasonRBACRefused, rbacRefusedMessage(err)))
		}
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}
	if err := c.applyConfigMap(ctx, recorder, ss, objs.ConfigMap); err != nil {
		return c.applyFailed(ctx, ss, own, err, fmt.Sprintf("applying ConfigMap %s/%s: %v", objs.ConfigMap.Namespace, objs.ConfigMap.Name, err))
	}
	if err := c.ensurePodSecurityLabels(ctx, recorder); err != nil {
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}
	deployment, err := c.applyDeployment(ctx, recorder, objs, own)
	if err != nil {
		if msg, ok := refusedSpecFields(ss, objs, err); ok {
			// Nothing to retry until the spec changes; the informers requeue then.
			return c.setDegraded(ctx, ss, own, reasonInvalidInput, msg+"\nThe running scheduler is left as it is until this is fixed.")
		}
		return c.applyFailed(ctx, ss, own, err, fmt.Sprintf("applying Deployment %s/%s: %v", objs.Deployment.Namespace, objs.Deployment.Name, err))
	}
	if err := c.pruneConfigMaps(ctx, recorder, ss, objs, deployment, &history.status); err != nil {
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}
	// After the Deployment: by now the static resources controller has bound
	// the scheduler's own ClusterRole, so it never runs without either.
	if err := c.deleteFormerBindings(ctx, recorder); err != nil {
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}
	c.conflicts = 0
	return c.updateStatus(ctx, ss, own, objs, deployment, decision.degraded)
}

// refusedSpecFields turns the API server's refusal of the Deployment into the
// SecondaryScheduler fields the user wrote (sidecars, init containers,
// volumes): the API server's own validation of a container, reported where the
// user can find it. ok is false when a refused field is not one of those.
func refusedSpecFields(ss *secondaryschedulerv1.SecondaryScheduler, objs *render.Objects, err error) (string, bool) {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return "", false
	}
	var lines []string
	for _, cause := range status.Status().Details.Causes {
		field, ok := render.SpecField(ss, objs, cause.Field)
		if !ok {
			return "", false
		}
		lines = append(lines, fmt.Sprintf("SecondaryScheduler %s: %s: %s", ss.Name, field, cause.Message))
	}
	return strings.Join(lines, "\n"), true
}

// render gathers the inputs from the caches and renders; rollbackTo pins the
// Deployment to an earlier configuration.
func (c *targetConfigController) render(ss *secondaryschedulerv1.SecondaryScheduler, rollbackTo string) (*render.Objects, error) {
	in := render.Inputs{SecondaryScheduler: ss, RollbackConfigHash: rollbackTo}
	if name := ss.Spec.SchedulerConfig; name != "" {
		cm, err := c.configMapLister.Get(name)
		switch {
		case apierrors.IsNotFound(err):
			// render reports the missing ConfigMap by name
		case err != nil:
			return nil, err
		default:
			in.UserConfig = cm
		}
	}
	_, err := c.secretLister.Get(render.ServingCertSecretName)
	switch {
	case err == nil:
		in.ServingCertAvailable = true
	case !apierrors.IsNotFound(err):
		return nil, err
	}
	ns, err := c.namespaces.Get(render.OperandNamespace)
	switch {
	case err == nil:
		in.PodSecurityEnforce = ns.Labels[render.PodSecurityEnforceLabel]
	case !apierrors.IsNotFound(err):
		return nil, err
	}
	return render.Render(in)
}

// conflictsBeforeDegraded is how many conflicts in a row an apply may meet
// before they are reported: one is the cache behind a write (the operator's
// own, or someone's), and the update event that caused it brings the sync that
// retries with the new object; a run of them is someone fighting over it.
const conflictsBeforeDegraded = 5

// applyFailed reports an apply that failed as Degraded, but retries a
// conflict quietly (see conflictsBeforeDegraded), so that Degraded does not
// flap on a stale cache.
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

func (c *targetConfigController) setDegraded(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus, reason, message string) error {
	return c.setCondition(ctx, ss, own, operatorv1.OperatorCondition{
		Type:    ConditionType,
		Status:  operatorv1.ConditionTrue,
		Reason:  reason,
		Message: boundMessage(message),
	})
}

// setCondition applies this controller's status with condition (and what
// else own holds) and, when the condition changes, tells the
// SecondaryScheduler's users: a Warning for a new problem they must fix, an
// event when it is resolved.
func (c *targetConfigController) setCondition(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus,
	condition operatorv1.OperatorCondition) error {
	previous := own.condition
	own.condition = condition
	if err := c.apply(ctx, own); err != nil {
		return err
	}
	recorder := c.recorderOn(ss)
	switch {
	case condition.Status == operatorv1.ConditionTrue &&
		(previous.Status != operatorv1.ConditionTrue || previous.Reason != condition.Reason || previous.Message != condition.Message):
		recorder.Warning(condition.Reason, condition.Message)
	case condition.Status != operatorv1.ConditionTrue && previous.Status == operatorv1.ConditionTrue:
		recorder.Eventf("Resolved", "%s no longer applies: %s", previous.Reason, resolution(condition))
	}
	return nil
}

// resolution says, for an event, why a condition is no longer a problem.
func resolution(condition operatorv1.OperatorCondition) string {
	if condition.Message != "" {
		return condition.Message
	}
	return "the configuration is valid and rolled out"
}

// onSecondaryScheduler records events on the SecondaryScheduler, where
// `kubectl describe secondaryscheduler cluster` shows them. Events of a
// cluster-scoped object live in the default namespace. Not NewKubeRecorder:
// each of its recorders starts an event broadcaster, goroutines and buffers
// that nothing stops; this one holds nothing.
func onSecondaryScheduler(kubeClient kubernetes.Interface) func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder {
	return func(ss *secondaryschedulerv1.SecondaryScheduler) events.Recorder {
		return events.NewRecorder(kubeClient.CoreV1().Events(metav1.NamespaceDefault), EventSource, &corev1.ObjectReference{
			APIVersion: secondaryschedulerv1.SchemeGroupVersion.String(), Kind: "SecondaryScheduler",
			Name: ss.Name, UID: ss.UID, ResourceVersion: ss.ResourceVersion,
		}, clock.RealClock{})
	}
}

// maxConditionMessage keeps a condition readable in `oc describe` and the
// SecondaryScheduler far from the API server's object size limit, however
// many problems an input has.
const maxConditionMessage = 8192

func boundMessage(msg string) string {
	if len(msg) <= maxConditionMessage {
		return msg
	}
	return truncate(msg, maxConditionMessage-64) + fmt.Sprintf(" (%d more bytes)", len(msg)-(maxConditionMessage-64))
}
