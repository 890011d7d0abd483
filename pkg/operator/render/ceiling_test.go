package render

import (
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestUncoveredRules(t *testing.T) {
	grantable := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{"scheduling.x-k8s.io"}, Resources: []string{"podgroups"}, Verbs: []string{"get", "list", "watch", "update"}},
	}
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		want string // "" when covered
	}{
		{"covered", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}}, ""},
		{"covered across rules", rbacv1.PolicyRule{APIGroups: []string{"scheduling.x-k8s.io"}, Resources: []string{"podgroups"}, Verbs: []string{"update"}}, ""},
		{"pods create", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"create", "list"}},
			"spec.rbac.clusterRules[0]: grants create pods, which ClusterRole secondary-scheduler-operator-grantable does not hold"},
		{"wildcard verbs", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"*"}},
			"grants * nodes"},
		{"secrets", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: []string{"s"}},
			"grants get secrets named s"},
		{"subresource", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods/exec"}, Verbs: []string{"get"}}, "grants get pods/exec"},
		{"other group", rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"delete"}},
			"grants delete deployments.apps"},
		{"non-resource URL", rbacv1.PolicyRule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}, "grants get on /metrics"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := uncovered("SecondaryScheduler cluster", "spec.rbac.clusterRules", []rbacv1.PolicyRule{tc.rule}, grantable)
			if tc.want == "" {
				if len(got) > 0 {
					t.Errorf("refused a covered rule: %v", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Errorf("got %q, want one problem containing %q", got, tc.want)
			}
		})
	}
}
