package render

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openshift/library-go/pkg/crypto"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// The layout of spec.observedConfig, written by the config observer
// (pkg/operator/configobservation) and read here. servingInfo is library-go's
// own layout for the TLS security profile (apiserver.ObserveTLSSecurityProfile).
var (
	ObservedMinTLSVersionPath              = []string{"servingInfo", "minTLSVersion"}
	ObservedCipherSuitesPath               = []string{"servingInfo", "cipherSuites"}
	ObservedKubeSchedulerConfigurationPath = []string{"kubeSchedulerConfiguration"}
)

type observedConfig struct {
	minTLSVersion string
	// cipherSuites are IANA names, as kube-scheduler's --tls-cipher-suites wants.
	cipherSuites []string
	// kubeSchedulerConfiguration is layer 2 of the scheduler configuration (JSON).
	kubeSchedulerConfiguration []byte
}

func parseObservedConfig(ss *secondaryschedulerv1.SecondaryScheduler, errs *problem.List) observedConfig {
	var out observedConfig
	raw := ss.Spec.ObservedConfig.Raw
	if len(raw) == 0 {
		return out
	}
	source := specSource(ss, "spec.observedConfig")
	var cfg map[string]interface{}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		errs.Addf(source, "", "not a JSON object: %v", err)
		return out
	}
	if v, found, err := unstructured.NestedString(cfg, ObservedMinTLSVersionPath...); err != nil {
		errs.Addf(source, strings.Join(ObservedMinTLSVersionPath, "."), "%v", err)
	} else if found && v != "" {
		if _, err := crypto.TLSVersion(v); err != nil {
			errs.Addf(source, strings.Join(ObservedMinTLSVersionPath, "."), "%v", err)
		}
		out.minTLSVersion = v
	}
	if v, found, err := unstructured.NestedStringSlice(cfg, ObservedCipherSuitesPath...); err != nil {
		errs.Addf(source, strings.Join(ObservedCipherSuitesPath, "."), "%v", err)
	} else if found {
		for i, name := range v {
			if _, err := crypto.CipherSuite(name); err != nil {
				errs.Addf(source, problem.Index(strings.Join(ObservedCipherSuitesPath, "."), i), "%v", err)
			}
		}
		out.cipherSuites = v
	}
	if v, found, _ := unstructured.NestedFieldNoCopy(cfg, ObservedKubeSchedulerConfigurationPath...); found && v != nil {
		// Re-encoded from a decoded object: cannot fail.
		out.kubeSchedulerConfiguration, _ = json.Marshal(v)
	}
	return out
}
