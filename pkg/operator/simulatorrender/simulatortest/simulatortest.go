// Package simulatortest builds Simulators for the unit tests of the packages
// that render and run them.
package simulatortest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// New returns a Simulator called name in namespace team-a, defaulted as the
// CRD defaults it, with mutate applied in order.
func New(name string, mutate ...func(*simv1alpha1.Simulator)) *simv1alpha1.Simulator {
	sim := &simv1alpha1.Simulator{
		TypeMeta: metav1.TypeMeta{APIVersion: simv1alpha1.SchemeGroupVersion.String(), Kind: "Simulator"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "team-a", UID: "0b6d4b1e-5b7a-4bbf-9a53-6f1d1c3a7e01",
			Generation: 1, ResourceVersion: "10",
		},
		Spec: simv1alpha1.SimulatorSpec{
			KubeAPIServerPort:   simv1alpha1.DefaultKubeAPIServerPort,
			SimulatorServerPort: simv1alpha1.DefaultSimulatorServerPort,
			Image:               simv1alpha1.DefaultImage,
		},
	}
	for _, m := range mutate {
		m(sim)
	}
	return sim
}
