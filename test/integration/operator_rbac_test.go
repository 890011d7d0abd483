package integration

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// access is one request the operator's ServiceAccount may or may not make.
type access struct {
	verb, group, resource, subresource, namespace, name string
}

// TestOperatorRBACBounds asks the API server, as the operator's ServiceAccount
// bound to exactly what manifests/ ship (SelfSubjectAccessReview), what it may
// do: the rights its controllers use, and none of the neighbouring ones
// (docs/security.md, "What the operator holds").
func TestOperatorRBACBounds(t *testing.T) {
	env := framework.Shared(t)
	operator := framework.MustClients(t, env.OperatorConfig(t))
	const operand, system, own = "openshift-secondary-scheduler", "kube-system", framework.OperatorNamespace

	allowed := []access{
		{verb: "update", group: "operator.openshift.io", resource: "secondaryschedulers", name: "cluster"},
		{verb: "patch", group: "operator.openshift.io", resource: "secondaryschedulers", subresource: "status", name: "cluster"},
		{verb: "create", resource: "pods", namespace: "team-a"},
		{verb: "delete", resource: "pods", namespace: "team-a", name: "sim-0123456789"},
		{verb: "update", resource: "services", namespace: "team-a", name: "sim"},
		{verb: "create", group: "networking.k8s.io", resource: "networkpolicies", namespace: "team-a"},
		{verb: "create", group: "apps", resource: "deployments", namespace: operand},
		{verb: "patch", group: "apps", resource: "deployments", namespace: operand, name: "secondary-scheduler"},
		{verb: "delete", resource: "configmaps", namespace: operand, name: "secondary-scheduler-config-0123456789ab"},
		{verb: "list", resource: "secrets", namespace: operand},
		{verb: "delete", resource: "services", namespace: operand, name: "secondary-scheduler"},
		{verb: "update", group: "rbac.authorization.k8s.io", resource: "roles", namespace: operand, name: "secondary-scheduler-extra"},
		{verb: "update", group: "rbac.authorization.k8s.io", resource: "rolebindings", namespace: system,
			name: "secondary-scheduler-extension-apiserver-authentication-reader"},
		{verb: "bind", group: "rbac.authorization.k8s.io", resource: "roles", namespace: system, name: "extension-apiserver-authentication-reader"},
		{verb: "bind", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "secondary-scheduler-operand"},
		{verb: "delete", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings", name: "secondary-scheduler-system-kube-scheduler"},
		{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: own, name: "secondary-scheduler-operator-lock"},
		{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: operand, name: "secondary-scheduler"},
		{verb: "delete", group: "config.openshift.io", resource: "clusteroperators", name: "secondary-scheduler"},
		// A trial's snapshot.
		{verb: "list", group: "resource.k8s.io", resource: "resourceclaimtemplates"},
		{verb: "list", group: "scheduling.k8s.io", resource: "podgroups"},
	}
	refused := []access{
		// Namespaced writes only in the operand namespace.
		{verb: "create", group: "apps", resource: "deployments", namespace: "default"},
		{verb: "update", group: "apps", resource: "deployments", namespace: system, name: "secondary-scheduler"},
		// The Deployment is written as a patch (deploymentapply.Apply), never updated.
		{verb: "update", group: "apps", resource: "deployments", namespace: operand, name: "secondary-scheduler"},
		{verb: "create", resource: "configmaps", namespace: system},
		{verb: "delete", resource: "configmaps", namespace: "team-a", name: "user-config"},
		{verb: "create", resource: "serviceaccounts", namespace: "team-a"},
		{verb: "get", resource: "secrets", namespace: "team-a", name: "db-credentials"},
		{verb: "list", resource: "secrets", namespace: system},
		// RBAC objects it does not own, and roles it does not bind.
		{verb: "update", group: "rbac.authorization.k8s.io", resource: "rolebindings", namespace: system, name: "system:controller:bootstrap-signer"},
		{verb: "delete", group: "rbac.authorization.k8s.io", resource: "roles", namespace: operand, name: "someone-elses"},
		{verb: "update", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "cluster-admin"},
		// The system scheduler roles hold the default scheduler's lock: not bound any more.
		{verb: "bind", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "system:kube-scheduler"},
		{verb: "bind", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "system:volume-scheduler"},
		// Its scheduler's ClusterRole is the cluster-version operator's to write.
		{verb: "update", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "secondary-scheduler-operand"},
		{verb: "delete", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings", name: "cluster-admin"},
		{verb: "bind", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "cluster-admin"},
		{verb: "escalate", group: "rbac.authorization.k8s.io", resource: "clusterroles", name: "secondary-scheduler-extra"},
		{verb: "create", group: "rbac.authorization.k8s.io", resource: "roles", namespace: "team-a"},
		// Pods and Services of others, namespaces, leases of others.
		{verb: "update", resource: "pods", namespace: "team-a", name: "app"},
		{verb: "patch", resource: "pods", namespace: "team-a", name: "app"},
		{verb: "create", resource: "pods", subresource: "exec", namespace: "team-a", name: "app"},
		{verb: "delete", resource: "services", namespace: "team-a", name: "app"},
		{verb: "delete", group: "networking.k8s.io", resource: "networkpolicies", namespace: "team-a", name: "deny-all"},
		{verb: "delete", resource: "namespaces", name: operand},
		{verb: "update", resource: "namespaces", name: "team-a"},
		{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: system, name: "kube-scheduler"},
		{verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: operand, name: "someone-elses"},
		// Its own API: Simulators are written by their users, status by it.
		{verb: "update", group: "simulation.kube-scheduler-simulator.x-k8s.io", resource: "simulators", namespace: "team-a", name: "sim"},
		{verb: "delete", group: "operator.openshift.io", resource: "secondaryschedulers", name: "cluster"},
		{verb: "update", group: "config.openshift.io", resource: "clusteroperators", name: "kube-scheduler"},
		{verb: "update", group: "config.openshift.io", resource: "schedulers", name: "cluster"},
		{verb: "get", group: "config.openshift.io", resource: "infrastructures", name: "other"},
		// A snapshot lists, once: no watch, no read of one object, no write
		// (the grantable ClusterRole's reads of claims, slices and classes aside).
		{verb: "watch", group: "resource.k8s.io", resource: "resourceclaimtemplates"},
		{verb: "get", group: "scheduling.k8s.io", resource: "podgroups", namespace: "team-a", name: "gang"},
		{verb: "update", group: "resource.k8s.io", resource: "resourceclaims", subresource: "status", namespace: "team-a", name: "gpu"},
		{verb: "create", group: "scheduling.k8s.io", resource: "workloads", namespace: "team-a"},
	}
	check := func(a access, want bool) {
		t.Helper()
		review, err := operator.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace, Name: a.name,
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if review.Status.Allowed != want {
			t.Errorf("%+v: allowed=%v, want %v (%s)", a, review.Status.Allowed, want, review.Status.Reason)
		}
	}
	for _, a := range allowed {
		check(a, true)
	}
	for _, a := range refused {
		check(a, false)
	}
}
