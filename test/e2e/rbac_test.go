package e2e

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// operandUser is who the scheduler pod, and every sidecar in it, is.
const operandUser = "system:serviceaccount:" + names.OperandNamespace + ":" + names.OperandName

// TestSidecarRBAC: spec.rbac gives the scheduler pod's ServiceAccount, which its
// sidecars share, exactly the rules asked for (the KubeFlux example: its Fluxion
// sidecar lists and watches nodes and pods), checked with `kubectl auth can-i
// --as`, a rule that only spec.rbac grants held and revoked with it; a rule beyond what the operator may grant (its -grantable ClusterRole)
// is refused before anything is applied and reported in a Degraded condition
// that names it, while the last good grants stay.
func TestSidecarRBAC(t *testing.T) {
	c := needCluster(t)
	c.applyExample(t, "kubeflux")
	d := c.waitReconciled(t)

	// The token reaches only the containers that mount it: the scheduler, and
	// Fluxion, which the example has mount it.
	pod := d.Spec.Template.Spec
	if a := pod.AutomountServiceAccountToken; a == nil || *a {
		t.Errorf("the scheduler pod automounts its token (automountServiceAccountToken %v)", a)
	}
	for _, ctr := range pod.Containers {
		if !slices.ContainsFunc(ctr.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == secondaryschedulerv1.APIAccessVolumeName }) {
			t.Errorf("container %s does not mount the token volume %s", ctr.Name, secondaryschedulerv1.APIAccessVolumeName)
		}
	}

	for _, check := range []struct {
		verb, resource string
		allowed        bool
	}{
		// What Fluxion needs (the scheduler's own ClusterRole holds it too).
		{"list", "nodes", true},
		{"watch", "pods", true},
		// Not granted, neither by spec.rbac nor by the scheduler's ClusterRole.
		{"list", "secrets", false},
		{"update", "nodes", false},
		{"create", "pods", false},
	} {
		c.expectCanI(t, check.verb, check.resource, check.allowed)
	}

	// A rule only spec.rbac grants: not held before, held with it, revoked
	// when it goes, so the positive answer is spec.rbac's own.
	onlyExtra := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}
	c.expectCanI(t, "get", "configmaps", false)
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.RBAC.ClusterRules = append(s.RBAC.ClusterRules, onlyExtra)
	})
	c.expectCanI(t, "get", "configmaps", true)
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.RBAC.ClusterRules = slices.DeleteFunc(s.RBAC.ClusterRules, func(r rbacv1.PolicyRule) bool { return reflect.DeepEqual(r, onlyExtra) })
	})
	c.expectCanI(t, "get", "configmaps", false)

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

// TestOperandCannotTakeTheDefaultSchedulersLease: the scheduler's identity holds
// its own lease and nothing of the default scheduler's, asked of the API
// server by kubectl as that identity.
func TestOperandCannotTakeTheDefaultSchedulersLease(t *testing.T) {
	c := needCluster(t)
	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)
	for _, check := range []struct {
		verb, lease, namespace string
		allowed                bool
	}{
		{"update", "kube-scheduler", "kube-system", false},
		{"get", "kube-scheduler", "kube-system", false},
		{"update", "kube-scheduler", "openshift-kube-scheduler", false},
		{"update", names.OperandName, names.OperandNamespace, true},
		{"get", names.OperandName, names.OperandNamespace, true},
	} {
		want := map[bool]string{true: "yes", false: "no"}[check.allowed]
		args := []string{"auth", "can-i", check.verb, "leases.coordination.k8s.io/" + check.lease, "-n", check.namespace, "--as=" + operandUser}
		framework.WaitForWithin(context.Background(), t, reconcileTimeout/4, "kubectl "+strings.Join(args, " ")+" to say "+want, func() (bool, error) {
			out, _ := c.kubectl(args...)
			if got := strings.TrimSpace(out); got != want {
				return false, fmt.Errorf("%q", got)
			}
			return true, nil
		})
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

// TestOwnedFlagsAreRefused: flags in spec.schedulerContainer.args that would
// take the default scheduler's lease or another config file never reach the
// running Deployment; Degraded names the argument.
func TestOwnedFlagsAreRefused(t *testing.T) {
	c := needCluster(t)
	c.applyExample(t, "bin-packing")
	before := c.waitReconciled(t)
	ctx := context.Background()
	for _, tc := range []struct {
		args  []string
		words string
	}{
		{[]string{"--leader-elect-resource-name=kube-scheduler", "--leader-elect-resource-namespace=kube-system"},
			"spec.schedulerContainer.args[0]: --leader-elect-resource-name is the operator's"},
		{[]string{"-v=2", "--config=/etc/other/config.yaml"}, "spec.schedulerContainer.args[1]: --config is the operator's"},
	} {
		c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{Args: tc.args}
		})
		framework.WaitForWithin(ctx, t, reconcileTimeout, "TargetConfigControllerDegraded to name "+tc.args[0], func() (bool, error) {
			ss, err := c.getCR(ctx)
			if err != nil {
				return false, err
			}
			cond := condition(ss.Status.Conditions, "TargetConfigControllerDegraded")
			return cond != nil && cond.Status == operatorv1.ConditionTrue && strings.Contains(cond.Message, tc.words), nil
		})
		d, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Generation != before.Generation {
			t.Errorf("the Deployment changed (generation %d, was %d) for refused args %q", d.Generation, before.Generation, tc.args)
		}
	}
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.SchedulerContainer = nil })
	c.waitReconciled(t)
}
