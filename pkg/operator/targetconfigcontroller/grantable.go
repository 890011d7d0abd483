package targetconfigcontroller

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openshift/library-go/pkg/operator/events"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	rbacvalidation "k8s.io/component-helpers/auth/rbac/validation"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// GrantableClusterRole holds every rule spec.rbac may grant. The API server's
// own escalation check is no ceiling: it lets the operator grant whatever the
// operator holds (pods create, RBAC writes ...), so each rule is checked here
// against this role before anything is applied.
const GrantableClusterRole = "secondary-scheduler-operator-grantable"

// checkGrantable names every spec.rbac rule the grantable ClusterRole does
// not cover, with what is missing. Namespaced rules are held to the same
// ceiling: the role lists what the operator may hand out anywhere.
func (c *targetConfigController) checkGrantable(ss *secondaryschedulerv1.SecondaryScheduler) ([]string, error) {
	r := ss.Spec.RBAC
	if r == nil || len(r.ClusterRules)+len(r.NamespacedRules) == 0 {
		return nil, nil
	}
	role, err := c.grantableLister.Get(GrantableClusterRole)
	if apierrors.IsNotFound(err) {
		return []string{fmt.Sprintf("ClusterRole %s does not exist, so spec.rbac can grant nothing: restore it (it ships in manifests/)",
			GrantableClusterRole)}, nil
	}
	if err != nil {
		return nil, err
	}
	src := "SecondaryScheduler " + ss.Name
	var problems []string
	problems = append(problems, uncovered(src, "spec.rbac.clusterRules", r.ClusterRules, role.Rules)...)
	problems = append(problems, uncovered(src, "spec.rbac.namespacedRules", r.NamespacedRules, role.Rules)...)
	return problems, nil
}

func uncovered(src, field string, rules, grantable []rbacv1.PolicyRule) []string {
	var problems []string
	for i, rule := range rules {
		if covered, missing := rbacvalidation.Covers(grantable, []rbacv1.PolicyRule{rule}); !covered {
			parts := make([]string, 0, len(missing))
			for _, m := range missing {
				parts = append(parts, describeRule(m))
			}
			problems = append(problems, fmt.Sprintf("%s: %s[%d]: grants %s, which ClusterRole %s does not hold; "+
				"remove it, or have a cluster administrator add it to %s if the scheduler and every sidecar may have it",
				src, field, i, strings.Join(parts, ", "), GrantableClusterRole, GrantableClusterRole))
		}
	}
	return problems
}

// describeRule writes one broken-down rule the way it is written in YAML.
func describeRule(r rbacv1.PolicyRule) string {
	verbs := strings.Join(r.Verbs, ",")
	if len(r.NonResourceURLs) > 0 {
		return fmt.Sprintf("%s on %s", verbs, strings.Join(r.NonResourceURLs, ","))
	}
	resource := strings.Join(r.Resources, ",")
	if g := strings.Join(r.APIGroups, ","); g != "" {
		resource += "." + g
	}
	if len(r.ResourceNames) > 0 {
		resource += " named " + strings.Join(r.ResourceNames, ",")
	}
	return verbs + " " + resource
}

// revokeUncovered takes out of the applied spec.rbac roles every rule the
// grantable ClusterRole no longer covers: narrowing the ceiling revokes what
// was granted under it, even while the rest of the spec waits for a fix. A
// role left with no rule is deleted with its binding. Rules only ever leave
// here, so this never grants anything new.
func (c *targetConfigController) revokeUncovered(ctx context.Context, recorder events.Recorder) error {
	var grantable []rbacv1.PolicyRule
	switch role, err := c.grantableLister.Get(GrantableClusterRole); {
	case err == nil:
		grantable = role.Rules
	case !apierrors.IsNotFound(err):
		return err
	}
	rbac := c.kubeClient.RbacV1()
	ns := render.OperandNamespace
	clusterRoles, roles := c.kubeInformers.InformersFor("").Rbac().V1().ClusterRoles().Lister(), c.kubeInformers.InformersFor(ns).Rbac().V1().Roles().Lister().Roles(ns)
	return errors.Join(
		revokeFrom(grantable, "ClusterRole", render.ExtraRBACName,
			func() (*rbacv1.ClusterRole, error) { return clusterRoles.Get(render.ExtraRBACName) },
			func(r *rbacv1.ClusterRole) *[]rbacv1.PolicyRule { return &r.Rules },
			func(r *rbacv1.ClusterRole) error {
				_, err := rbac.ClusterRoles().Update(ctx, r, metav1.UpdateOptions{})
				return err
			},
			func() error { return c.deleteExtraClusterRBAC(ctx, recorder) }, recorder),
		revokeFrom(grantable, "Role", ns+"/"+render.ExtraRBACName,
			func() (*rbacv1.Role, error) { return roles.Get(render.ExtraRBACName) },
			func(r *rbacv1.Role) *[]rbacv1.PolicyRule { return &r.Rules },
			func(r *rbacv1.Role) error {
				_, err := rbac.Roles(ns).Update(ctx, r, metav1.UpdateOptions{})
				return err
			},
			func() error { return c.deleteExtraRBAC(ctx, recorder) }, recorder),
	)
}

// revokeFrom keeps in the cached role only the rules grantable covers:
// updated, or deleted with its binding when none is left.
func revokeFrom[T interface{ DeepCopy() T }](grantable []rbacv1.PolicyRule, kind, name string, get func() (T, error),
	rules func(T) *[]rbacv1.PolicyRule, update func(T) error, deleteAll func() error, recorder events.Recorder) error {
	live, err := get()
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	kept, revoked := coveredRules(*rules(live), grantable)
	switch {
	case !revoked:
		return nil
	case len(kept) == 0:
		return deleteAll()
	}
	trimmed := live.DeepCopy()
	*rules(trimmed) = kept
	if err := update(trimmed); err != nil {
		return fmt.Errorf("revoking rules of %s %s that ClusterRole %s no longer holds: %w", kind, name, GrantableClusterRole, err)
	}
	recorder.Warningf("RBACRevoked", "Removed from %s %s the rules ClusterRole %s no longer holds", kind, name, GrantableClusterRole)
	return nil
}

// coveredRules returns the rules grantable covers, and whether any was left out.
func coveredRules(rules, grantable []rbacv1.PolicyRule) ([]rbacv1.PolicyRule, bool) {
	var kept []rbacv1.PolicyRule
	for _, rule := range rules {
		// A rule edited into the live role past the bound is revoked unread.
		if render.RuleExpansion(rule) > render.MaxRuleExpansion {
			continue
		}
		if covered, _ := rbacvalidation.Covers(grantable, []rbacv1.PolicyRule{rule}); covered {
			kept = append(kept, rule)
		}
	}
	return kept, len(kept) < len(rules)
}
