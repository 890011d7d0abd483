package render

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	rbacvalidation "k8s.io/component-helpers/auth/rbac/validation"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// Ceiling is what spec.rbac is held to.
type Ceiling struct {
	// Role is ClusterRole GrantableClusterRole, nil when it does not exist
	// (then spec.rbac can grant nothing).
	Role *rbacv1.ClusterRole
}

// RBACRefusedError lists the spec.rbac rules the ceiling does not cover. The
// input is well-formed; a cluster administrator or the user has to act.
type RBACRefusedError struct {
	Problems []string
	// Ceiling is the one judged by: what stays granted is held to it.
	Ceiling Ceiling
}

func (e *RBACRefusedError) Error() string { return strings.Join(e.Problems, "\n") }

// judgeCeiling names every spec.rbac rule the ceiling does not cover, with
// what is missing. Namespaced rules are held to the same ceiling: the role
// lists what the operator may hand out anywhere.
func judgeCeiling(ss *secondaryschedulerv1.SecondaryScheduler, ceiling *Ceiling) error {
	r := ss.Spec.RBAC
	if ceiling == nil || r == nil || len(r.ClusterRules)+len(r.NamespacedRules) == 0 {
		return nil
	}
	if ceiling.Role == nil {
		return &RBACRefusedError{Ceiling: *ceiling, Problems: []string{fmt.Sprintf("ClusterRole %s does not exist, so spec.rbac can grant nothing: "+
			"restore it (it ships in manifests/)", names.GrantableClusterRole)}}
	}
	src := "SecondaryScheduler " + ss.Name
	problems := append(uncovered(src, "spec.rbac.clusterRules", r.ClusterRules, ceiling.Role.Rules),
		uncovered(src, "spec.rbac.namespacedRules", r.NamespacedRules, ceiling.Role.Rules)...)
	if len(problems) == 0 {
		return nil
	}
	return &RBACRefusedError{Problems: problems, Ceiling: *ceiling}
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
				src, field, i, strings.Join(parts, ", "), names.GrantableClusterRole, names.GrantableClusterRole))
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

// CoveredRules returns the rules the ceiling covers, and whether any was
// left out: what stays of a granted role once the ceiling narrows. A rule
// edited into a live role past MaxRuleExpansion is left out unread.
func CoveredRules(rules []rbacv1.PolicyRule, ceiling Ceiling) ([]rbacv1.PolicyRule, bool) {
	var grantable []rbacv1.PolicyRule
	if ceiling.Role != nil {
		grantable = ceiling.Role.Rules
	}
	var kept []rbacv1.PolicyRule
	for _, rule := range rules {
		if RuleExpansion(rule) > MaxRuleExpansion {
			continue
		}
		if covered, _ := rbacvalidation.Covers(grantable, []rbacv1.PolicyRule{rule}); covered {
			kept = append(kept, rule)
		}
	}
	return kept, len(kept) < len(rules)
}
