// Package admissionguardcontroller watches the guard that keeps Simulators'
// pod fields from users who may create Simulators but not pods: the
// ValidatingAdmissionPolicy and binding of manifests/ (compiled in, see
// Shipped). It tells whether that guard is intact (Verdicts, which the
// Simulator controller reads to hold back the Simulators that need it) and
// reports the condition SimulatorAdmissionGuardDegraded on the
// SecondaryScheduler, which library-go rolls up into the ClusterOperator's
// Degraded.
//
// Intact means: the API server serves admissionregistration.k8s.io/v1
// policies and bindings; both objects exist and decide as shipped (Check);
// and the API server refuses the probe (JudgeProbe), which it does not when
// its ValidatingAdmissionPolicy admission plugin is off.
//
// Wiring (starter.go): New with a kube client, a Simulator client built from
// ProbeConfig, and the Verdicts given to the Simulator controller. The
// policy and binding informers select their one object by name, and start
// only once the API server serves the API (an informer of an API that is not
// served would never sync). RBAC: get/list/watch on both, by name; impersonate
// on the probe's ServiceAccount name.
package admissionguardcontroller

import (
	"context"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	admissionv1informers "k8s.io/client-go/informers/admissionregistration/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/kubecache"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/report"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trim"
)

const (
	// ControllerName names the controller, its queue and its field manager on
	// the SecondaryScheduler's status.
	ControllerName = "SimulatorAdmissionGuardController"
	// ConditionType is True while the guard is not intact. It ends in
	// Degraded, so library-go's status union rolls it up.
	ConditionType = "SimulatorAdmissionGuardDegraded"

	// firstRetry and maxRetry bound how soon a check that needs a request
	// (discovery, the probe) is made again while it fails.
	firstRetry = 5 * time.Second
	maxRetry   = 5 * time.Minute
	// readGrace is how long the informers may take to list before the guard
	// counts as unreadable.
	readGrace = 30 * time.Second
	// informerResync replays the cached objects into the queue: no request.
	informerResync = 10 * time.Minute
	// admissionGroupVersion serves the policy and binding.
	admissionGroupVersion = "admissionregistration.k8s.io/v1"
)

// controller state is touched by its one worker only.
type controller struct {
	operatorClient operatorclient.Interface
	kube           kubernetes.Interface
	probeClient    versioned.Interface
	verdicts       *Verdicts
	want           Expected

	policies, bindings cache.SharedIndexInformer
	// apiServed is set once discovery lists both resources; the informers
	// start then.
	apiServed bool
	// probed is the last probe, sent against these versions of the objects.
	probed probeRecord
	// retryAfter grows while a check that needs a request keeps failing.
	retryAfter time.Duration
}

type probeRecord struct {
	versions string
	verdict  Verdict
	failures int
}

// New returns the controller. probeClient must impersonate the probe's
// identity (ProbeConfig); verdicts receives every verdict.
//
// A converged operator sends no request (test/e2e/idle_test.go): discovery
// and the probe are sent at start, when the policy or binding changes, and
// while the guard is not intact, never on a timer. So an admission plugin
// turned off while neither object changes is noticed only at the operator's
// next start (docs/security.md).
func New(operatorClient operatorclient.Interface, kube kubernetes.Interface, probeClient versioned.Interface,
	verdicts *Verdicts, recorder events.Recorder) factory.Controller {
	want := Shipped
	c := &controller{
		operatorClient: operatorClient,
		kube:           kube,
		probeClient:    probeClient,
		verdicts:       verdicts,
		want:           want,
		policies: admissionv1informers.NewFilteredValidatingAdmissionPolicyInformer(kube, informerResync, cache.Indexers{},
			kubecache.Named(want.Policy.Name)),
		bindings: admissionv1informers.NewFilteredValidatingAdmissionPolicyBindingInformer(kube, informerResync, cache.Indexers{},
			kubecache.Named(want.Binding.Name)),
		retryAfter: firstRetry,
	}
	// The informers are not given to the factory, which would wait for them
	// to sync: they never do while the API is not served. Their events reach
	// the controller's queue through its sync context.
	syncCtx := factory.NewSyncContext(ControllerName, recorder)
	enqueue := func() { syncCtx.Queue().Add(factory.DefaultQueueKey) }
	for _, informer := range []cache.SharedIndexInformer{c.policies, c.bindings} {
		_ = informer.SetTransform(trim.Objects)
		_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { enqueue() },
			UpdateFunc: func(any, any) { enqueue() },
			DeleteFunc: func(any) { enqueue() },
		})
	}
	return factory.New().
		WithSyncContext(syncCtx).
		// A new SecondaryScheduler gets the condition.
		WithInformers(operatorClient.Informer()).
		WithSync(metrics.InstrumentSync(ControllerName, c.sync)).
		ToController(ControllerName, recorder)
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	verdict, known, retry := c.check(ctx)
	if retry {
		syncCtx.Queue().AddAfter(factory.DefaultQueueKey, c.retryAfter)
		c.retryAfter = min(2*c.retryAfter, maxRetry)
	} else {
		c.retryAfter = firstRetry
	}
	if !known {
		return nil
	}
	hadVerdict, before := c.verdicts.HasSynced(), c.verdicts.Get()
	c.verdicts.Set(verdict)
	switch {
	case !verdict.Intact && (before.Intact || before.Message != verdict.Message):
		klog.InfoS("The Simulator admission guard is not intact", "reason", verdict.Reason, "message", verdict.Message)
		syncCtx.Recorder().Warning("SimulatorAdmissionGuardNotIntact", verdict.Message)
	case verdict.Intact && !before.Intact && hadVerdict:
		klog.InfoS("The Simulator admission guard is intact again")
		syncCtx.Recorder().Event("SimulatorAdmissionGuardIntact", "the Simulator admission policy and its binding are in force as shipped")
	}
	return c.reportVerdict(ctx, verdict)
}

