package e2e

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestSimulatorsAggregateIntoNamespaceRoles: kube-controller-manager's ClusterRole
// aggregation puts the shipped Simulator roles into the built-in view, edit and
// admin roles, so that a namespace user bound to edit or admin uses Simulators
// (with a podTemplate and ingressFrom: those roles may create pods and
// NetworkPolicies anyway) and one bound to view only reads them.
func TestSimulatorsAggregateIntoNamespaceRoles(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	ns := c.createNamespace(t, "sim-roles")
	as := map[string]*framework.Clients{}
	for _, role := range []string{"view", "edit", "admin"} {
		binding := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "team-" + role}},
		}
		if _, err := c.admin.Kube.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cfg := rest.CopyConfig(c.config)
		cfg.Impersonate = rest.ImpersonationConfig{UserName: "team-" + role, Groups: []string{"system:authenticated"}}
		as[role] = framework.MustClients(t, cfg)
	}
	simulators := func(role string) interface {
		Create(context.Context, *simv1alpha1.Simulator, metav1.CreateOptions) (*simv1alpha1.Simulator, error)
		List(context.Context, metav1.ListOptions) (*simv1alpha1.SimulatorList, error)
	} {
		return as[role].Operator.SimulationV1alpha1().Simulators(ns)
	}
	full := func(name string) *simv1alpha1.Simulator {
		return &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: simv1alpha1.SimulatorSpec{
			IngressFrom: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}}},
			PodTemplate: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{}, NodeSelector: map[string]string{"type": "kwok"}}},
		}}
	}

	// The aggregation controller fills the roles shortly after they change.
	for _, role := range []string{"edit", "admin"} {
		framework.WaitForWithin(ctx, t, reconcileTimeout, role+" to create Simulators with a podTemplate and ingressFrom", func() (bool, error) {
			_, err := simulators(role).Create(ctx, full("by-"+role), metav1.CreateOptions{})
			if apierrors.IsForbidden(err) {
				return false, err
			}
			return err == nil, err
		})
	}
	if _, err := simulators("view").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("view cannot list Simulators: %v", err)
	}
	if _, err := simulators("view").Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "by-view"}}, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("view created a Simulator: %v", err)
	}

	// The operator gives the Simulator its NetworkPolicy, and the garbage
	// collector deletes it with the Simulator.
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the NetworkPolicy of by-edit", func() (bool, error) {
		p, err := c.admin.Kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, "by-edit", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if len(p.Spec.Ingress) != 1 || len(p.Spec.Ingress[0].From) != 2 {
			return false, fmt.Errorf("ingress %+v: want the namespace and every namespace", p.Spec.Ingress)
		}
		return true, nil
	})
	if err := as["edit"].Operator.SimulationV1alpha1().Simulators(ns).Delete(ctx, "by-edit", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the garbage collector to delete the NetworkPolicy of by-edit", func() (bool, error) {
		_, err := c.admin.Kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, "by-edit", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}
