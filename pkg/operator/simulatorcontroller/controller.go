// Package simulatorcontroller runs KEP-159 scheduler simulators: for each
// Simulator, a Pod running the simulator (and, without an external etcd, an etcd
// container), a Service in front of it and a NetworkPolicy that admits only the
// Simulator's namespace (and spec.ingressFrom), with the Simulator's status
// following the Pod.
//
// Wiring (starter.go):
//
//   - the Simulator informer from the generated informer factory, all
//     namespaces, with the transform trim.Objects (a Simulator's labels and
//     annotations, which its users write, are not cached);
//   - the Pod, Service and NetworkPolicy informers from a kube informer factory built with
//     InformerOption() and the transform Transform, all namespaces: only the
//     objects this controller made (Selector: both its labels) are cached, never
//     every Pod of the cluster, and of them only what it reads;
//   - the clients built from a rest.Config with QPS >= ClientQPS and Burst >=
//     ClientBurst (client-go's default 5 QPS would take 10 minutes to start 1,000
//     simulators);
//   - the admission guard's verdicts (admissionguardcontroller.Verdicts): a
//     Simulator that sets GuardedFields gets no Pod while the guard is not
//     intact;
//   - Run(ctx, DefaultWorkers).
//
// RBAC: simulators get/list/watch; simulators/status update; simulators/finalizers
// update (the controller references set blockOwnerDeletion, which OpenShift's
// OwnerReferencesPermissionEnforcement admission checks); pods get/list/watch/
// create/delete; services and networkpolicies get/list/watch/create/update;
// events create.
//
// Ownership: a Pod, Service or NetworkPolicy is the Simulator's only with a
// controller reference to it, UID included; the controller updates or
// deletes no other. One that takes the name the Simulator needs is reported
// (Degraded, reason NameConflict, and a Warning) and left as it is.
//
// Messages: every status message and event message is capped to
// MaxMessageBytes.
package simulatorcontroller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	corev1informers "k8s.io/client-go/informers/core/v1"
	networkingv1informers "k8s.io/client-go/informers/networking/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	networkingv1listers "k8s.io/client-go/listers/networking/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	siminformers "github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions/simulation/v1alpha1"
	simlisters "github.com/openshift/secondary-scheduler-operator/pkg/generated/listers/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/report"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

const (
	// ControllerName names the controller, its queue and its events.
	ControllerName = "SimulatorController"

	// DefaultWorkers is the number of Simulators synced at once. A sync is a few
	// lister reads and at most three writes, so workers mostly wait on the API
	// server: several keep it busy (measured: see docs/simulator.md).
	DefaultWorkers = 10
	// ClientQPS and ClientBurst are the least client rate limits the starter must
	// give the clients of this controller. A Simulator costs five requests from
	// creation to Available (NetworkPolicy, Pod and Service created, two status
	// updates; no event: test/integration's TestSimulatorAPIBudget counts them).
	ClientQPS   = 200
	ClientBurst = 400

	// recentWritesTTL bounds how long a write is trusted over the informer cache.
	recentWritesTTL = time.Minute

	podsBySimulatorIndex = "simulatorcontroller.bySimulator"

	kindSimulator = "Simulator"
	kindPod       = "Pod"
	kindService   = "Service"
	kindPolicy    = "NetworkPolicy"
)

type simulatorController struct {
	kubeClient    kubernetes.Interface
	simClient     versioned.Interface
	simLister     simlisters.SimulatorLister
	podIndexer    cache.Indexer
	podLister     corev1listers.PodLister
	serviceLister corev1listers.ServiceLister
	policyLister  networkingv1listers.NetworkPolicyLister
	guard         Guard
	namespace     string
	writes        *recentWrites
	backoff       *replaceBackoff
	clock         clock.PassiveClock
	// recorderFor records events on a Simulator, where `kubectl describe` shows them.
	recorderFor func(*simv1alpha1.Simulator) events.Recorder
}

// Informers are what the controller reads: the Simulators, the Pods,
// Services and NetworkPolicies of a kube informer factory built with
// InformerOption and Transform (only the objects this controller made, and
// of them only what it reads), and the admission guard's verdict (required).
type Informers struct {
	Simulators      siminformers.SimulatorInformer
	Pods            corev1informers.PodInformer
	Services        corev1informers.ServiceInformer
	NetworkPolicies networkingv1informers.NetworkPolicyInformer
	Guard           Guard
	// Namespace is the one the informers watch, "" for all: where the
	// controller looks for Pods of earlier operator versions once it starts.
	Namespace string
}

