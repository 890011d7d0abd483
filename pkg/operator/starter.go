// Package operator wires the operator's controllers together. It holds no logic.
package operator

import (
	"context"
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	configv1informers "github.com/openshift/client-go/config/informers/externalversions/config/v1"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/managementstatecontroller"
	"github.com/openshift/library-go/pkg/operator/staleconditions"
	"github.com/openshift/library-go/pkg/operator/status"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/admissionguardcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/configobservation"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/configobservation/configobservercontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/kubecache"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operandstatuscontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/report"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/staticresources"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trim"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/unservedpodscontroller"
)

const (
	operatorName = "SecondaryScheduler"
	resync       = 10 * time.Minute
	// Workers of the simulator controller: syncs are cheap, keys independent.
	simulatorWorkers = simulatorcontroller.DefaultWorkers
)

// RunOperator builds the clients and informers, constructs every controller and
// runs them until ctx ends.
func RunOperator(ctx context.Context, cc *controllercmd.ControllerContext, opts Options) error {
	c, err := newClients(cc)
	if err != nil {
		return err
	}
	openShift, err := configobservation.HasOpenShiftConfigAPI(c.kube.Discovery())
	if err != nil {
		return err
	}
	metrics.Register()
	versions := status.NewVersionGetter()
	seedVersions(nil, versions)

	controllers := newControllers(cc, c, versions, openShift, opts)
	controllers = append(controllers, trialcontroller.New(ctx, c.operatorClient, c.kube, c.kubeInformers,
		trialcontroller.InCluster(c.kube, c.dynamic, openShift), report.OnSecondaryScheduler(c.kube), cc.EventRecorder))
	if openShift {
		configInformers, openShiftControllers, err := newOpenShiftControllers(ctx, cc, c.crConfig, c.operatorClient, versions)
		if err != nil {
			return err
		}
		controllers = append(controllers, openShiftControllers...)
		c.factories = append(c.factories, configInformers)
	}
	guard, err := newAdmissionGuard(c.crConfig, c.operatorClient, c.kube, cc)
	if err != nil {
		return err
	}
	controllers = append(controllers, guard.controller)
	simulators := newSimulatorController(cc, c, guard)

	for _, f := range c.factories {
		f.Start(ctx.Done())
	}
	for _, ctrl := range controllers {
		go ctrl.Run(ctx, 1)
	}
	go simulators.Run(ctx, simulatorWorkers)
	<-ctx.Done()
	return nil
}

// clients are the operator's API clients and the informer factories the
// controllers read from.
type clients struct {
	kube       kubernetes.Interface
	cachedKube kubernetes.Interface
	// dynamic reads the custom resources a trial's snapshot copies.
	dynamic        dynamic.Interface
	cr             versioned.Interface
	crConfig       *rest.Config
	operatorClient *operatorclient.Client

	kubeInformers    v1helpers.KubeInformersForNamespaces
	crInformers      externalversions.SharedInformerFactory
	simulatorObjects informers.SharedInformerFactory
	waitingPods      informers.SharedInformerFactory
	grantableRole    informers.SharedInformerFactory
	// factories are every factory above, which RunOperator starts.
	factories []interface{ Start(<-chan struct{}) }
}

// newClients builds the clients and the informer factories, none started.
func newClients(cc *controllercmd.ControllerContext) (*clients, error) {
	c := &clients{crConfig: clientConfig(cc.KubeConfig)}
	var err error
	if c.kube, err = kubernetes.NewForConfig(clientConfig(cc.ProtoKubeConfig)); err != nil {
		return nil, err
	}
	if c.cr, err = versioned.NewForConfig(c.crConfig); err != nil {
		return nil, err
	}
	if c.dynamic, err = dynamic.NewForConfig(c.crConfig); err != nil {
		return nil, err
	}
	c.kubeInformers = kubecache.NewKubeInformers(c.kube)
	c.cachedKube = kubecache.NewCachedKubeClient(c.kube, c.kubeInformers)
	// The kinds any user may create and fill are listed in pages, each
	// trimmed before the next (kubecache.ListInPages): a list, unlike the
	// watch-list, is decoded whole before the transform sees it.
	c.crInformers = kubecache.NewPagedCRInformers(c.cr, resync, trim.Objects)
	// The one informer of the SecondaryScheduler, and the one writer of its
	// status: every controller, library-go's included, goes through it.
	c.operatorClient = operatorclient.New(cc.Clock, c.cr.OperatorV1(), c.crInformers.Operator().V1().SecondarySchedulers())
	c.simulatorObjects = kubecache.NewPagedKubeInformers(c.kube, resync, simulatorcontroller.Transform, simulatorcontroller.InformerOption())
	// Only pending, unbound pods of schedulers other than the default one.
	c.waitingPods = kubecache.NewPagedKubeInformers(c.kube, resync, trim.PendingPods, informers.WithTweakListOptions(unservedpodscontroller.PodListOptions))
	c.grantableRole = kubecache.NewNamedClusterRoleInformers(c.kube, names.GrantableClusterRole)
	c.factories = append(c.factories, c.kubeInformers, c.crInformers, c.simulatorObjects, c.grantableRole, c.waitingPods)
	return c, nil
}

