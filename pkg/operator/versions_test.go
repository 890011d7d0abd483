package operator

import (
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/operator/status"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operandstatuscontroller"
)

func TestSeedVersions(t *testing.T) {
	t.Setenv("OPERATOR_IMAGE_VERSION", "4.22.1")
	co := &configv1.ClusterOperator{
		ObjectMeta: metav1.ObjectMeta{Name: "secondary-scheduler"},
		Status: configv1.ClusterOperatorStatus{Versions: []configv1.OperandVersion{
			{Name: "operator", Version: "4.22.0"},
			{Name: operandstatuscontroller.OperandVersionName, Version: "registry.k8s.io/kube-scheduler:v1.36.1"},
		}},
	}
	versions := status.NewVersionGetter()
	seedVersions(co, versions)
	got := versions.GetVersions()
	want := map[string]string{"operator": "4.22.1", operandstatuscontroller.OperandVersionName: "registry.k8s.io/kube-scheduler:v1.36.1"}
	if len(got) != len(want) || got["operator"] != want["operator"] || got[operandstatuscontroller.OperandVersionName] != want[operandstatuscontroller.OperandVersionName] {
		t.Errorf("versions %v, want %v", got, want)
	}

	// A first start: no ClusterOperator yet.
	versions = status.NewVersionGetter()
	seedVersions(nil, versions)
	if got := versions.GetVersions(); len(got) != 1 || got["operator"] != "4.22.1" {
		t.Errorf("versions %v, want only the operator's", got)
	}
}
