package render

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

// Fixed names. They live here rather than in operatorclient because the render
// step may not import client code; operatorclient can alias them.
const (
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

// ConfigMapProblem says why cm is not a config ConfigMap the operator made,
// or "" when it is: our label, immutable, and its name, hash annotation and
// data agree. Only such a ConfigMap is mounted, kept for a rollback or
// deleted; anyone may create a ConfigMap with our name and label, but not one
// whose content hashes to its name.
func ConfigMapProblem(cm *corev1.ConfigMap) string {
	hash := cm.Annotations[ConfigHashAnnotation]
	switch {
	case cm.Labels[ManagedByLabel] != ManagedByValue:
		return "it lacks label " + ManagedByLabel + "=" + ManagedByValue
	case cm.Immutable == nil || !*cm.Immutable:
		return "it is not immutable"
	case hash == "" || cm.Name != ConfigMapNameFor(hash):
		return "its name does not match its " + ConfigHashAnnotation + " annotation"
	case configHash([]byte(cm.Data[ConfigKey])) != hash:
		return "its " + ConfigKey + " does not hash to its " + ConfigHashAnnotation + " annotation"
	}
	return ""
}

// Inputs is everything Render reads. It holds no clients: the caller fetches.
type Inputs struct {
	SecondaryScheduler *secondaryschedulerv1.SecondaryScheduler
	// UserConfig is the ConfigMap named by spec.schedulerConfig (namespace
	// openshift-secondary-scheduler), nil when absent.
	UserConfig *corev1.ConfigMap
	// ServingCertAvailable says the Secret secondary-scheduler-serving-cert exists
	// (service-ca issued it for the metrics Service). The scheduler then serves
	// with it; otherwise kube-scheduler serves with a self-signed certificate,
	// which is what happens on Kubernetes without service-ca.
	ServingCertAvailable bool
	// RollbackConfigHash, when set, is the configuration the Deployment runs
	// instead of the merged one: the last that ran, after the merged one failed
	// to start. Its ConfigMap (ConfigMapNameFor) must still exist.
	RollbackConfigHash string
	// PodSecurityEnforce is the operand namespace's
	// pod-security.kubernetes.io/enforce label, "" when it has none (then
	// PodSecurityLabels' default applies). User containers and volumes are
	// held to it.
	PodSecurityEnforce string
}

// Objects is every object the operator applies for one SecondaryScheduler.
type Objects struct {
	Namespace           *corev1.Namespace
	ServiceAccount      *corev1.ServiceAccount
	ClusterRoles        []*rbacv1.ClusterRole
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding
	Roles               []*rbacv1.Role
	RoleBindings        []*rbacv1.RoleBinding
	// ConfigMap holds the merged configuration under config.yaml, named by its
	// hash (ConfigMapNameFor) and immutable.
	ConfigMap *corev1.ConfigMap
	// Service is the metrics Service of the scheduler's https port 10259.
	Service    *corev1.Service
	Deployment *appsv1.Deployment
	// SchedulerNames are the profiles' schedulerNames, sorted.
	SchedulerNames []string
	// ConfigHash is the hex SHA-256 of the merged config.yaml.
	ConfigHash string
	// TemplateHash identifies the pod template that runs the merged
	// configuration. It is the Deployment's unless Inputs.RollbackConfigHash
	// pinned another configuration.
	TemplateHash string
}

// Render turns a SecondaryScheduler (and the ConfigMap it names) into every object
// the operator applies. It is pure: the same Inputs give the same Objects.
// A problem with the inputs is returned as an *InputError listing all of them.
func Render(in Inputs) (*Objects, error) {
	ss := in.SecondaryScheduler
	if ss == nil {
		return nil, fmt.Errorf("render: no SecondaryScheduler given")
	}
	errs := &problems{}
	validateSpec(ss, in.ServingCertAvailable, errs)
	observed := parseObservedConfig(ss, errs)
	cfg, err := mergeConfig(ss, in.UserConfig, observed.kubeSchedulerConfiguration, errs)
	if err != nil {
		return nil, err
	}
	if err := errs.err(); err != nil {
		return nil, err
	}

	t := templates()
	o := &Objects{
		Namespace:           t.namespace.DeepCopy(),
		ServiceAccount:      t.serviceAccount.DeepCopy(),
		ClusterRoleBindings: []*rbacv1.ClusterRoleBinding{t.operandBinding.DeepCopy()},
		Roles:               []*rbacv1.Role{t.leaderElectionRole.DeepCopy()},
		RoleBindings:        []*rbacv1.RoleBinding{t.authReaderBinding.DeepCopy(), t.leaderElectionBinding.DeepCopy()},
		ConfigMap:           t.configMap.DeepCopy(),
		Service:             t.service.DeepCopy(),
		SchedulerNames:      cfg.schedulerNames,
		ConfigHash:          cfg.hash,
	}
	o.ConfigMap.Name = ConfigMapNameFor(cfg.hash)
	o.ConfigMap.Annotations = map[string]string{ConfigHashAnnotation: cfg.hash}
	o.ConfigMap.Data = map[string]string{ConfigKey: string(cfg.yaml)}
	o.ConfigMap.Immutable = ptr.To(true)
	if rules := extraRules(ss).cluster; len(rules) > 0 {
		role := t.extraClusterRole.DeepCopy()
		role.Rules = rules
		o.ClusterRoles = append(o.ClusterRoles, role)
		o.ClusterRoleBindings = append(o.ClusterRoleBindings, t.extraClusterRoleBinding.DeepCopy())
	}
	if rules := extraRules(ss).namespaced; len(rules) > 0 {
		role := t.extraRole.DeepCopy()
		role.Rules = rules
		o.Roles = append(o.Roles, role)
		o.RoleBindings = append(o.RoleBindings, t.extraRoleBinding.DeepCopy())
	}
	if o.Deployment, o.TemplateHash, err = renderDeployment(t.deployment.DeepCopy(), ss, observed, cfg.hash, in.ServingCertAvailable); err != nil {
		return nil, err
	}
	checkPodSecurity("SecondaryScheduler "+ss.Name, ss, &o.Deployment.Spec.Template, enforcedLevel(in.PodSecurityEnforce), errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	if h := in.RollbackConfigHash; h != "" && h != cfg.hash {
		if o.Deployment, _, err = renderDeployment(t.deployment.DeepCopy(), ss, observed, h, in.ServingCertAvailable); err != nil {
			return nil, err
		}
	}
	for _, obj := range o.All() {
		setTypeMeta(obj)
	}
	return o, nil
}

// All returns every object in the order they are applied and printed:
// namespace, service account, roles, bindings, config, service, deployment.
func (o *Objects) All() []runtime.Object {
	all := []runtime.Object{o.Namespace, o.ServiceAccount}
	for _, r := range o.ClusterRoles {
		all = append(all, r)
	}
	for _, b := range o.ClusterRoleBindings {
		all = append(all, b)
	}
	for _, r := range o.Roles {
		all = append(all, r)
	}
	for _, b := range o.RoleBindings {
		all = append(all, b)
	}
	return append(all, o.ConfigMap, o.Service, o.Deployment)
}

type rules struct{ cluster, namespaced []rbacv1.PolicyRule }

func extraRules(ss *secondaryschedulerv1.SecondaryScheduler) rules {
	r := ss.Spec.RBAC
	if r == nil {
		return rules{}
	}
	// Deep copies: the rendered objects must never alias an informer's cache.
	var out rules
	for i := range r.ClusterRules {
		out.cluster = append(out.cluster, *r.ClusterRules[i].DeepCopy())
	}
	for i := range r.NamespacedRules {
		out.namespaced = append(out.namespaced, *r.NamespacedRules[i].DeepCopy())
	}
	return out
}
