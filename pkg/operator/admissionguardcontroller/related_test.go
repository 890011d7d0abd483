package admissionguardcontroller

import (
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"testing"
)

// The ClusterOperator's relatedObjects name the policy and binding the
// manifest ships, so that `oc adm inspect` and must-gather collect them.
func TestShippedGuardIsARelatedObject(t *testing.T) {
	if Shipped.Policy.Name != names.SimulatorAdmissionName || Shipped.Binding.Name != names.SimulatorAdmissionName {
		t.Errorf("manifest policy %q and binding %q, relatedObjects name %q", Shipped.Policy.Name, Shipped.Binding.Name, names.SimulatorAdmissionName)
	}
}
