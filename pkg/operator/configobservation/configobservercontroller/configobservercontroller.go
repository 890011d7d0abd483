// Package configobservercontroller runs library-go's config observer over the
// OpenShift cluster config that shapes the secondary scheduler: the API server's
// TLS security profile and the cluster scheduler profile. What it observes lands
// in spec.observedConfig, layer 2 of the scheduler configuration.
package configobservercontroller

import (
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/configobserver"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/configobservation"
)

// NewConfigObserver returns the controller. Only start it where the
// config.openshift.io API is served; on Kubernetes nothing is observed.
func NewConfigObserver(operatorClient v1helpers.OperatorClient, configInformers configinformers.SharedInformerFactory, recorder events.Recorder) factory.Controller {
	apiServers := configInformers.Config().V1().APIServers()
	schedulers := configInformers.Config().V1().Schedulers()
	listers := configobservation.Listers{
		APIServerLister_:   apiServers.Lister(),
		SchedulerLister_:   schedulers.Lister(),
		PreRunCachesSynced: []cache.InformerSynced{apiServers.Informer().HasSynced, schedulers.Informer().HasSynced},
	}
	return configobserver.NewConfigObserver("SecondaryScheduler", operatorClient, recorder, listers,
		// The CR too: a new SecondaryScheduler gets its observed config at once, not at the next resync.
		[]factory.Informer{apiServers.Informer(), schedulers.Informer(), operatorClient.Informer()},
		configobservation.ObserveTLSSecurityProfile,
		configobservation.ObserveSchedulerProfile,
	)
}