// newControllers are the controllers of the SecondaryScheduler that run
// everywhere, OpenShift or not.
func newControllers(cc *controllercmd.ControllerContext, c *clients, versions status.VersionGetter, openShift bool, opts Options) []factory.Controller {
	return []factory.Controller{
		staticresources.NewStaticResourcesController(staticresources.ControllerName, c.cachedKube, c.kubeInformers, c.operatorClient, cc.EventRecorder),
		targetconfigcontroller.NewTargetConfigController(c.operatorClient, c.cachedKube, c.kubeInformers, c.grantableRole.Rbac().V1().ClusterRoles(),
			staticresources.DeleteAll(c.kube), observerWait(openShift), cc.EventRecorder),
		managementstatecontroller.NewOperatorManagementStateController(operatorName, c.operatorClient, cc.EventRecorder),
		loglevel.NewClusterOperatorLoggingController(c.operatorClient, cc.EventRecorder),
		// Conditions of earlier releases that nothing sets any more.
		staleconditions.NewRemoveStaleConditionsController(operatorName, staticresources.FormerConditionTypes, c.operatorClient, cc.EventRecorder),
		operandstatuscontroller.NewOperandStatusController(c.operatorClient, c.kubeInformers, versions, cc.EventRecorder),
		unservedpodscontroller.New(c.operatorClient, c.waitingPods.Core().V1().Pods(),
			c.kubeInformers.InformersFor(names.OperandNamespace).Apps().V1().Deployments(), c.kube, opts.UnservedPodGrace, cc.EventRecorder),
	}
}

// newSimulatorController is the controller of Simulators, which the
// admission guard's verdicts hold back, and the metric that counts them.
func newSimulatorController(cc *controllercmd.ControllerContext, c *clients, guard admissionGuard) factory.Controller {
	metrics.CountSimulatorsWith(simulatorcontroller.CountByPhase(c.crInformers.Simulation().V1alpha1().Simulators().Lister()))
	return simulatorcontroller.NewSimulatorController(c.kube, c.cr, simulatorcontroller.Informers{
		Simulators:      c.crInformers.Simulation().V1alpha1().Simulators(),
		Pods:            c.simulatorObjects.Core().V1().Pods(),
		Services:        c.simulatorObjects.Core().V1().Services(),
		NetworkPolicies: c.simulatorObjects.Networking().V1().NetworkPolicies(),
		Guard:           guard.verdicts,
	}, cc.EventRecorder)
}

// admissionGuard is the controller that checks the Simulator admission guard
// and the verdicts the Simulator controller reads.
type admissionGuard struct {
	controller factory.Controller
	verdicts   *admissionguardcontroller.Verdicts
}

// newAdmissionGuard builds the guard's controller, whose probe impersonates
// the probe's identity.
func newAdmissionGuard(crConfig *rest.Config, operatorClient operatorclient.Interface, kubeClient kubernetes.Interface,
	cc *controllercmd.ControllerContext) (admissionGuard, error) {
	probeClient, err := versioned.NewForConfig(admissionguardcontroller.ProbeConfig(crConfig))
	if err != nil {
		return admissionGuard{}, err
	}
	verdicts := admissionguardcontroller.NewVerdicts()
	return admissionGuard{
		controller: admissionguardcontroller.New(operatorClient, kubeClient, probeClient, verdicts, cc.EventRecorder),
		verdicts:   verdicts,
	}, nil
}

// newOpenShiftControllers are the controllers that exist only on OpenShift: the
// config observer and the ClusterOperator status, whose versions start from
// the ClusterOperator's.
func newOpenShiftControllers(ctx context.Context, cc *controllercmd.ControllerContext, crConfig *rest.Config,
	operatorClient v1helpers.OperatorClient, versions status.VersionGetter) (configinformers.SharedInformerFactory, []factory.Controller, error) {
	configClient, err := configclient.NewForConfig(crConfig)
	if err != nil {
		return nil, nil, err
	}
	co, err := configClient.ConfigV1().ClusterOperators().Get(ctx, names.ClusterOperatorName, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, nil, fmt.Errorf("reading the versions of ClusterOperator %s: %w", names.ClusterOperatorName, err)
	}
	if err == nil {
		seedVersions(co, versions)
	}
	configInformers := configinformers.NewSharedInformerFactoryWithOptions(configClient, resync, configinformers.WithTransform(trim.Objects))
	// The status controller reads the operator's own ClusterOperator alone.
	configInformers.InformerFor(&configv1.ClusterOperator{}, func(client configclient.Interface, resync time.Duration) cache.SharedIndexInformer {
		return configv1informers.NewFilteredClusterOperatorInformer(client, resync, cache.Indexers{}, kubecache.Named(names.ClusterOperatorName))
	})
	return configInformers, []factory.Controller{
		configobservercontroller.NewConfigObserver(operatorClient, configInformers, cc.EventRecorder),
		status.NewClusterOperatorStatusController(names.ClusterOperatorName, operatorclient.RelatedObjects(),
			configClient.ConfigV1(), configInformers.Config().V1().ClusterOperators(), operatorclient.WithoutUnionConditions(operatorClient),
			versions, cc.EventRecorder, cc.Clock),
	}, nil
}

func clientConfig(config *rest.Config) *rest.Config {
	c := rest.CopyConfig(config)
	// client-go's default of 5 requests/s would take minutes to roll out many Simulators.
	c.QPS = simulatorcontroller.ClientQPS
	c.Burst = simulatorcontroller.ClientBurst
	// Every open watch would hold a gzip reader (some 40 KiB) as long as it
	// runs, for traffic that stays in the cluster.
	c.DisableCompression = true
	return c
}

// observerWait is how long a new SecondaryScheduler's first rollout waits for
// the config observer, which runs only on OpenShift: started before it, the
// scheduler would restart as soon as the cluster's TLS profile is observed.
func observerWait(openShift bool) time.Duration {
	if !openShift {
		return 0
	}
	return 30 * time.Second
}
