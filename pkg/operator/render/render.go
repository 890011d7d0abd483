package render

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
)

// ConfigMapProblem says why cm is not a config ConfigMap the operator made,
// or "" when it is: our label, immutable, and its name, hash annotation and
// data agree. Only such a ConfigMap is mounted, kept for a rollback or
// deleted; anyone may create a ConfigMap with our name and label, but not one
// whose content hashes to its name.
func ConfigMapProblem(cm *corev1.ConfigMap) string {
	hash := cm.Annotations[names.ConfigHashAnnotation]
	switch {
	case cm.Labels[names.ManagedByLabel] != names.ManagedByValue:
		return "it lacks label " + names.ManagedByLabel + "=" + names.ManagedByValue
	case cm.Immutable == nil || !*cm.Immutable:
		return "it is not immutable"
	case hash == "" || cm.Name != names.ConfigMapNameFor(hash):
		return "its name does not match its " + names.ConfigHashAnnotation + " annotation"
	case schedulerconfig.Hash([]byte(cm.Data[names.ConfigKey])) != hash:
		return "its " + names.ConfigKey + " does not hash to its " + names.ConfigHashAnnotation + " annotation"
	}
	return ""
}

// Inputs is everything Render reads. It holds no clients: the caller gathers.
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
	// PodSecurityEnforce is the operand namespace's
	// pod-security.kubernetes.io/enforce label, "" when it has none (then
	// PodSecurityLabels' default applies). User containers and volumes are
	// held to it.
	PodSecurityEnforce string
	// Ceiling is what spec.rbac is held to; nil leaves it unjudged (render
	// reads files, and no cluster says what may be granted).
	Ceiling *Ceiling
	// LastKnownGood is the last configuration that ran (status.lastKnownGood),
	// and LastKnownGoodConfig its ConfigMap (nil when gone). When both are
	// there and sound, Objects.Rollback pins the Deployment to it.
	LastKnownGood       *secondaryschedulerv1.Rollout
	LastKnownGoodConfig *corev1.ConfigMap
}

// Objects is every object the operator applies for one SecondaryScheduler.
type Objects struct {
	Namespace      *corev1.Namespace
	ServiceAccount *corev1.ServiceAccount
	// The fixed RBAC of the scheduler: its ClusterRole's binding, the leader
	// election Role and the bindings in the operand namespace.
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding
	Roles               []*rbacv1.Role
	RoleBindings        []*rbacv1.RoleBinding
	// Extra carries spec.rbac.
	Extra ExtraRBAC
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
	// TemplateHash identifies Deployment's pod template.
	TemplateHash string
	// Rollback is the Deployment pinned to Inputs.LastKnownGood, nil when
	// there is no sound one other than the merged configuration.
	Rollback *Pinned
}

// ExtraRBAC is the ClusterRole, Role and their bindings that carry
// spec.rbac; a nil pair is one to delete.
type ExtraRBAC struct {
	ClusterRole        *rbacv1.ClusterRole
	ClusterRoleBinding *rbacv1.ClusterRoleBinding
	Role               *rbacv1.Role
	RoleBinding        *rbacv1.RoleBinding
}

// Pinned is a Deployment that runs an earlier configuration.
type Pinned struct {
	Deployment   *appsv1.Deployment
	ConfigHash   string
	TemplateHash string
}

// Render turns a SecondaryScheduler (and the ConfigMap it names) into every object
// the operator applies. It is pure: the same Inputs give the same Objects.
// A problem with the inputs is returned as an *InputError listing all of
// them; a well-formed spec.rbac the ceiling does not cover as an
// *RBACRefusedError.
func Render(in Inputs) (*Objects, error) {
	return renderWith(in, schedulerconfig.Merge)
}

// Renderer is Render for a caller that renders the same SecondaryScheduler
// again and again, as a controller does on every event it watches: it keeps
// the last merged configuration (schedulerconfig.Memo), most of a render's
// cost, and gives the same Objects as Render. The zero Renderer is ready.
type Renderer struct {
	merged schedulerconfig.Memo
}

// Render is Render(in), merging through the memo.
func (r *Renderer) Render(in Inputs) (*Objects, error) {
	return renderWith(in, r.merged.Merge)
}

// mergeFunc is schedulerconfig.Merge or a memo's Merge.
type mergeFunc func(...schedulerconfig.Layer) (schedulerconfig.Result, error)

