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
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operandstatuscontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/staticresources"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
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
	kubeConfig := clientConfig(cc.ProtoKubeConfig)
	crConfig := clientConfig(cc.KubeConfig)

	kubeClient, err := kubernetes.NewForConfig(kubeConfig)
	if err != nil {
		return err
	}
	crClient, err := versioned.NewForConfig(crConfig)
	if err != nil {
		return err
	}
	kubeInformers := kubecache.NewKubeInformers(kubeClient)
	cachedKubeClient := kubecache.NewCachedKubeClient(kubeClient, kubeInformers)
	crInformers := externalversions.NewSharedInformerFactoryWithOptions(crClient, resync, externalversions.WithTransform(trim.Objects))
	// The one informer of the SecondaryScheduler, and the one writer of its
	// status: every controller, library-go's included, goes through it.
	operatorClient := operatorclient.New(cc.Clock, crClient.OperatorV1(), crInformers.Operator().V1().SecondarySchedulers())
	simulatorObjects := informers.NewSharedInformerFactoryWithOptions(kubeClient, resync, simulatorcontroller.InformerOption(),
		informers.WithTransform(simulatorcontroller.Transform))
	// Only pending, unbound pods of schedulers other than the default one.
	waitingPods := informers.NewSharedInformerFactoryWithOptions(kubeClient, resync, informers.WithTweakListOptions(unservedpodscontroller.PodListOptions),
		informers.WithTransform(trim.PendingPods))
	grantableRole := kubecache.NewNamedClusterRoleInformers(kubeClient, targetconfigcontroller.GrantableClusterRole)

	openShift, err := configobservation.HasOpenShiftConfigAPI(kubeClient.Discovery())
	if err != nil {
		return err
	}
	metrics.Register()
	versions := status.NewVersionGetter()
	seedVersions(nil, versions)

	controllers := []factory.Controller{
		staticresources.NewStaticResourcesController(staticresources.ControllerName, cachedKubeClient, kubeInformers, operatorClient, cc.EventRecorder),
		targetconfigcontroller.NewTargetConfigController(operatorClient, cachedKubeClient, kubeInformers, grantableRole.Rbac().V1().ClusterRoles(),
			staticresources.DeleteAll(kubeClient), cc.EventRecorder),
		managementstatecontroller.NewOperatorManagementStateController(operatorName, operatorClient, cc.EventRecorder),
		loglevel.NewClusterOperatorLoggingController(operatorClient, cc.EventRecorder),
		// Conditions of earlier releases that nothing sets any more.
		staleconditions.NewRemoveStaleConditionsController(operatorName, staticresources.FormerConditionTypes, operatorClient, cc.EventRecorder),
		operandstatuscontroller.NewOperandStatusController(operatorClient, kubeInformers, versions, cc.EventRecorder),
		unservedpodscontroller.New(operatorClient, waitingPods.Core().V1().Pods(),
			kubeInformers.InformersFor(operatorclient.OperandNamespace).Apps().V1().Deployments(), kubeClient, opts.UnservedPodGrace, cc.EventRecorder),
	}
	var configInformers configinformers.SharedInformerFactory
	if openShift {
		var openShiftControllers []factory.Controller
		configInformers, openShiftControllers, err = newOpenShiftControllers(ctx, cc, crConfig, operatorClient, versions)
		if err != nil {
			return err
		}
		controllers = append(controllers, openShiftControllers...)
	}
	guard, err := newAdmissionGuard(crConfig, operatorClient, kubeClient, cc)
	if err != nil {
		return err
	}
	controllers = append(controllers, guard.controller)
	metrics.CountSimulatorsWith(simulatorcontroller.CountByPhase(crInformers.Simulation().V1alpha1().Simulators().Lister()))
	simulators := simulatorcontroller.NewSimulatorController(kubeClient, crClient, simulatorcontroller.Informers{
		Simulators:      crInformers.Simulation().V1alpha1().Simulators(),
		Pods:            simulatorObjects.Core().V1().Pods(),
		Services:        simulatorObjects.Core().V1().Services(),
		NetworkPolicies: simulatorObjects.Networking().V1().NetworkPolicies(),
		Guard:           guard.verdicts,
	}, cc.EventRecorder)

	for _, start := range []func(<-chan struct{}){kubeInformers.Start, crInformers.Start, simulatorObjects.Start, grantableRole.Start, waitingPods.Start} {
		start(ctx.Done())
	}
	if configInformers != nil {
		configInformers.Start(ctx.Done())
	}
	for _, c := range controllers {
		go c.Run(ctx, 1)
	}
	go simulators.Run(ctx, simulatorWorkers)
	<-ctx.Done()
	return nil
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
	co, err := configClient.ConfigV1().ClusterOperators().Get(ctx, operatorclient.ClusterOperatorName, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, nil, fmt.Errorf("reading the versions of ClusterOperator %s: %w", operatorclient.ClusterOperatorName, err)
	}
	if err == nil {
		seedVersions(co, versions)
	}
	configInformers := configinformers.NewSharedInformerFactoryWithOptions(configClient, resync, configinformers.WithTransform(trim.Objects))
	// The status controller reads the operator's own ClusterOperator alone.
	configInformers.InformerFor(&configv1.ClusterOperator{}, func(client configclient.Interface, resync time.Duration) cache.SharedIndexInformer {
		return configv1informers.NewFilteredClusterOperatorInformer(client, resync, cache.Indexers{}, kubecache.Named(operatorclient.ClusterOperatorName))
	})
	return configInformers, []factory.Controller{
		configobservercontroller.NewConfigObserver(operatorClient, configInformers, cc.EventRecorder),
		status.NewClusterOperatorStatusController(operatorclient.ClusterOperatorName, operatorclient.RelatedObjects(),
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
