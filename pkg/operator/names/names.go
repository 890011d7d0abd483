// Package names holds the fixed names of what the operator makes and reads:
// a leaf that every package may import without what render brings.
package names

import (
	"strings"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

const (
	// OperatorNamespace is where the operator itself runs.
	OperatorNamespace = "openshift-secondary-scheduler-operator"
	// ClusterOperatorName is the ClusterOperator the operator reports to.
	ClusterOperatorName = "secondary-scheduler"
	// OperandNamespace holds the scheduler Deployment, its ConfigMaps and its Lease.
	OperandNamespace = "openshift-secondary-scheduler"
	// OperandName names the Deployment, ServiceAccount, Lease and scheduler container.
	OperandName = secondaryschedulerv1.SchedulerContainerName
	// DefaultSchedulerName is the schedulerName of the default profile.
	DefaultSchedulerName = "secondary-scheduler"
	// ConfigMapName prefixes the operator-owned, immutable ConfigMaps that hold
	// merged configurations, one per content hash (ConfigMapNameFor).
	ConfigMapName = "secondary-scheduler-config"
	// ConfigKey is the key of the scheduler configuration in both the user's and
	// the operator's ConfigMap.
	ConfigKey = "config.yaml"
	// ExtraRBACName names the ClusterRole, ClusterRoleBinding, Role and RoleBinding
	// that carry spec.rbac.
	ExtraRBACName = "secondary-scheduler-extra"
	// OperandClusterRoleName is what the scheduler's ServiceAccount holds
	// cluster-wide; it ships in manifests/, and the operator binds it.
	OperandClusterRoleName = "secondary-scheduler-operand"
	// ServingCertSecretName is the Secret service-ca issues for the metrics Service.
	ServingCertSecretName = "secondary-scheduler-serving-cert"

	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "secondary-scheduler-operator"

	// ConfigHashAnnotation on the pod template and on a config ConfigMap holds
	// the hash of the merged configuration the pods run with.
	ConfigHashAnnotation = "operator.openshift.io/config-hash"
	// TemplateHashAnnotation on the pod template identifies the template: pods
	// carry it, so a failing rollout is known by it (Objects.TemplateHash).
	TemplateHashAnnotation = "operator.openshift.io/template-hash"
	// EnvironmentHashAnnotation on the pod template holds the hash of the
	// scheduler container's env, envFrom, mounts and mounted volumes as
	// rendered: the live Deployment carries the API server's defaults
	// (volumes' defaultMode ...), which the rendered one lacks, so hashing the
	// live object would tell the same environment from itself.
	EnvironmentHashAnnotation = "operator.openshift.io/environment-hash"

	configHashNameLength = 12
)

// ConfigMapNameFor names the immutable ConfigMap holding the merged
// configuration with this hash: a pod never sees a configuration other than
// the one it was started with, and an old one stays available for rollback.
func ConfigMapNameFor(configHash string) string {
	if len(configHash) > configHashNameLength {
		configHash = configHash[:configHashNameLength]
	}
	return ConfigMapName + "-" + configHash
}

// IsConfigMapName tells whether name is one the operator gives config
// ConfigMaps, the unhashed name of earlier releases included.
func IsConfigMapName(name string) bool {
	return name == ConfigMapName || strings.HasPrefix(name, ConfigMapName+"-")
}

// FormerOperandBindingNames are the bindings to system:kube-scheduler and
// system:volume-scheduler that earlier releases made: they grant the default
// scheduler's lock, so they are deleted wherever they are found.
var FormerOperandBindingNames = []string{
	"secondary-scheduler-system-kube-scheduler",
	"secondary-scheduler-system-volume-scheduler",
}

// GrantableClusterRole holds every rule spec.rbac may grant. The API server's
// own escalation check is no ceiling: it lets the operator grant whatever the
// operator holds (pods create, RBAC writes ...), so each rule is judged here
// against this role before anything is applied.
const GrantableClusterRole = "secondary-scheduler-operator-grantable"

// SimulatorAdmissionName names the ValidatingAdmissionPolicy that keeps
// Simulators' pod fields from users who may not create pods, and its binding
// (manifests/0000_50_secondary-scheduler-operator_03_simulator-admission.yaml;
// the admission guard's tests check the two agree).
const SimulatorAdmissionName = "secondary-scheduler-operator-simulator-pod-fields"