func renderWith(in Inputs, merge mergeFunc) (*Objects, error) {
	ss := in.SecondaryScheduler
	if ss == nil {
		return nil, fmt.Errorf("render: no SecondaryScheduler given")
	}
	errs := &problem.List{}
	validateSpec(ss, in.ServingCertAvailable, errs)
	observed := parseObservedConfig(ss, errs)
	merged, err := mergeConfig(ss, in.UserConfig, observed.kubeSchedulerConfiguration, merge, errs)
	if err != nil {
		return nil, err
	}
	if err := inputError(errs, merged.Merged); err != nil {
		return nil, err
	}
	cfg := merged.Config
	o := fixedObjects(cfg)
	o.Extra = extraRBAC(ss)
	if o.Deployment, o.TemplateHash, err = renderDeployment(templates().deployment.DeepCopy(), ss, observed, cfg.Hash, in.ServingCertAvailable); err != nil {
		return nil, err
	}
	checkPodSecurity("SecondaryScheduler "+ss.Name, ss, &o.Deployment.Spec.Template, enforcedLevel(in.PodSecurityEnforce), errs)
	if err := inputError(errs, cfg.YAML); err != nil {
		return nil, err
	}
	if err := judgeCeiling(ss, in.Ceiling); err != nil {
		return nil, err
	}
	if o.Rollback, err = renderRollback(in, observed, cfg.Hash); err != nil {
		return nil, err
	}
	for _, obj := range o.All() {
		setTypeMeta(obj)
	}
	return o, nil
}

// fixedObjects are the objects every SecondaryScheduler has, with the merged
// configuration's ConfigMap.
func fixedObjects(cfg *schedulerconfig.Config) *Objects {
	t := templates()
	o := &Objects{
		Namespace:           t.namespace.DeepCopy(),
		ServiceAccount:      t.serviceAccount.DeepCopy(),
		ClusterRoleBindings: []*rbacv1.ClusterRoleBinding{t.operandBinding.DeepCopy()},
		Roles:               []*rbacv1.Role{t.leaderElectionRole.DeepCopy()},
		RoleBindings:        []*rbacv1.RoleBinding{t.authReaderBinding.DeepCopy(), t.leaderElectionBinding.DeepCopy()},
		ConfigMap:           t.configMap.DeepCopy(),
		Service:             t.service.DeepCopy(),
		SchedulerNames:      cfg.SchedulerNames,
		ConfigHash:          cfg.Hash,
	}
	o.ConfigMap.Name = names.ConfigMapNameFor(cfg.Hash)
	o.ConfigMap.Annotations = map[string]string{names.ConfigHashAnnotation: cfg.Hash}
	o.ConfigMap.Data = map[string]string{names.ConfigKey: string(cfg.YAML)}
	o.ConfigMap.Immutable = ptr.To(true)
	return o
}

// renderRollback pins the Deployment to the last configuration that ran,
// when it is another than the merged one and its ConfigMap is sound: a
// rollback goes only to a configuration the operator can vouch for.
func renderRollback(in Inputs, observed observedConfig, mergedHash string) (*Pinned, error) {
	lkg, cm := in.LastKnownGood, in.LastKnownGoodConfig
	if lkg == nil || lkg.ConfigHash == mergedHash || cm == nil || cm.Name != names.ConfigMapNameFor(lkg.ConfigHash) || ConfigMapProblem(cm) != "" {
		return nil, nil
	}
	d, templateHash, err := renderDeployment(templates().deployment.DeepCopy(), in.SecondaryScheduler, observed, lkg.ConfigHash, in.ServingCertAvailable)
	if err != nil {
		return nil, err
	}
	setTypeMeta(d)
	return &Pinned{Deployment: d, ConfigHash: lkg.ConfigHash, TemplateHash: templateHash}, nil
}

// All returns every object in the order they are applied and printed:
// namespace, service account, roles, bindings, config, service, deployment.
func (o *Objects) All() []runtime.Object {
	all := []runtime.Object{o.Namespace, o.ServiceAccount}
	if o.Extra.ClusterRole != nil {
		all = append(all, o.Extra.ClusterRole)
	}
	for _, b := range o.ClusterRoleBindings {
		all = append(all, b)
	}
	if o.Extra.ClusterRoleBinding != nil {
		all = append(all, o.Extra.ClusterRoleBinding)
	}
	for _, r := range o.Roles {
		all = append(all, r)
	}
	if o.Extra.Role != nil {
		all = append(all, o.Extra.Role)
	}
	for _, b := range o.RoleBindings {
		all = append(all, b)
	}
	if o.Extra.RoleBinding != nil {
		all = append(all, o.Extra.RoleBinding)
	}
	return append(all, o.ConfigMap, o.Service, o.Deployment)
}

// extraRBAC renders spec.rbac. Deep copies: the rendered objects must never
// alias an informer's cache.
func extraRBAC(ss *secondaryschedulerv1.SecondaryScheduler) ExtraRBAC {
	var out ExtraRBAC
	r := ss.Spec.RBAC
	if r == nil {
		return out
	}
	t := templates()
	if len(r.ClusterRules) > 0 {
		out.ClusterRole, out.ClusterRoleBinding = t.extraClusterRole.DeepCopy(), t.extraClusterRoleBinding.DeepCopy()
		for i := range r.ClusterRules {
			out.ClusterRole.Rules = append(out.ClusterRole.Rules, *r.ClusterRules[i].DeepCopy())
		}
	}
	if len(r.NamespacedRules) > 0 {
		out.Role, out.RoleBinding = t.extraRole.DeepCopy(), t.extraRoleBinding.DeepCopy()
		for i := range r.NamespacedRules {
			out.Role.Rules = append(out.Role.Rules, *r.NamespacedRules[i].DeepCopy())
		}
	}
	return out
}
