// Package clusterconfig says what OpenShift's cluster configuration
// (apiservers.config.openshift.io and schedulers.config.openshift.io, named
// cluster) means for the operand, as functions of those objects alone:
//
//	observedConfig:
//	  servingInfo:                 # APIServer spec.tlsSecurityProfile (TLSProfile)
//	    minTLSVersion: VersionTLS12    # -> kube-scheduler --tls-min-version
//	    cipherSuites: [...]            # IANA names -> --tls-cipher-suites
//	  kubeSchedulerConfiguration:  # Scheduler spec.profile (SchedulerProfileLayer)
//	    {a sparse kubescheduler.config.k8s.io/v1 layer}
//
// The operator's config observers (package configobservation) run on
// informers through library-go's configobserver; ObserveObjects is the same
// observation without a cluster, for the render command. It does not import
// library-go's configobserver, whose package graph (resourcesynccontroller,
// resourceapply, resourceread) would add a third to the init of
// secondary-scheduler-ctl; configobservation's tests hold ObserveObjects to
// what library-go's observers write for the same objects.
package clusterconfig

import (
	"encoding/json"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/crypto"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// ObserveObjects observes, without a cluster, the objs given (an APIServer
// and/or a Scheduler named "cluster") and returns existing with the paths
// their observation owns replaced. Paths of an object not given are kept, so
// an observedConfig written by a running operator is left alone.
func ObserveObjects(existing map[string]interface{}, objs ...runtime.Object) (map[string]interface{}, error) {
	if existing == nil {
		existing = map[string]interface{}{}
	}
	out := runtime.DeepCopyJSON(existing)
	for _, obj := range objs {
		if m, err := meta.Accessor(obj); err == nil && m.GetName() != "cluster" {
			return nil, fmt.Errorf("%T %q: only the one named cluster configures the cluster", obj, m.GetName())
		}
		switch o := obj.(type) {
		case *configv1.APIServer:
			minVersion, cipherSuites := TLSProfile(o.Spec.TLSSecurityProfile)
			if err := unstructured.SetNestedField(out, minVersion, render.ObservedMinTLSVersionPath...); err != nil {
				return nil, err
			}
			if err := unstructured.SetNestedStringSlice(out, cipherSuites, render.ObservedCipherSuitesPath...); err != nil {
				return nil, err
			}
		case *configv1.Scheduler:
			layer, err := SchedulerProfileLayer(o.Spec.Profile)
			if err != nil {
				return nil, fmt.Errorf("schedulers.config.openshift.io/cluster: %w", err)
			}
			unstructured.RemoveNestedField(out, render.ObservedKubeSchedulerConfigurationPath...)
			if layer != nil {
				if err := unstructured.SetNestedField(out, layer, render.ObservedKubeSchedulerConfigurationPath...); err != nil {
					return nil, err
				}
			}
		default:
			return nil, fmt.Errorf("%T is not an input of the config observers", obj)
		}
	}
	return out, nil
}

// TLSProfile is the minimum TLS version and the cipher suites, in the IANA
// names kube-scheduler takes, of an APIServer's spec.tlsSecurityProfile: the
// named profile's, the custom one's, or, without a profile (or a custom type
// without its spec), the Intermediate profile every OpenShift component
// defaults to. It decides as library-go's apiserver.ObserveTLSSecurityProfile.
func TLSProfile(profile *configv1.TLSSecurityProfile) (minTLSVersion string, cipherSuites []string) {
	profileType := crypto.DefaultTLSProfileType
	if profile != nil {
		profileType = profile.Type
	}
	var spec *configv1.TLSProfileSpec
	if profileType == configv1.TLSProfileCustomType {
		if profile.Custom != nil {
			spec = &profile.Custom.TLSProfileSpec
		}
	} else {
		spec = configv1.TLSProfiles[profileType]
	}
	if spec == nil {
		spec = configv1.TLSProfiles[crypto.DefaultTLSProfileType]
	}
	return string(spec.MinTLSVersion), crypto.OpenSSLToIANACipherSuites(spec.Ciphers)
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
