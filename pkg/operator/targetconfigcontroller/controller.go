// Package targetconfigcontroller rolls the SecondaryScheduler out in three
// stages: gather every input from the caches (inputs.go), decide with the pure
// render.Render and rollout.Decide, and apply (apply.go), reporting in one
// place (status.go). Bad input never reaches a running scheduler: it is
// reported in TargetConfigControllerDegraded and the last good objects stay.
// A change held for a trial is written as status.trialRequest; the trial
// controller answers in status.lastTrial, which the next sync reads.
package targetconfigcontroller

import (
	"context"
	"errors"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rbacv1informers "k8s.io/client-go/informers/rbac/v1"
	"k8s.io/client-go/kubernetes"
	appsv1listers "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/utils/clock"
	utiltrace "k8s.io/utils/trace"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/extrarbac"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/gather"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/report"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

const (
	// ConditionType is this controller's condition on the SecondaryScheduler.
	ConditionType = "TargetConfigControllerDegraded"
	// CleanupFinalizer keeps the SecondaryScheduler until the cluster-scoped
	// objects made for it are deleted: they cannot be owned by it (a cluster
	// object owned by a singleton would be garbage collected only by accident).
	CleanupFinalizer = "operator.openshift.io/secondary-scheduler-cleanup"

	// slowSync is how long a sync may take before its steps are logged: a
	// change to the SecondaryScheduler is meant to reach the Deployment in
	// less, so a longer sync says which read, render or write held it.
	slowSync = 100 * time.Millisecond
)

type targetConfigController struct {
	// informers are the ones whose changes sync.
	informers       []factory.Informer
	operatorClient  operatorclient.Interface
	kubeClient      kubernetes.Interface
	sources         gather.Sources
	configMapLister corev1listers.ConfigMapNamespaceLister
	deployments     appsv1listers.DeploymentNamespaceLister
	namespaces      corev1listers.NamespaceLister
	formerBindings  rbacv1listers.ClusterRoleBindingLister
	extraRBAC       extrarbac.Writer
	// deleteStatic deletes the static resources controller's objects on deletion.
	deleteStatic func(ctx context.Context, recorder events.Recorder) error
	// observerWait bounds the first rollout's wait for the config observer.
	observerWait time.Duration
	// slowSync is how long a sync may take before its trace is logged.
	slowSync time.Duration
	clock    clock.PassiveClock
	// render is a render.Renderer's Render; tests count the calls.
	render func(render.Inputs) (*render.Objects, error)
	// own is the status this controller last applied, with the rollout record
	// it decided since (one worker: no locking).
	own *ownStatus
	// recorderOn records events on the SecondaryScheduler itself.
	recorderOn func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder
	// conflicts counts the applies in a row that met a conflict.
	conflicts int
	// lastRolled is the pod template this process last counted as rolled out.
	lastRolled string
}

// NewTargetConfigController returns the controller. kubeClient should read
// from kubeInformers (kubecache.NewCachedKubeClient) so that a converged
// sync sends no request. observerWait is how long a new SecondaryScheduler's
// first rollout waits for the config observer (0 where none runs).
func NewTargetConfigController(operatorClient operatorclient.Interface, kubeClient kubernetes.Interface, kubeInformers v1helpers.KubeInformersForNamespaces,
	grantable rbacv1informers.ClusterRoleInformer, deleteStatic func(ctx context.Context, recorder events.Recorder) error, observerWait time.Duration,
	recorder events.Recorder) factory.Controller {
	c := newController(operatorClient, kubeClient, kubeInformers, grantable, deleteStatic, observerWait)
	return factory.New().WithInformers(c.informers...).
		WithSync(metrics.InstrumentSync("TargetConfigController", c.sync)).
		ToController("TargetConfigController", recorder)
}

func newController(operatorClient operatorclient.Interface, kubeClient kubernetes.Interface, kubeInformers v1helpers.KubeInformersForNamespaces,
	grantable rbacv1informers.ClusterRoleInformer, deleteStatic func(ctx context.Context, recorder events.Recorder) error, observerWait time.Duration) *targetConfigController {
	operand, cluster := kubeInformers.InformersFor(names.OperandNamespace), kubeInformers.InformersFor("")
	return &targetConfigController{
		informers: []factory.Informer{
			operatorClient.Informer(),
			// The user's ConfigMap and ours, the serving cert, and every object written here:
			// a change or deletion of any of them is repaired in the next sync.
			operand.Core().V1().ConfigMaps().Informer(), operand.Core().V1().Secrets().Informer(), operand.Apps().V1().Deployments().Informer(),
			// The scheduler pods: a new pod that fails takes its rollout back.
			operand.Core().V1().Pods().Informer(),
			operand.Rbac().V1().Roles().Informer(), operand.Rbac().V1().RoleBindings().Informer(),
			// Its Pod Security labels: a missing one is put back, and user
			// containers are held to the level it enforces.
			cluster.Core().V1().Namespaces().Informer(),
			cluster.Rbac().V1().ClusterRoles().Informer(), cluster.Rbac().V1().ClusterRoleBindings().Informer(),
			// The ceiling of spec.rbac: widening it lets a refused rule through.
			grantable.Informer(),
		},
		operatorClient: operatorClient,
		kubeClient:     kubeClient,
		sources: gather.Sources{
			ConfigMap:   operand.Core().V1().ConfigMaps().Lister().ConfigMaps(names.OperandNamespace).Get,
			Secret:      operand.Core().V1().Secrets().Lister().Secrets(names.OperandNamespace).Get,
			Namespace:   cluster.Core().V1().Namespaces().Lister().Get,
			ClusterRole: grantable.Lister().Get,
			Deployment:  operand.Apps().V1().Deployments().Lister().Deployments(names.OperandNamespace).Get,
			Pods:        operand.Core().V1().Pods().Lister().Pods(names.OperandNamespace).List,
		},
		configMapLister: operand.Core().V1().ConfigMaps().Lister().ConfigMaps(names.OperandNamespace),
		deployments:     operand.Apps().V1().Deployments().Lister().Deployments(names.OperandNamespace),
		namespaces:      cluster.Core().V1().Namespaces().Lister(),
		formerBindings:  cluster.Rbac().V1().ClusterRoleBindings().Lister(),
		extraRBAC:       extrarbac.NewWriter(kubeClient, kubeInformers),
		deleteStatic:    deleteStatic,
		observerWait:    observerWait,
		slowSync:        slowSync,
		clock:           clock.RealClock{},
		render:          new(render.Renderer).Render,
		recorderOn:      report.OnSecondaryScheduler(kubeClient),
	}
}

// sync gathers, decides and applies.
func (c *targetConfigController) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	trace := utiltrace.New("target-config sync")
	defer trace.LogIfLong(c.slowSync)
	ctx = utiltrace.ContextWithTrace(ctx, trace)
	ss, err := c.operatorClient.Get()
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	recorder := syncCtx.Recorder()
	if ss.DeletionTimestamp != nil {
		metrics.ForgetHeldChange()
		return c.finalize(ctx, recorder, ss.Spec.SchedulerConfig)
	}
	own := c.ownStatus(ss)
	switch ss.Spec.ManagementState {
	case operatorv1.Unmanaged:
		metrics.ForgetConfigValid()
		metrics.ForgetHeldChange()
		return nil
	case operatorv1.Removed:
		metrics.ForgetConfigValid()
		return c.remove(ctx, recorder, ss, own)
	}
	if err := c.operatorClient.EnsureFinalizer(ctx, CleanupFinalizer); err != nil {
		return err
	}
	step(ctx, "finalizer ensured")
	in, err := c.gather(ss, own)
	if err != nil {
		return err
	}
	step(ctx, "gathered")
	objs, err := c.render(in.Render)
	step(ctx, "rendered")
	metrics.SetConfigValid(!render.IsInputError(err))
	if err != nil {
		return c.refused(ctx, recorder, ss, own, err)
	}
	decision := rollout.Decide(rollout.Inputs{Desired: objs, Live: in.Live, Observed: in.Observed, Record: in.Record,
		Awaiting: in.awaiting, Trial: in.Trial, Now: metav1.NewTime(c.clock.Now())})
	step(ctx, "decided", utiltrace.Field{Key: "action", Value: decision.Action})
	// Remembered before anything is applied: the status write comes last and
	// may fail, and the next sync must still see this record.
	own.record = decision.Record.Copy()
	c.own = own.copy()
	if decision.Action == rollout.Wait {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), in.awaitFor)
		return c.setCondition(ctx, ss, own, notDegraded("WaitingForObservedConfig", decision.Message))
	}
	return c.apply(ctx, recorder, ss, own, objs, decision, in)
}

