package integration

import (
	"testing"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// One etcd and kube-apiserver for the whole package, with our CRDs and the
// OpenShift config CRDs installed.
func TestMain(m *testing.M) {
	framework.RunMain(m, framework.Options{})
}
