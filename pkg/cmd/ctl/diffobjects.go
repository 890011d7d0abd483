package ctl

import (
	"context"
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// managementStateChanges is what managementState makes of the rendered
// objects: Managed and Force apply them; Unmanaged touches nothing; Removed
// deletes every one that exists but the namespace, which holds the user's
// ConfigMap. handled is false for Managed and Force.
func managementStateChanges(ctx context.Context, dyn dynamic.Interface, state operatorv1.ManagementState, objs *render.Objects) (lines []string, handled bool, err error) {
	switch state {
	case operatorv1.Unmanaged:
		return []string{"none: managementState is Unmanaged, so the operator changes nothing"}, true, nil
	case operatorv1.Removed:
	default:
		return nil, false, nil
	}
	for _, obj := range objs.All() {
		if _, ok := obj.(*corev1.Namespace); ok {
			continue
		}
		what, live, err := liveObject(ctx, dyn, obj)
		if err != nil {
			return nil, true, err
		}
		if live != nil {
			lines = append(lines, "- delete "+what+" (managementState Removed)")
		}
	}
	return lines, true, nil
}

// formerBindings lists the bindings of earlier releases to the system
// scheduler roles, which the operator deletes.
func formerBindings(ctx context.Context, kube kubernetes.Interface) ([]string, error) {
	var out []string
	for _, name := range names.FormerOperandBindingNames {
		switch _, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{}); {
		case err == nil:
			out = append(out, "- delete ClusterRoleBinding "+name+" (an earlier release's binding to the default scheduler's roles)")
		case !apierrors.IsNotFound(err):
			return nil, err
		}
	}
	return out, nil
}

// ownedFields are the fields of obj the operator sets, and what to call them.
// Labels count only as far as the operator sets them: others may add theirs.
func ownedFields(desired, live runtime.Object) (string, any, any) {
	switch d := desired.(type) {
	case *corev1.ConfigMap:
		return "data", d.Data, live.(*corev1.ConfigMap).Data
	case *rbacv1.ClusterRole:
		return "rules", d.Rules, live.(*rbacv1.ClusterRole).Rules
	case *rbacv1.Role:
		return "rules", d.Rules, live.(*rbacv1.Role).Rules
	case *rbacv1.ClusterRoleBinding:
		l := live.(*rbacv1.ClusterRoleBinding)
		return "subjects or roleRef", []any{d.Subjects, d.RoleRef}, []any{l.Subjects, l.RoleRef}
	case *rbacv1.RoleBinding:
		l := live.(*rbacv1.RoleBinding)
		return "subjects or roleRef", []any{d.Subjects, d.RoleRef}, []any{l.Subjects, l.RoleRef}
	case *corev1.Service:
		l := live.(*corev1.Service)
		return "ports, selector or type", []any{d.Spec.Ports, d.Spec.Selector, d.Spec.Type}, []any{l.Spec.Ports, l.Spec.Selector, l.Spec.Type}
	case *corev1.Namespace, *corev1.ServiceAccount:
		return "labels", nil, nil // compared by ownedLabels alone
	}
	return "", nil, nil
}

// ownedLabels names the labels desired sets that live lacks or holds with
// another value; "" when there is none.
func ownedLabels(desired, live metav1.Object) string {
	out := ""
	for k, v := range desired.GetLabels() {
		if got, ok := live.GetLabels()[k]; !ok || got != v {
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("label %s=%s", k, v)
		}
	}
	return out
}

// missingPodSecurityLabels names the Pod Security labels the operator would
// put back on the operand namespace; one an administrator set stays.
func missingPodSecurityLabels(ns *corev1.Namespace) []string {
	var out []string
	for k, v := range render.PodSecurityLabels {
		if _, ok := ns.Labels[k]; !ok {
			out = append(out, fmt.Sprintf("label %s=%s", k, v))
		}
	}
	return out
}
