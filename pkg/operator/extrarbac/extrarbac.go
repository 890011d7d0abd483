// Package extrarbac writes the ClusterRole, Role and bindings that carry
// spec.rbac: applied as render.Render gives them, deleted once spec.rbac
// drops them, and trimmed to the ceiling when it narrows.
package extrarbac

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/cached"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// Writer writes through kube and reads the caches of kubeInformers.
type Writer struct {
	kube                kubernetes.Interface
	clusterRoles        rbacv1listers.ClusterRoleLister
	clusterRoleBindings rbacv1listers.ClusterRoleBindingLister
	roles               rbacv1listers.RoleNamespaceLister
	roleBindings        rbacv1listers.RoleBindingNamespaceLister
}

// NewWriter reads the cluster's and the operand namespace's informers of kubeInformers.
func NewWriter(kube kubernetes.Interface, kubeInformers v1helpers.KubeInformersForNamespaces) Writer {
	cluster, operand := kubeInformers.InformersFor("").Rbac().V1(), kubeInformers.InformersFor(names.OperandNamespace).Rbac().V1()
	return Writer{
		kube:                kube,
		clusterRoles:        cluster.ClusterRoles().Lister(),
		clusterRoleBindings: cluster.ClusterRoleBindings().Lister(),
		roles:               operand.Roles().Lister().Roles(names.OperandNamespace),
		roleBindings:        operand.RoleBindings().Lister().RoleBindings(names.OperandNamespace),
	}
}

// Apply applies the roles and bindings extra has, each role before its
// binding, and deletes the pairs it has not.
func (w Writer) Apply(ctx context.Context, recorder events.Recorder, extra render.ExtraRBAC) error {
	rbac := w.kube.RbacV1()
	var errs []error
	if r, b := extra.ClusterRole, extra.ClusterRoleBinding; r != nil {
		if _, _, err := resourceapply.ApplyClusterRole(ctx, rbac, recorder, r); err != nil {
			errs = append(errs, fmt.Errorf("ClusterRole %s (spec.rbac.clusterRules): %w", r.Name, err))
		} else if _, _, err := resourceapply.ApplyClusterRoleBinding(ctx, rbac, recorder, b); err != nil {
			errs = append(errs, fmt.Errorf("ClusterRoleBinding %s: %w", b.Name, err))
		}
	} else {
		errs = append(errs, w.deleteClusterScoped(ctx, recorder))
	}
	if r, b := extra.Role, extra.RoleBinding; r != nil {
		if _, _, err := resourceapply.ApplyRole(ctx, rbac, recorder, r); err != nil {
			errs = append(errs, fmt.Errorf("Role %s/%s (spec.rbac.namespacedRules): %w", r.Namespace, r.Name, err))
		} else if _, _, err := resourceapply.ApplyRoleBinding(ctx, rbac, recorder, b); err != nil {
			errs = append(errs, fmt.Errorf("RoleBinding %s/%s: %w", b.Namespace, b.Name, err))
		}
	} else {
		errs = append(errs, w.deleteNamespaced(ctx, recorder))
	}
	return errors.Join(errs...)
}

// Delete deletes every role and binding of spec.rbac.
func (w Writer) Delete(ctx context.Context, recorder events.Recorder) error {
	return errors.Join(w.deleteNamespaced(ctx, recorder), w.deleteClusterScoped(ctx, recorder))
}

func (w Writer) deleteClusterScoped(ctx context.Context, recorder events.Recorder) error {
	rbac, name := w.kube.RbacV1(), names.ExtraRBACName
	return errors.Join(
		cached.Delete(ctx, recorder, "ClusterRoleBinding", "", name, w.clusterRoleBindings.Get, rbac.ClusterRoleBindings()),
		cached.Delete(ctx, recorder, "ClusterRole", "", name, w.clusterRoles.Get, rbac.ClusterRoles()),
	)
}

func (w Writer) deleteNamespaced(ctx context.Context, recorder events.Recorder) error {
	rbac, ns, name := w.kube.RbacV1(), names.OperandNamespace, names.ExtraRBACName
	return errors.Join(
		cached.Delete(ctx, recorder, "RoleBinding", ns, name, w.roleBindings.Get, rbac.RoleBindings(ns)),
		cached.Delete(ctx, recorder, "Role", ns, name, w.roles.Get, rbac.Roles(ns)),
	)
}

// Revoke takes out of the applied roles every rule the ceiling no longer
// covers: narrowing the ceiling revokes what was granted under it, even while
// the rest of the spec waits for a fix. A role left with no rule is deleted
// with its binding. Rules only ever leave here, so this never grants anything.
func (w Writer) Revoke(ctx context.Context, recorder events.Recorder, ceiling render.Ceiling) error {
	rbac, ns := w.kube.RbacV1(), names.OperandNamespace
	var errs []error
	if role, err := cached.Get(w.clusterRoles.Get, names.ExtraRBACName); err != nil || role == nil {
		errs = append(errs, err)
	} else if trimmed, revoke := trim(role.Rules, ceiling); revoke {
		errs = append(errs, revoked(recorder, "ClusterRole "+role.Name, trimmed == nil, func() error {
			if trimmed == nil {
				return w.deleteClusterScoped(ctx, recorder)
			}
			updated := role.DeepCopy()
			updated.Rules = trimmed
			_, err := rbac.ClusterRoles().Update(ctx, updated, metav1.UpdateOptions{})
			return err
		}))
	}
	if role, err := cached.Get(w.roles.Get, names.ExtraRBACName); err != nil || role == nil {
		errs = append(errs, err)
	} else if trimmed, revoke := trim(role.Rules, ceiling); revoke {
		errs = append(errs, revoked(recorder, "Role "+ns+"/"+role.Name, trimmed == nil, func() error {
			if trimmed == nil {
				return w.deleteNamespaced(ctx, recorder)
			}
			updated := role.DeepCopy()
			updated.Rules = trimmed
			_, err := rbac.Roles(ns).Update(ctx, updated, metav1.UpdateOptions{})
			return err
		}))
	}
	return errors.Join(errs...)
}

// trim is the rules the ceiling covers (nil when none), and whether any goes.
func trim(rules []rbacv1.PolicyRule, ceiling render.Ceiling) ([]rbacv1.PolicyRule, bool) {
	kept, revoke := render.CoveredRules(rules, ceiling)
	if len(kept) == 0 {
		kept = nil
	}
	return kept, revoke
}

// revoked runs write and reports the revocation.
func revoked(recorder events.Recorder, what string, all bool, write func() error) error {
	if err := write(); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("revoking rules of %s that ClusterRole %s no longer holds: %w", what, names.GrantableClusterRole, err)
	}
	if !all {
		recorder.Warningf("RBACRevoked", "Removed from %s the rules ClusterRole %s no longer holds", what, names.GrantableClusterRole)
	}
	return nil
}

// RefusedMessage turns the API server's escalation refusal into what to do.
func RefusedMessage(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "attempting to grant RBAC permissions not currently held") {
		return msg + "\nThe operator can grant only rules it holds itself: remove the rule from spec.rbac, " +
			"or add it to the operator's ClusterRole " + names.GrantableClusterRole + ". The running scheduler is left as it is."
	}
	return msg + "\nThe running scheduler is left as it is."
}
