package operator

import (
	configv1 "github.com/openshift/api/config/v1"
	"github.com/openshift/library-go/pkg/operator/status"
)

// operatorVersionName is the ClusterOperator's version of the operator itself.
const operatorVersionName = "operator"

// seedVersions starts versions from those co (the operator's ClusterOperator,
// nil when there is none yet) reports, as the cluster-kube-scheduler-operator
// does: an operator restarted in the middle of an upgrade keeps reporting the
// operand version that last reached level until the operand status controller
// sees the new one running, rather than none. The operator's own version is
// always this binary's.
func seedVersions(co *configv1.ClusterOperator, versions status.VersionGetter) {
	if co != nil {
		for _, v := range co.Status.Versions {
			if v.Name != operatorVersionName {
				versions.SetVersion(v.Name, v.Version)
			}
		}
	}
	versions.SetVersion(operatorVersionName, status.VersionForOperatorFromEnv())
}
