// Package simulatorcontroller runs KEP-159 scheduler simulators: for each
// Simulator, a Pod running the simulator (and, without an external etcd, an etcd
// container) and a Service in front of it, with the Simulator's status following
// the Pod.
//
// Wiring (starter.go):
//
//   - the Simulator informer from the generated informer factory, all namespaces;
//   - the Pod and Service informers from a kube informer factory built with
//     InformerOption(), all namespaces: only the objects this controller made are
//     cached, never every Pod of the cluster;
//   - the clients built from a rest.Config with QPS >= ClientQPS and Burst >=
//     ClientBurst (client-go's default 5 QPS would take 10 minutes to start 1,000
//     simulators);
//   - Run(ctx, DefaultWorkers).
//
// RBAC: simulators get/list/watch; simulators/status update; simulators/finalizers
// update (the controller references set blockOwnerDeletion, which OpenShift's
// OwnerReferencesPermissionEnforcement admission checks); pods get/list/watch/
// create/delete; services get/list/watch/create/update; events create.
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
	"k8s.io/client-go/informers"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	siminformers "github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions/simulation/v1alpha1"
	simlisters "github.com/openshift/secondary-scheduler-operator/pkg/generated/listers/simulation/v1alpha1"
)

const (
	// ControllerName names the controller, its queue and its events.
	ControllerName = "SimulatorController"

	// DefaultWorkers is the number of Simulators synced at once. A sync is a few
	// lister reads and at most three writes, so workers mostly wait on the API
	// server: several keep it busy (measured: see docs/simulator.md).
	DefaultWorkers = 10
	// ClientQPS and ClientBurst are the least client rate limits the starter must
	// give the clients of this controller. A Simulator costs four writes from
	// creation to Available (Pod, Service, two status updates) plus its events.
	ClientQPS   = 200
	ClientBurst = 400

	// recentWritesTTL bounds how long a write is trusted over the informer cache.
	recentWritesTTL = time.Minute

	podsBySimulatorIndex = "simulatorcontroller.bySimulator"

	kindSimulator = "Simulator"
	kindPod       = "Pod"
	kindService   = "Service"
)

// InformerOption filters a kube informer factory to the Pods and Services this
// controller creates (those with SimulatorLabel).
func InformerOption() informers.SharedInformerOption {
	return informers.WithTweakListOptions(TweakListOptions)
}

// TweakListOptions selects the objects that carry SimulatorLabel.
func TweakListOptions(opts *metav1.ListOptions) {
	opts.LabelSelector = SimulatorLabel
}

type simulatorController struct {
	kubeClient    kubernetes.Interface
	simClient     versioned.Interface
	simLister     simlisters.SimulatorLister
	podIndexer    cache.Indexer
	podLister     corev1listers.PodLister
	serviceLister corev1listers.ServiceLister
	writes        *recentWrites
	clock         clock.PassiveClock
}

// NewSimulatorController returns the controller that runs a simulator for every
// Simulator. One queue key per Simulator (namespace/name); Pod and Service events
// requeue the Simulator named by their SimulatorLabel.
func NewSimulatorController(
	kubeClient kubernetes.Interface,
	simClient versioned.Interface,
	simInformer siminformers.SimulatorInformer,
	podInformer corev1informers.PodInformer,
	serviceInformer corev1informers.ServiceInformer,
	recorder events.Recorder,
) factory.Controller {
	return newSimulatorController(kubeClient, simClient, simInformer, podInformer, serviceInformer, recorder, clock.RealClock{})
}

func newSimulatorController(
	kubeClient kubernetes.Interface,
	simClient versioned.Interface,
	simInformer siminformers.SimulatorInformer,
	podInformer corev1informers.PodInformer,
	serviceInformer corev1informers.ServiceInformer,
	recorder events.Recorder,
	clk clock.PassiveClock,
) factory.Controller {
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
		writes:        newRecentWrites(clk, recentWritesTTL),
		clock:         clk,
	}
	return factory.New().
		WithSync(c.sync).
		WithInformersQueueKeysFunc(simulatorKey, simInformer.Informer()).
		WithInformersQueueKeysFunc(ownerKeysOf, podInformer.Informer(), serviceInformer.Informer()).
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
	owner, ok := m.GetLabels()[SimulatorLabel]
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
		// The garbage collector deletes the Pod and Service (owner references).
		c.writes.forget(kindSimulator, namespace, name)
		c.writes.forget(kindService, namespace, name)
		return nil
	}
	if err != nil {
		return err
	}
	sim := c.writes.newest(kindSimulator, namespace, name, cached).(*simv1alpha1.Simulator)
	if sim.DeletionTimestamp != nil {
		return nil
	}
	recorder := syncCtx.Recorder()

	rendered, err := Render(sim)
	if err != nil {
		klog.V(2).InfoS("Invalid Simulator", "simulator", klog.KObj(sim), "err", err)
		return c.updateStatus(ctx, sim, invalidSpec(err), "")
	}

	var errs []error
	pod, obs, err := c.managePods(ctx, recorder, sim, rendered.Pod)
	if err != nil {
		errs = append(errs, err)
	}
	url := ""
	existing := c.writes.newest(kindService, namespace, rendered.Service.Name, c.cachedService(namespace, rendered.Service.Name))
	svc, _, err := c.manageService(ctx, recorder, rendered.Service, asService(existing))
	switch {
	case err != nil:
		// Without its Service the simulator is not reachable: not Available.
		errs = append(errs, err)
		if !obs.degraded {
			phase := simv1alpha1.SimulatorPending
			if pod != nil {
				phase = simv1alpha1.SimulatorCreating
			}
			obs = observation{phase: phase, reason: ReasonSyncFailed, message: err.Error(), degraded: true}
		}
	case svc != nil:
		url = rendered.KubeAPIServerURL
	}
	klog.V(4).InfoS("Synced Simulator", "simulator", klog.KObj(sim), "pod", klog.KObj(pod), "phase", obs.phase, "reason", obs.reason)

	if err := c.updateStatus(ctx, sim, obs, url); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 1 {
		return errs[0] // as is: it may be factory.SyntheticRequeueError
	}
	return utilerrors.NewAggregate(errs)
}

func (c *simulatorController) cachedService(namespace, name string) runtime.Object {
	svc, err := c.serviceLister.Services(namespace).Get(name)
	if err != nil {
		return nil
	}
	return svc
}

func asService(obj runtime.Object) *corev1.Service {
	svc, _ := obj.(*corev1.Service)
	return svc
}

// updateStatus writes the status obs and url make, when it differs from the
// current one: a converged Simulator costs no write.
func (c *simulatorController) updateStatus(ctx context.Context, sim *simv1alpha1.Simulator, obs observation, url string) error {
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
	return nil
}
