package simulatorcontroller

import (
	"k8s.io/apimachinery/pkg/labels"

	simlisters "github.com/openshift/secondary-scheduler-operator/pkg/generated/listers/simulation/v1alpha1"
)

// CountByPhase counts the cached Simulators by status.phase; one not yet synced
// counts as Pending.
func CountByPhase(lister simlisters.SimulatorLister) func() map[string]int {
	return func() map[string]int {
		counts := map[string]int{}
		sims, err := lister.List(labels.Everything())
		if err != nil {
			return counts
		}
		for _, s := range sims {
			phase := string(s.Status.Phase)
			if phase == "" {
				phase = "Pending"
			}
			counts[phase]++
		}
		return counts
	}
}
