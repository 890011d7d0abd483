package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	rbacvalidation "k8s.io/component-helpers/auth/rbac/validation"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// deliberateOmissions are the rules of system:kube-scheduler that the
// operand's ClusterRole leaves out on purpose, each with its reason.
var deliberateOmissions = []struct {
	rule rbacv1.PolicyRule
	why  string
}{
	{rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{"kube-scheduler"},
		Verbs: []string{"get", "update", "list", "watch"}},
		"the default scheduler's lock, in every namespace"},
	{rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"create"}},
		"creating leases anywhere: the scheduler's Role creates its own lease in its namespace"},
	{rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leasecandidates"},
		Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}},
		"coordinated leader election candidates in every namespace: the scheduler elects its leader on the operator's lease alone"},
}

// TestOperandRoleCoversTheSystemSchedulerRoles reads system:kube-scheduler and
// system:volume-scheduler from the API server: every rule they hold is in the
// operand's ClusterRole or a deliberate omission, so a Kubernetes release that
// gives the scheduler a new permission fails here rather than starving it.
func TestOperandRoleCoversTheSystemSchedulerRoles(t *testing.T) {
	env := framework.Shared(t)
	env.ApplyFiles(t, "manifests/0000_50_secondary-scheduler-operator_04_clusterrole-operand.yaml")
	ctx := context.Background()
	rbac := env.Admin.Kube.RbacV1().ClusterRoles()
	ours, err := rbac.Get(ctx, names.OperandClusterRoleName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var system []rbacv1.PolicyRule
	for _, name := range []string{"system:kube-scheduler", "system:volume-scheduler"} {
		role, err := rbac.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		system = append(system, role.Rules...)
		allowed := append([]rbacv1.PolicyRule{}, ours.Rules...)
		for _, o := range deliberateOmissions {
			allowed = append(allowed, o.rule)
		}
		for i, rule := range role.Rules {
			if covered, missing := rbacvalidation.Covers(allowed, []rbacv1.PolicyRule{rule}); !covered {
				t.Errorf("ClusterRole %s rule %d grants %v, which ClusterRole %s neither holds nor leaves out on purpose: "+
					"add it to manifests/0000_50_secondary-scheduler-operator_04_clusterrole-operand.yaml, or to deliberateOmissions with its reason",
					name, i, missing, names.OperandClusterRoleName)
			}
		}
	}
	for _, o := range deliberateOmissions {
		if covered, _ := rbacvalidation.Covers(system, []rbacv1.PolicyRule{o.rule}); !covered {
			t.Errorf("deliberate omission %v (%s) is no longer in the system roles: remove it from the table", o.rule, o.why)
		}
		if covered, _ := rbacvalidation.Covers(ours.Rules, []rbacv1.PolicyRule{o.rule}); covered {
			t.Errorf("deliberate omission %v (%s) is granted by %s all the same", o.rule, o.why, names.OperandClusterRoleName)
		}
	}
}

// TestOperandIdentity asks the API server, as the scheduler's ServiceAccount
// (a real token), what the operator's bindings let it do: everything a
// scheduler does, its own lease, and nothing of the default scheduler's lock.
// The bindings of earlier releases to the system roles are deleted.
func TestOperandIdentity(t *testing.T) {
	ctx := context.Background()
	o := startOperator(t)
	kube := o.admin.Kube
	// What an earlier release left: bindings to the system roles.
	for _, name := range names.FormerOperandBindingNames {
		b := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{names.ManagedByLabel: names.ManagedByValue}},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:kube-scheduler"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: names.OperandName, Namespace: operandNS}},
		}
		if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = kube.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{}) })
	}
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})
	framework.WaitFor(ctx, t, "the bindings of earlier releases to be deleted", func() (bool, error) {
		for _, name := range names.FormerOperandBindingNames {
			if _, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, fmt.Errorf("ClusterRoleBinding %s still there (%v)", name, err)
			}
		}
		return true, nil
	})
	framework.WaitFor(ctx, t, "the scheduler's bindings", func() (bool, error) {
		_, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, render.OperandBindingName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		_, err = kube.RbacV1().RoleBindings(operandNS).Get(ctx, "secondary-scheduler-leader-election", metav1.GetOptions{})
		return err == nil, err
	})
	scheduler := kubernetes.NewForConfigOrDie(o.env.ServiceAccountConfig(t, operandNS, names.OperandName))
	lease := func(ns, name, verb string) authorizationv1.ResourceAttributes {
		return authorizationv1.ResourceAttributes{Namespace: ns, Group: "coordination.k8s.io", Resource: "leases", Name: name, Verb: verb}
	}
	for _, c := range []struct {
		attrs authorizationv1.ResourceAttributes
		want  bool
	}{
		{lease("kube-system", "kube-scheduler", "update"), false},
		{lease("kube-system", "kube-scheduler", "get"), false},
		{lease("openshift-kube-scheduler", "kube-scheduler", "update"), false},
		{lease("kube-system", "", "create"), false},
		{lease(operandNS, "secondary-scheduler", "update"), true},
		{lease(operandNS, "secondary-scheduler", "get"), true},
		{lease(operandNS, "", "create"), true},
		{authorizationv1.ResourceAttributes{Resource: "pods", Subresource: "binding", Namespace: "any", Verb: "create"}, true},
		{authorizationv1.ResourceAttributes{Resource: "nodes", Verb: "watch"}, true},
		{authorizationv1.ResourceAttributes{Resource: "persistentvolumeclaims", Namespace: "any", Verb: "update"}, true},
		{authorizationv1.ResourceAttributes{Group: "storage.k8s.io", Resource: "storageclasses", Verb: "list"}, true},
		{authorizationv1.ResourceAttributes{Resource: "secrets", Namespace: operandNS, Verb: "get"}, false},
		{authorizationv1.ResourceAttributes{Resource: "endpoints", Namespace: "kube-system", Name: "kube-scheduler", Verb: "update"}, false},
	} {
		review, err := scheduler.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx,
			&authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &c.attrs}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed != c.want {
			t.Errorf("can the scheduler %s %s %s/%s (subresource %q)? %v, want %v", c.attrs.Verb, c.attrs.Resource, c.attrs.Namespace, c.attrs.Name,
				c.attrs.Subresource, review.Status.Allowed, c.want)
		}
	}
}

