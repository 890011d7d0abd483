package configobservation

import (
	"fmt"
	"reflect"

	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/configobserver"
	"github.com/openshift/library-go/pkg/operator/configobserver/apiserver"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resourcesynccontroller"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/clusterconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// Listers are what the observers read; they satisfy configobserver.Listers and
// the lister interfaces the observers hard-cast to.
type Listers struct {
	APIServerLister_   configlistersv1.APIServerLister
	SchedulerLister_   configlistersv1.SchedulerLister
	ResourceSync       resourcesynccontroller.ResourceSyncer
	PreRunCachesSynced []cache.InformerSynced
}

func (l Listers) APIServerLister() configlistersv1.APIServerLister      { return l.APIServerLister_ }
func (l Listers) SchedulerLister() configlistersv1.SchedulerLister      { return l.SchedulerLister_ }
func (l Listers) ResourceSyncer() resourcesynccontroller.ResourceSyncer { return l.ResourceSync }
func (l Listers) PreRunHasSynced() []cache.InformerSynced               { return l.PreRunCachesSynced }

// SchedulerLister is what ObserveSchedulerProfile hard-casts its listers to.
type SchedulerLister interface {
	SchedulerLister() configlistersv1.SchedulerLister
}

var (
	_ apiserver.APIServerLister = Listers{}
	_ SchedulerLister           = Listers{}
	_ configobserver.Listers    = Listers{}
)

// ObserveTLSSecurityProfile writes servingInfo.minTLSVersion and
// servingInfo.cipherSuites from apiservers.config.openshift.io/cluster; without
// that object it writes the Intermediate profile, like every OpenShift component.
var ObserveTLSSecurityProfile configobserver.ObserveConfigFunc = apiserver.ObserveTLSSecurityProfile

// ObserveSchedulerProfile writes kubeSchedulerConfiguration from
// schedulers.config.openshift.io/cluster spec.profile. Without that object (or
// on Kubernetes) it observes nothing. On an unknown profile it keeps what it
// observed before, so a typo does not change the running scheduler.
func ObserveSchedulerProfile(genericListers configobserver.Listers, recorder events.Recorder, existing map[string]interface{}) (map[string]interface{}, []error) {
	path := render.ObservedKubeSchedulerConfigurationPath
	previous := configobserver.Pruned(existing, path)
	scheduler, err := genericListers.(SchedulerLister).SchedulerLister().Get("cluster")
	if apierrors.IsNotFound(err) {
		return map[string]interface{}{}, nil
	}
	if err != nil {
		return previous, []error{err}
	}
	layer, err := clusterconfig.SchedulerProfileLayer(scheduler.Spec.Profile)
	if err != nil {
		return previous, []error{fmt.Errorf("schedulers.config.openshift.io/cluster: %w", err)}
	}
	observed := map[string]interface{}{}
	if layer != nil {
		if err := unstructured.SetNestedField(observed, layer, path...); err != nil {
			return previous, []error{err}
		}
	}
	if !reflect.DeepEqual(observed, previous) {
		recorder.Eventf("ObserveSchedulerProfile", "scheduler profile %q observed", scheduler.Spec.Profile)
	}
	return observed, nil
}