// check returns the verdict on the guard; known is false while there is none
// yet, and retry asks for another check later (the answer came from a
// request, and may change without an informer event).
func (c *controller) check(ctx context.Context) (verdict Verdict, known, retry bool) {
	if !c.apiServed {
		served, err := c.served()
		switch {
		case err != nil:
			return notIntact(ReasonCannotRead, "cannot tell whether the API server serves "+admissionGroupVersion+
				" ValidatingAdmissionPolicies: "+err.Error()), true, true
		case !served:
			return Check(c.want, Observed{}), true, true
		}
		c.apiServed = true
		go c.policies.Run(ctx.Done())
		go c.bindings.Run(ctx.Done())
	}
	if !c.policies.HasSynced() || !c.bindings.HasSynced() {
		// The first list, at start: nothing else to do meanwhile.
		waitCtx, cancel := context.WithTimeout(ctx, readGrace)
		defer cancel()
		if cache.WaitForCacheSync(waitCtx.Done(), c.policies.HasSynced, c.bindings.HasSynced) {
			return c.check(ctx)
		}
		return notIntact(ReasonCannotRead, "cannot list ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding "+c.want.Policy.Name+
			": the operator needs get, list and watch on them (manifests/0000_50_secondary-scheduler-operator_04_clusterrole.yaml)"), true, true
	}
	policy, binding := c.policy(), c.binding()
	verdict = Check(c.want, Observed{Served: true, Policy: policy, Binding: binding})
	if !verdict.Intact {
		c.probed = probeRecord{}
		return verdict, true, false // informer events bring the next check
	}
	return c.probe(ctx, policy.ResourceVersion+"/"+binding.ResourceVersion)
}

// probe sends the probe unless the last one, against the same versions of
// the objects, found the guard enforced. The API server loads a changed
// policy or binding a moment after it is written, so a probe that finds the
// guard not enforced is sent once more before that counts.
func (c *controller) probe(ctx context.Context, versions string) (Verdict, bool, bool) {
	if c.probed.versions == versions && c.probed.verdict.Intact {
		return c.probed.verdict, true, false
	}
	verdict := JudgeProbe(c.want, Probe(ctx, c.probeClient))
	if c.probed.versions != versions {
		c.probed = probeRecord{versions: versions}
	}
	c.probed.verdict = verdict
	if verdict.Intact {
		return verdict, true, false
	}
	c.probed.failures++
	if c.probed.failures == 1 {
		return verdict, false, true // the verdict stays as it was meanwhile
	}
	return verdict, true, true
}

// served says whether the API server serves both resources.
func (c *controller) served() (bool, error) {
	resources, err := c.kube.Discovery().ServerResourcesForGroupVersion(admissionGroupVersion)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	missing := sets.New("validatingadmissionpolicies", "validatingadmissionpolicybindings")
	for _, r := range resources.APIResources {
		missing.Delete(r.Name)
	}
	return missing.Len() == 0, nil
}

func (c *controller) policy() *admissionregistrationv1.ValidatingAdmissionPolicy {
	obj, ok, err := c.policies.GetStore().GetByKey(c.want.Policy.Name)
	if err != nil || !ok {
		return nil
	}
	policy, _ := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	return policy
}

func (c *controller) binding() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	obj, ok, err := c.bindings.GetStore().GetByKey(c.want.Binding.Name)
	if err != nil || !ok {
		return nil
	}
	binding, _ := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
	return binding
}

// reportVerdict writes the condition on the SecondaryScheduler, when there is one.
func (c *controller) reportVerdict(ctx context.Context, verdict Verdict) error {
	cond := operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected}
	if !verdict.Intact {
		cond.Status, cond.Reason = operatorv1.ConditionTrue, verdict.Reason
		cond.Message = verdict.Message + "; until then the operator creates no Pod for Simulators that set spec.podTemplate, another spec.image or spec.ingressFrom"
	}
	_, err := c.operatorClient.ApplyStatus(ctx, ControllerName, secondaryschedulerapply.SecondarySchedulerStatus().WithConditions(report.Condition(cond)))
	if apierrors.IsNotFound(err) {
		return nil // no SecondaryScheduler: the Simulators' status says it
	}
	return err
}