// NewSimulatorController returns the controller that runs a simulator for every
// Simulator. One queue key per Simulator (namespace/name); Pod, Service and
// NetworkPolicy events requeue the Simulator named by their
// simulatorrender.SimulatorLabel.
func NewSimulatorController(kubeClient kubernetes.Interface, simClient versioned.Interface, informers Informers, recorder events.Recorder) factory.Controller {
	onSimulator := func(sim *simv1alpha1.Simulator) events.Recorder {
		return report.RecorderOn(kubeClient, sim.Namespace, &corev1.ObjectReference{
			APIVersion: simv1alpha1.SchemeGroupVersion.String(), Kind: "Simulator",
			Namespace: sim.Namespace, Name: sim.Name, UID: sim.UID, ResourceVersion: sim.ResourceVersion,
		})
	}
	_, ctrl := newSimulatorController(kubeClient, simClient, informers, recorder, onSimulator, clock.RealClock{})
	return ctrl
}

func newSimulatorController(kubeClient kubernetes.Interface, simClient versioned.Interface, informers Informers, recorder events.Recorder,
	recorderFor func(*simv1alpha1.Simulator) events.Recorder, clk clock.PassiveClock) (*simulatorController, factory.Controller) {
	simInformer, podInformer, serviceInformer, policyInformer := informers.Simulators, informers.Pods, informers.Services, informers.NetworkPolicies
	if informers.Guard == nil {
		// Without it Simulators would run unguarded: a wiring mistake.
		panic("simulatorcontroller: Informers.Guard is required")
	}
	podIndexer := podInformer.Informer().GetIndexer()
	if _, ok := podIndexer.GetIndexers()[podsBySimulatorIndex]; !ok {
		if err := podInformer.Informer().AddIndexers(cache.Indexers{podsBySimulatorIndex: ownerKeys}); err != nil {
			// Only for a stopped informer; podsOf then scans the namespace.
			klog.ErrorS(err, "Cannot index Pods by Simulator", "controller", ControllerName)
		}
	}
	c := &simulatorController{
		kubeClient:    kubeClient,
		simClient:     simClient,
		simLister:     simInformer.Lister(),
		podIndexer:    podIndexer,
		podLister:     podInformer.Lister(),
		serviceLister: serviceInformer.Lister(),
		policyLister:  policyInformer.Lister(),
		guard:         informers.Guard,
		namespace:     informers.Namespace,
		writes:        newRecentWrites(clk, recentWritesTTL),
		backoff:       newReplaceBackoff(),
		clock:         clk,
		recorderFor:   recorderFor,
	}
	return c, factory.New().
		WithSync(metrics.InstrumentSync(ControllerName, c.sync)).
		WithInformersQueueKeysFunc(simulatorKey, simInformer.Informer()).
		WithInformersQueueKeysFunc(ownerKeysOf, podInformer.Informer(), serviceInformer.Informer(), policyInformer.Informer()).
		WithInformersQueueKeysFunc(c.guardedKeys, informers.Guard).
		WithPostStartHooks(c.replaceUnlabelledPods).
		ToController(ControllerName, recorder)
}

func simulatorKey(obj runtime.Object) []string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return []string{m.GetNamespace() + "/" + m.GetName()}
}

// ownerKeys is the key of the Simulator an object was made for, from its label.
func ownerKeys(obj interface{}) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil
	}
	owner, ok := m.GetLabels()[simulatorrender.SimulatorLabel]
	if !ok || owner == "" {
		return nil, nil
	}
	return []string{m.GetNamespace() + "/" + owner}, nil
}

func ownerKeysOf(obj runtime.Object) []string {
	keys, _ := ownerKeys(obj)
	return keys
}

func (c *simulatorController) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	namespace, name, err := cache.SplitMetaNamespaceKey(syncCtx.QueueKey())
	if err != nil || namespace == "" {
		return nil
	}
	cached, err := c.simLister.Simulators(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// The garbage collector deletes the Pod, Service and NetworkPolicy (owner references).
		c.writes.forget(kindSimulator, namespace, name)
		c.writes.forget(kindService, namespace, name)
		c.writes.forget(kindPolicy, namespace, name)
		c.backoff.forget(syncCtx.QueueKey())
		return nil
	}
	if err != nil {
		return err
	}
	sim := c.writes.newest(kindSimulator, namespace, name, cached).(*simv1alpha1.Simulator)
	if sim.DeletionTimestamp != nil {
		return nil
	}
	recorder := cappedRecorder{c.recorderFor(sim)}

	rendered, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	switch {
	case simulatorrender.IsInputError(err):
		klog.V(2).InfoS("Invalid Simulator", "simulator", klog.KObj(sim), "err", err)
		return c.updateStatus(ctx, recorder, sim, invalidSpec(err), "")
	case err != nil:
		return fmt.Errorf("rendering Simulator %s/%s: %w", sim.Namespace, sim.Name, err)
	}
	if fields := GuardedFields(sim); len(fields) > 0 {
		if intact, why := c.guard.Intact(); !intact {
			return c.syncHeldBack(ctx, recorder, sim, rendered, fields, why)
		}
	}

	obs, url, errs := c.syncObjects(ctx, recorder, sim, rendered)
	if obs.requeueAfter > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), obs.requeueAfter)
	}
	if err := c.updateStatus(ctx, recorder, sim, obs, url); err != nil {
		errs = append(errs, err)
	}
	return joinErrors(errs)
}

