package rollout

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// RetainedConfigs is how many superseded configurations are kept besides the
// ones in use, for a look at what ran before.
const RetainedConfigs = 3

// InUse names the config ConfigMaps that must stay: the desired
// configuration's, the last known good one's, and every one the applied
// Deployment or a pod mounts.
func InUse(desiredConfigHash string, record Record, applied *appsv1.Deployment, pods []*corev1.Pod) map[string]bool {
	specs := make([]*corev1.PodSpec, 0, len(pods)+1)
	if applied != nil {
		specs = append(specs, &applied.Spec.Template.Spec)
	}
	for _, p := range pods {
		specs = append(specs, &p.Spec)
	}
	keep := map[string]bool{}
	for _, spec := range specs {
		for _, v := range spec.Volumes {
			if v.ConfigMap != nil {
				keep[v.ConfigMap.Name] = true
			}
		}
	}
	if desiredConfigHash != "" {
		keep[names.ConfigMapNameFor(desiredConfigHash)] = true
	}
	if lkg := record.LastKnownGood; lkg != nil {
		keep[names.ConfigMapNameFor(lkg.ConfigHash)] = true
	}
	return keep
}

// StaleConfigMaps are the config ConfigMaps that can go: none of keep, and
// beyond the newest retain of the rest. The user's own ConfigMap is never one
// of them, whatever it is called.
func StaleConfigMaps(all []*corev1.ConfigMap, keep map[string]bool, userConfig string, retain int) []string {
	var candidates []*corev1.ConfigMap
	var stale []string
	for _, cm := range all {
		// Only what the operator made: one that merely carries our name and
		// label is someone else's. Earlier releases wrote one mutable
		// ConfigMap under the bare name; it goes on upgrade.
		former := cm.Name == names.ConfigMapName && cm.Labels[names.ManagedByLabel] == names.ManagedByValue
		if !names.IsConfigMapName(cm.Name) || keep[cm.Name] || cm.Name == userConfig || (render.ConfigMapProblem(cm) != "" && !former) {
			continue
		}
		if former {
			// Never retained: mutable, it does not show what ran; and
			// right after an upgrade it is the only superseded one, so
			// retained it would stay until three more configurations came.
			stale = append(stale, cm.Name)
			continue
		}
		candidates = append(candidates, cm)
	}
	sort.Slice(candidates, func(i, j int) bool {
		ti, tj := candidates[i].CreationTimestamp, candidates[j].CreationTimestamp
		if !ti.Equal(&tj) {
			return tj.Before(&ti)
		}
		return candidates[i].Name < candidates[j].Name
	})
	for i, cm := range candidates {
		if i >= retain {
			stale = append(stale, cm.Name)
		}
	}
	return stale
}
