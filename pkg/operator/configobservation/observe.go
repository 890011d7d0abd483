package configobservation

import (
	"encoding/json"
	"fmt"
	"reflect"

	configv1 "github.com/openshift/api/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/configobserver"
	"github.com/openshift/library-go/pkg/operator/configobserver/apiserver"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resourcesynccontroller"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
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
	layer, err := SchedulerProfileLayer(scheduler.Spec.Profile)
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

// profileAssetDir holds one sparse layer per cluster scheduling profile that has
// one, named after the profile in lower case with dashes.
const profileAssetDir = "assets/config/profiles/"

// profileAssets maps each cluster scheduling profile that changes the
// configuration to its layer in bindata. Each file's header says why the profile
// does what it does.
var profileAssets = map[configv1.SchedulerProfile]string{
	configv1.HighNodeUtilization: profileAssetDir + "high-node-utilization.yaml",
	configv1.NoScoring:           profileAssetDir + "no-scoring.yaml",
}

// SchedulerProfileLayer maps a cluster scheduling profile to a sparse v1 layer
// for the default profile (secondary-scheduler), mirroring what
// cluster-kube-scheduler-operator does for the default scheduler:
//
//   - LowNodeUtilization (and ""): kube-scheduler's defaults, no layer (nil);
//   - HighNodeUtilization (assets/config/profiles/high-node-utilization.yaml):
//     NodeResourcesFit scores MostAllocated with weight 5 and
//     NodeResourcesBalancedAllocation is off, packing pods onto fewer nodes;
//   - NoScoring (assets/config/profiles/no-scoring.yaml): every preScore and
//     score plugin is off, for the lowest latency.
//
// Each call returns a freshly decoded value that the caller may change; integers
// decode to int64, as in any unstructured object.
//
// Profiles an administrator writes under other names are not touched (see
// package render's doc). profileCustomizations.dynamicResourceAllocation is not
// mapped: DynamicResources is on by default in every v1 scheduler that needs it.
func SchedulerProfileLayer(profile configv1.SchedulerProfile) (map[string]interface{}, error) {
	if profile == "" || profile == configv1.LowNodeUtilization {
		return nil, nil
	}
	asset, ok := profileAssets[profile]
	if !ok {
		return nil, fmt.Errorf("spec.profile: %q is not one of LowNodeUtilization, HighNodeUtilization, NoScoring", profile)
	}
	data, err := bindata.Asset(asset)
	if err != nil {
		return nil, err
	}
	var layer map[string]interface{}
	useNumber := func(d *json.Decoder) *json.Decoder { d.UseNumber(); return d }
	if err := yaml.UnmarshalStrict(data, &layer, useNumber); err != nil {
		return nil, fmt.Errorf("%s: %w", asset, err)
	}
	// json.Number to int64 (or float64), the types the Go literals held.
	if err := utiljson.ConvertMapNumbers(layer, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", asset, err)
	}
	return layer, nil
}
