package render

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
)

// mergeConfig reads the layers of the scheduler configuration a
// SecondaryScheduler brings (doc.go) and merges them: the one merge of
// render, whose document the scheduler runs or, refused, the problems are
// found in. Problems with the inputs go to errs; the error return is for
// operator bugs.
func mergeConfig(ss *secondaryschedulerv1.SecondaryScheduler, userCM *corev1.ConfigMap, observed []byte, merge mergeFunc, errs *problem.List) (schedulerconfig.Result, error) {
	var layers []schedulerconfig.Layer
	if len(observed) > 0 {
		layers = append(layers, schedulerconfig.Layer{Source: specSource(ss, "spec.observedConfig.kubeSchedulerConfiguration"), Data: observed})
	}
	at := len(layers) // where the user's layer goes
	user, unread := userLayer(ss, userCM)
	if user != nil {
		layers = append(layers, *user)
	}
	if overrides := overridesLayer(ss); overrides != nil {
		layers = append(layers, *overrides)
	}
	if unread != "" {
		// Nothing to merge without the user's layer; the others' problems
		// still count, in layer order.
		check := func(ls []schedulerconfig.Layer) {
			for _, l := range ls {
				errs.Add(schedulerconfig.Check(l)...)
			}
		}
		check(layers[:at])
		errs.Addf("", "", "%s", unread)
		check(layers[at:])
		return schedulerconfig.Result{}, nil
	}
	r, err := merge(layers...)
	errs.Add(r.Problems...)
	return r, err
}

// userLayer reads the ConfigMap named by spec.schedulerConfig: nil when none
// is named, or with the problem that keeps it from being read. Its profiles,
// when it lists any, are the profiles served (doc.go).
func userLayer(ss *secondaryschedulerv1.SecondaryScheduler, cm *corev1.ConfigMap) (*schedulerconfig.Layer, string) {
	name := ss.Spec.SchedulerConfig
	if name == "" {
		return nil, ""
	}
	ref := fmt.Sprintf("ConfigMap %s/%s", names.OperandNamespace, name)
	if cm == nil {
		return nil, fmt.Sprintf("%s: not found; create it with the scheduler configuration under key %s, or unset %s",
			ref, names.ConfigKey, specSource(ss, "spec.schedulerConfig"))
	}
	data, ok := cm.Data[names.ConfigKey]
	if !ok {
		keys := make([]string, 0, len(cm.Data))
		for k := range cm.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, fmt.Sprintf("%s: no key %s (it has: %s); put the KubeSchedulerConfiguration under %s",
			ref, names.ConfigKey, strings.Join(keys, ", "), names.ConfigKey)
	}
	return &schedulerconfig.Layer{Source: ref + " " + names.ConfigKey, Data: []byte(data), ReplaceProfiles: true}, ""
}

// overridesLayer is spec.unsupportedConfigOverrides, nil when unset.
func overridesLayer(ss *secondaryschedulerv1.SecondaryScheduler) *schedulerconfig.Layer {
	raw := ss.Spec.UnsupportedConfigOverrides.Raw
	if len(raw) == 0 {
		return nil
	}
	return &schedulerconfig.Layer{Source: specSource(ss, "spec.unsupportedConfigOverrides"), Data: raw}
}

func specSource(ss *secondaryschedulerv1.SecondaryScheduler, path string) string {
	return fmt.Sprintf("SecondaryScheduler %s %s", ss.Name, path)
}

// CheckDocuments refuses the documents a SecondaryScheduler brings (the
// ConfigMap spec.schedulerConfig names, spec.unsupportedConfigOverrides)
// that are over the bounds every document is held to
// (schedulerconfig.CheckDocument), with the problems Render reports for
// them. diff calls it before it reads the cluster, so that such input costs
// no request.
func CheckDocuments(ss *secondaryschedulerv1.SecondaryScheduler, userCM *corev1.ConfigMap) error {
	var layers []schedulerconfig.Layer
	if user, _ := userLayer(ss, userCM); user != nil {
		layers = append(layers, *user)
	}
	if overrides := overridesLayer(ss); overrides != nil {
		layers = append(layers, *overrides)
	}
	var errs problem.List
	for _, l := range layers {
		if err := schedulerconfig.CheckDocument(l.Data); err != nil {
			errs.Addf(l.Source, "", "%v", err)
		}
	}
	return inputError(&errs, nil)
}