// step marks the end of one step of a sync in its trace, if it has one.
func step(ctx context.Context, msg string, fields ...utiltrace.Field) {
	if trace := utiltrace.FromContext(ctx); trace != nil {
		trace.Step(msg, fields...)
	}
}

// refused reports what Render refused: an input to fix, or spec.rbac beyond
// the ceiling, which also revokes what the ceiling no longer holds.
func (c *targetConfigController) refused(ctx context.Context, recorder events.Recorder, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus, err error) error {
	// A trial requested for an earlier input has nothing left to decide.
	own.trialRequest = nil
	var rbacRefused *render.RBACRefusedError
	switch {
	case render.IsInputError(err):
		// Nothing to retry until the input changes; the informers requeue then.
		return c.setDegraded(ctx, ss, own, reasonInvalidInput, err.Error()+"\nThe running scheduler is left as it is until this is fixed.")
	case errors.As(err, &rbacRefused):
		// Nothing new is applied; the informers requeue when the spec or the role changes.
		if err := c.extraRBAC.Revoke(ctx, recorder, rbacRefused.Ceiling); err != nil {
			return c.applyFailed(ctx, ss, own, err, err.Error())
		}
		return c.setDegraded(ctx, ss, own, reasonRBACRefused, rbacRefused.Error()+
			"\nNothing was applied, and granted rules that the ceiling no longer holds were revoked; the running scheduler is left as it is otherwise.")
	}
	return c.applyFailed(ctx, ss, own, err, err.Error())
}

// remove deletes the operand for managementState Removed. Nothing runs then,
// so nothing is degraded: an earlier complaint must not keep the
// ClusterOperator Degraded and its alert firing. Under a trial strategy the
// last known good configuration's ConfigMap stays: back to Managed, the
// scheduler comes back as it last ran while a change is held, not as the
// untried change.
func (c *targetConfigController) remove(ctx context.Context, recorder events.Recorder, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus) error {
	own.trialRequest = nil
	var keep map[string]bool
	if lkg := own.record.LastKnownGood; lkg != nil && rollout.TrialRequired(ss) {
		keep = map[string]bool{names.ConfigMapNameFor(lkg.ConfigHash): true}
	}
	if err := c.deleteOperand(ctx, recorder, ss.Spec.SchedulerConfig, keep); err != nil {
		return c.applyFailed(ctx, ss, own, err, "removing the secondary scheduler: "+err.Error())
	}
	return c.setCondition(ctx, ss, own, notDegraded("Removed", "managementState is Removed: the secondary scheduler and its configuration are deleted"))
}
