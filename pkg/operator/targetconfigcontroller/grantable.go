package targetconfigcontroller

import (
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	rbacvalidation "k8s.io/component-helpers/auth/rbac/validation"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
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
