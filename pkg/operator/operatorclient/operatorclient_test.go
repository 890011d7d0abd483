package operatorclient

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
)

// TestRelatedObjects pins what `oc adm inspect clusteroperator/secondary-scheduler`
// collects; the RBAC names come from the assets, so a renamed asset shows here.
func TestRelatedObjects(t *testing.T) {
	want := []configv1.ObjectReference{
		{Group: "operator.openshift.io", Resource: "secondaryschedulers", Name: "cluster"},
		{Resource: "namespaces", Name: "openshift-secondary-scheduler-operator"},
		{Resource: "namespaces", Name: "openshift-secondary-scheduler"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "secondary-scheduler-operand"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings", Name: "secondary-scheduler-operand"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "secondary-scheduler-extra"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings", Name: "secondary-scheduler-extra"},
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies", Name: "secondary-scheduler-operator-simulator-pod-fields"},
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings", Name: "secondary-scheduler-operator-simulator-pod-fields"},
	}
	got := RelatedObjects()
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