// syncObjects makes sim's NetworkPolicy, Pod and Service what rendered says,
// and returns what they say of the simulator, the kube-apiserver URL once its
// Service is there ("" until then) and what failed.
func (c *simulatorController) syncObjects(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator, rendered *simulatorrender.Objects) (observation, string, []error) {
	var errs []error
	namespace := sim.Namespace
	// The policy comes first: a new Pod is never reachable beyond what it admits.
	policyCached, policyErr := c.policyLister.NetworkPolicies(namespace).Get(rendered.NetworkPolicy.Name)
	policy, policyExists := newestOwned(c.writes, kindPolicy, namespace, rendered.NetworkPolicy.Name, policyCached, policyErr)
	_, policyErr = manageOwned(ctx, c, recorder, kindPolicy, c.kubeClient.NetworkingV1().NetworkPolicies(namespace), sim,
		rendered.NetworkPolicy, policy, policyExists, setNetworkPolicyOwned)
	if policyErr != nil {
		errs = append(errs, policyErr)
	}
	pod, obs, err := c.managePods(ctx, recorder, sim, rendered.Pod, policyErr == nil)
	if err != nil {
		errs = append(errs, err)
	}
	svcCached, svcErr := c.serviceLister.Services(namespace).Get(rendered.Service.Name)
	existing, svcExists := newestOwned(c.writes, kindService, namespace, rendered.Service.Name, svcCached, svcErr)
	svc, svcErr := manageOwned(ctx, c, recorder, kindService, c.kubeClient.CoreV1().Services(namespace), sim,
		rendered.Service, existing, svcExists, setServiceOwned)
	if svcErr != nil {
		errs = append(errs, svcErr)
	}
	// Without its policy or its Service the simulator is not as promised or not
	// reachable: not Available.
	url := ""
	ownedErr := policyErr
	if ownedErr == nil {
		ownedErr = svcErr
	}
	if ownedErr != nil && !obs.degraded {
		obs = failed(ownedErr, pod != nil)
	} else if ownedErr == nil && svc != nil {
		url = rendered.KubeAPIServerURL
	}
	klog.V(4).InfoS("Synced Simulator", "simulator", klog.KObj(sim), "pod", klog.KObj(pod), "phase", obs.phase, "reason", obs.reason)
	return obs, url, errs
}

// joinErrors is nil, the one error as is (it may be
// factory.SyntheticRequeueError), or their aggregate.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return utilerrors.NewAggregate(errs)
}

// newestOwned is the newer of an object from a lister (cached, err) and the one
// this controller wrote last, and whether there is either.
func newestOwned[T ownedObject](w *recentWrites, kind, namespace, name string, cached T, err error) (T, bool) {
	var fromCache runtime.Object
	if err == nil {
		fromCache = cached
	}
	obj, ok := w.newest(kind, namespace, name, fromCache).(T)
	return obj, ok
}

// updateStatus writes the status obs and url make, when it differs from the
// current one: a converged Simulator costs no write.
func (c *simulatorController) updateStatus(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator, obs observation, url string) error {
	desired := desiredStatus(sim, obs, url, metav1.NewTime(c.clock.Now()))
	if !statusChanged(&sim.Status, &desired) {
		return nil
	}
	updated := sim.DeepCopy()
	updated.Status = desired
	written, err := c.simClient.SimulationV1alpha1().Simulators(sim.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case apierrors.IsConflict(err):
		// The Simulator changed meanwhile: its watch event brings the next sync.
		klog.V(4).InfoS("Simulator changed while its status was written", "simulator", klog.KObj(sim))
		return factory.SyntheticRequeueError
	case err != nil:
		return fmt.Errorf("updating the status of Simulator %s/%s: %w", sim.Namespace, sim.Name, err)
	}
	klog.V(2).InfoS("Updated Simulator status", "simulator", klog.KObj(sim), "phase", desired.Phase, "message", *desired.Message)
	c.writes.record(kindSimulator, written)
	recordTransition(recorder, &sim.Status, &desired)
	return nil
}

// recordTransition tells the Simulator's users what changed, once per change:
// a new problem they must fix (a Warning), and its end, when the Simulator is
// Available again after one. Reaching Available from creation is in the
// status alone: an event costs a request, and the happy path stays within
// five (docs/simulator.md).
func recordTransition(recorder events.Recorder, before, after *simv1alpha1.SimulatorStatus) {
	was := meta.FindStatusCondition(before.Conditions, ConditionDegraded)
	now := meta.FindStatusCondition(after.Conditions, ConditionDegraded)
	wasDegraded := was != nil && was.Status == metav1.ConditionTrue
	switch {
	case now != nil && now.Status == metav1.ConditionTrue && (!wasDegraded || was.Reason != now.Reason || was.Message != now.Message):
		recorder.Warning(now.Reason, now.Message)
	case after.Phase == simv1alpha1.SimulatorAvailable && before.Phase != simv1alpha1.SimulatorAvailable && wasDegraded:
		recorder.Event("SimulatorAvailable", *after.Message)
	}
}
