package admissionguardcontroller

import (
	"testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
)

// The ClusterOperator's relatedObjects name the policy and binding the
// manifest ships, so that `oc adm inspect` and must-gather collect them.
func TestShippedGuardIsARelatedObject(t *testing.T) {
	if Shipped.Policy.Name != operatorclient.SimulatorAdmissionName || Shipped.Binding.Name != operatorclient.SimulatorAdmissionName {
		t.Errorf("manifest policy %q and binding %q, relatedObjects name %q", Shipped.Policy.Name, Shipped.Binding.Name, operatorclient.SimulatorAdmissionName)
	}
}
