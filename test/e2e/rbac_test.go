package e2e

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// operandUser is who the scheduler pod, and every sidecar in it, is.
const operandUser = "system:serviceaccount:" + render.OperandNamespace + ":" + render.OperandName

// TestSidecarRBAC: spec.rbac gives the scheduler pod's ServiceAccount, which its
// sidecars share, exactly the rules asked for (the KubeFlux example: its Fluxion
// sidecar lists and watches nodes and pods), checked with `kubectl auth can-i
// --as`; a rule beyond what the operator may grant (its -grantable ClusterRole)
// is refused before anything is applied and reported in a Degraded condition
// that names it, while the last good grants stay.
func TestSidecarRBAC(t *testing.T) {
	c := needCluster(t)
	c.applyExample(t, "kubeflux")
	c.waitReconciled(t)

	for _, check := range []struct {
		verb, resource string
		allowed        bool
	}{
		{"list", "nodes", true},
		{"watch", "nodes", true},
		{"list", "pods", true},
		{"watch", "pods", true},
		// Not granted, neither by spec.rbac nor by system:kube-scheduler.
		{"list", "secrets", false},
		{"update", "nodes", false},
		{"create", "pods", false},
	} {
		c.expectCanI(t, check.verb, check.resource, check.allowed)
	}

	// Rules beyond the grantable ClusterRole are refused before anything is
	// applied: secrets, which the operator does not hold either, and pods
	// create, which it holds (for Simulators), so the API server alone would
	// have let it through.
	for _, refused := range []struct {
		rule        rbacv1.PolicyRule
		verb, words string
	}{
		{rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}}, "list", "list secrets"},
		{rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"create"}}, "create", "create pods"},
	} {
		c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.RBAC.ClusterRules = append(s.RBAC.ClusterRules, refused.rule)
		})
		framework.WaitForWithin(context.Background(), t, reconcileTimeout, "the SecondaryScheduler to be Degraded by the refused rule", func() (bool, error) {
			ss, err := c.getCR(context.Background())
			if err != nil {
				return false, err
			}
			if err := hasCondition(ss.Status.Conditions, "Degraded", operatorv1.ConditionTrue); err != nil {
				return false, err
			}
			cond := condition(ss.Status.Conditions, "TargetConfigControllerDegraded")
			if cond == nil || cond.Status != operatorv1.ConditionTrue {
				return false, nil
			}
			if cond.Reason != "RBACRefused" || !strings.Contains(cond.Message, refused.words) ||
				!strings.Contains(cond.Message, "secondary-scheduler-operator-grantable") {
				t.Fatalf("TargetConfigControllerDegraded does not name the refused rule and what to do: %s: %s", cond.Reason, cond.Message)
			}
			t.Logf("TargetConfigControllerDegraded: %s: %s", cond.Reason, cond.Message)
			return true, nil
		})
		c.expectCanI(t, refused.verb, refused.rule.Resources[0], false)
		c.expectCanI(t, "list", "nodes", true)

		// Without the rule: no longer Degraded.
		c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.RBAC.ClusterRules = slices.DeleteFunc(s.RBAC.ClusterRules, func(r rbacv1.PolicyRule) bool {
				return reflect.DeepEqual(r, refused.rule)
			})
		})
		c.waitReconciled(t)
	}
}

// expectCanI runs `kubectl auth can-i VERB RESOURCE --as=<operand user>`
// (cluster-wide) and checks its answer.
func (c *cluster) expectCanI(t *testing.T, verb, resource string, allowed bool) {
	t.Helper()
	want := "no"
	if allowed {
		want = "yes"
	}
	// RBAC changes reach the authorizer's cache within a moment: poll.
	var got string
	framework.WaitForWithin(context.Background(), t, reconcileTimeout/4, "kubectl auth can-i "+verb+" "+resource+" --as="+operandUser+" to say "+want,
		func() (bool, error) {
			out, _ := c.kubectl("auth", "can-i", verb, resource, "--all-namespaces", "--as="+operandUser)
			got = strings.TrimSpace(out)
			if got != want {
				return false, fmt.Errorf("%q", got)
			}
			return true, nil
		})
	t.Logf("kubectl auth can-i %s %s --as=%s: %s", verb, resource, operandUser, got)
}