// TestNarrowingTheCeilingRevokes: rules granted through spec.rbac that the
// grantable ClusterRole no longer covers are taken away at once, the rest
// stay, and widening it again grants them back.
func TestNarrowingTheCeilingRevokes(t *testing.T) {
	ctx := context.Background()
	o := startOperator(t)
	kube := o.admin.Kube
	nodes := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}}
	configMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{
		RBAC: &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{nodes, configMaps}, NamespacedRules: []rbacv1.PolicyRule{configMaps}},
	})
	rulesOf := func() ([]rbacv1.PolicyRule, []rbacv1.PolicyRule, error) {
		cr, err := kube.RbacV1().ClusterRoles().Get(ctx, names.ExtraRBACName, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, nil, err
		}
		r, err2 := kube.RbacV1().Roles(operandNS).Get(ctx, names.ExtraRBACName, metav1.GetOptions{})
		if err2 != nil && !apierrors.IsNotFound(err2) {
			return nil, nil, err2
		}
		var c, n []rbacv1.PolicyRule
		if err == nil {
			c = cr.Rules
		}
		if err2 == nil {
			n = r.Rules
		}
		return c, n, nil
	}
	framework.WaitFor(ctx, t, "both rules to be granted", func() (bool, error) {
		c, n, err := rulesOf()
		return len(c) == 2 && len(n) == 1, err
	})

	grantable, err := kube.RbacV1().ClusterRoles().Get(ctx, "secondary-scheduler-operator-grantable", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	original := grantable.DeepCopy()
	t.Cleanup(func() {
		g, err := kube.RbacV1().ClusterRoles().Get(ctx, original.Name, metav1.GetOptions{})
		if err == nil {
			g.Rules = original.Rules
			_, err = kube.RbacV1().ClusterRoles().Update(ctx, g, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Errorf("restoring the grantable ClusterRole: %v", err)
		}
	})
	for i := range grantable.Rules {
		var kept []string
		for _, r := range grantable.Rules[i].Resources {
			if r != "configmaps" {
				kept = append(kept, r)
			}
		}
		grantable.Rules[i].Resources = kept
	}
	if grantable, err = kube.RbacV1().ClusterRoles().Update(ctx, grantable, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(ctx, t, "the configmaps rules to be revoked, the nodes rule kept", func() (bool, error) {
		c, n, err := rulesOf()
		if err != nil {
			return false, err
		}
		covered, _ := rbacvalidation.Covers(c, []rbacv1.PolicyRule{nodes})
		return len(c) == 1 && covered && len(n) == 0, nil
	})
	if _, err := kube.RbacV1().RoleBindings(operandNS).Get(ctx, names.ExtraRBACName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the RoleBinding of a Role left with no rule must go too: %v", err)
	}
	o.waitForDegraded(t, operatorv1.ConditionTrue, "spec.rbac.clusterRules[1]", "list configmaps", "revoked")
	scheduler := kubernetes.NewForConfigOrDie(o.env.ServiceAccountConfig(t, operandNS, names.OperandName))
	for _, ns := range []string{"default", operandNS} {
		review, err := scheduler.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: ns, Resource: "configmaps", Verb: "list"}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed {
			t.Errorf("the scheduler may still list configmaps in %s after the ceiling dropped them", ns)
		}
	}

	grantable.Rules = original.Rules
	if _, err := kube.RbacV1().ClusterRoles().Update(ctx, grantable, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(ctx, t, "both rules to be granted again", func() (bool, error) {
		c, n, err := rulesOf()
		return len(c) == 2 && len(n) == 1, err
	})
	o.waitForDegraded(t, operatorv1.ConditionFalse)
}

// TestOperandNamespacePodSecurityLabels: a Pod Security label removed from
// the operand namespace comes back; one an administrator changed stays, and
// the scheduler's user containers are held to the level it then enforces.
func TestOperandNamespacePodSecurityLabels(t *testing.T) {
	ctx := context.Background()
	o := startOperator(t)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})
	namespaces := o.admin.Kube.CoreV1().Namespaces()
	enforce := render.PodSecurityEnforceLabel
	label := func(value *string) {
		t.Helper()
		err := retry.RetryOnConflict(framework.ConflictBackoff, func() error {
			ns, err := namespaces.Get(ctx, operandNS, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if value == nil {
				delete(ns.Labels, enforce)
			} else {
				ns.Labels[enforce] = *value
			}
			_, err = namespaces.Update(ctx, ns, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	enforces := func(want string) func() (bool, error) {
		return func() (bool, error) {
			ns, err := namespaces.Get(ctx, operandNS, metav1.GetOptions{})
			return err == nil && ns.Labels[enforce] == want, err
		}
	}
	framework.WaitFor(ctx, t, "the operand namespace to enforce baseline", enforces("baseline"))
	label(nil)
	framework.WaitFor(ctx, t, "the enforce label to be put back", enforces("baseline"))

	restricted := "restricted"
	label(&restricted)
	t.Cleanup(func() { label(nil) })
	framework.Consistently(ctx, t, 2*time.Second, "the administrator's restricted to stay", enforces("restricted"))
	o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
		spec.Sidecars = []corev1.Container{{Name: "root", Image: "example.com/root:v1", SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](0)}}}
	})
	o.waitForDegraded(t, operatorv1.ConditionTrue, "spec.sidecars[0]", `Pod Security "restricted"`)
	o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.Sidecars = nil })
	o.waitForDegraded(t, operatorv1.ConditionFalse)
}
