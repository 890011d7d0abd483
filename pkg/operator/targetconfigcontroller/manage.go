package targetconfigcontroller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// applyExtraRBAC applies the ClusterRole/Role and bindings of spec.rbac, and
// deletes them once their rules are gone from the spec.
func (c *targetConfigController) applyExtraRBAC(ctx context.Context, recorder events.Recorder, objs *render.Objects) error {
	rbac := c.kubeClient.RbacV1()
	clusterRole := extra(objs.ClusterRoles, func(r *rbacv1.ClusterRole) string { return r.Name })
	clusterBinding := extra(objs.ClusterRoleBindings, func(b *rbacv1.ClusterRoleBinding) string { return b.Name })
	role := extra(objs.Roles, func(r *rbacv1.Role) string { return r.Name })
	roleBinding := extra(objs.RoleBindings, func(b *rbacv1.RoleBinding) string { return b.Name })

	var errs []error
	if clusterRole != nil {
		if _, _, err := resourceapply.ApplyClusterRole(ctx, rbac, recorder, clusterRole); err != nil {
			errs = append(errs, fmt.Errorf("ClusterRole %s (spec.rbac.clusterRules): %w", clusterRole.Name, err))
		} else if _, _, err := resourceapply.ApplyClusterRoleBinding(ctx, rbac, recorder, clusterBinding); err != nil {
			errs = append(errs, fmt.Errorf("ClusterRoleBinding %s: %w", clusterBinding.Name, err))
		}
	} else {
		errs = append(errs, c.deleteExtraClusterRBAC(ctx, recorder))
	}
	if role != nil {
		if _, _, err := resourceapply.ApplyRole(ctx, rbac, recorder, role); err != nil {
			errs = append(errs, fmt.Errorf("Role %s/%s (spec.rbac.namespacedRules): %w", role.Namespace, role.Name, err))
		} else if _, _, err := resourceapply.ApplyRoleBinding(ctx, rbac, recorder, roleBinding); err != nil {
			errs = append(errs, fmt.Errorf("RoleBinding %s/%s: %w", roleBinding.Namespace, roleBinding.Name, err))
		}
	} else {
		errs = append(errs, c.deleteExtraRBAC(ctx, recorder))
	}
	return errors.Join(errs...)
}

// extra picks the object carrying spec.rbac out of the rendered list.
func extra[T any](list []T, name func(T) string) T {
	var zero T
	i := slices.IndexFunc(list, func(o T) bool { return name(o) == render.ExtraRBACName })
	if i < 0 {
		return zero
	}
	return list[i]
}

func (c *targetConfigController) deleteExtraClusterRBAC(ctx context.Context, recorder events.Recorder) error {
	cached, live := c.kubeInformers.InformersFor("").Rbac().V1(), c.kubeClient.RbacV1()
	return errors.Join(
		deleteIfCached(ctx, recorder, "ClusterRoleBinding", "", render.ExtraRBACName, cached.ClusterRoleBindings().Lister().Get, live.ClusterRoleBindings()),
		deleteIfCached(ctx, recorder, "ClusterRole", "", render.ExtraRBACName, cached.ClusterRoles().Lister().Get, live.ClusterRoles()),
	)
}

func (c *targetConfigController) deleteExtraRBAC(ctx context.Context, recorder events.Recorder) error {
	ns := render.OperandNamespace
	cached, live := c.kubeInformers.InformersFor(ns).Rbac().V1(), c.kubeClient.RbacV1()
	return errors.Join(
		deleteIfCached(ctx, recorder, "RoleBinding", ns, render.ExtraRBACName, cached.RoleBindings().Lister().RoleBindings(ns).Get, live.RoleBindings(ns)),
		deleteIfCached(ctx, recorder, "Role", ns, render.ExtraRBACName, cached.Roles().Lister().Roles(ns).Get, live.Roles(ns)),
	)
}

// deleter is the Delete of a typed client.
type deleter interface {
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// deleteIfCached deletes the object the cache holds under name (get reads the
// cache); one the cache does not hold costs no request.
func deleteIfCached[T any](ctx context.Context, recorder events.Recorder, kind, namespace, name string,
	get func(name string) (T, error), client deleter) error {
	if _, err := get(name); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	qualified := name
	if namespace != "" {
		qualified = namespace + "/" + name
	}
	if err := client.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting %s %s: %w", kind, qualified, err)
	}
	recorder.Eventf(kind+"Deleted", "Deleted %s %s", kind, qualified)
	return nil
}

func (c *targetConfigController) applyDeployment(ctx context.Context, recorder events.Recorder, objs *render.Objects, own *ownStatus) (*appsv1.Deployment, error) {
	// The generation this controller last recorded, not the cache's: right
	// after a write the cache may still hold the one before, and an
	// unexpected generation forces an update of the Deployment.
	var generations []operatorv1.GenerationStatus
	if own.deployment != nil {
		generations = append(generations, *own.deployment)
	}
	expected := resourcemerge.ExpectedDeploymentGeneration(objs.Deployment, generations)
	d, _, err := resourceapply.ApplyDeployment(ctx, c.kubeClient.AppsV1(), recorder, objs.Deployment, expected)
	return d, err
}

// updateStatus records what was rolled out: the condition, the Deployment's
// generation, schedulerNames, configHash and the rollout record in own, in
// one apply, sent only when one of them changed.
func (c *targetConfigController) updateStatus(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus, objs *render.Objects,
	d *appsv1.Deployment, rolloutFailure string) error {
	condition := operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	if rolloutFailure != "" {
		condition = operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionTrue, Reason: reasonRolloutFailed, Message: boundMessage(rolloutFailure)}
	}
	if own.configHash != "" && own.configHash != objs.ConfigHash && rolloutFailure == "" {
		c.recorderOn(ss).Eventf("ConfigurationChanged", "rolling out the merged configuration in ConfigMap %s (schedulerNames %s)",
			render.ConfigMapNameFor(objs.ConfigHash), strings.Join(objs.SchedulerNames, ", "))
	}
	var generations []operatorv1.GenerationStatus
	resourcemerge.SetDeploymentGeneration(&generations, d)
	if len(generations) == 1 {
		own.deployment = &generations[0]
	}
	own.schedulerNames = slices.Clone(objs.SchedulerNames)
	own.configHash = objs.ConfigHash
	return c.setCondition(ctx, ss, own, condition)
}

// rbacRefusedMessage turns the API server's escalation refusal into what to do.
func rbacRefusedMessage(err error) string {
	msg := err.Error()
	if strings.Contains(msg, "attempting to grant RBAC permissions not currently held") {
		return msg + "\nThe operator can grant only rules it holds itself: remove the rule from spec.rbac, " +
			"or add it to the operator's ClusterRole secondary-scheduler-operator-grantable. The running scheduler is left as it is."
	}
	return msg + "\nThe running scheduler is left as it is."
}

// ensurePodSecurityLabels puts back the Pod Security labels the operand
// namespace lacks (render.PodSecurityLabels) and leaves those it has, an
// administrator's stricter or looser choice included. Before the Deployment:
// its pods are held to the level the namespace enforces.
func (c *targetConfigController) ensurePodSecurityLabels(ctx context.Context, recorder events.Recorder) error {
	ns, err := c.namespaces.Get(render.OperandNamespace)
	if apierrors.IsNotFound(err) {
		return nil // the static resources controller creates it, with its labels after this
	}
	if err != nil {
		return err
	}
	var missing []string
	for k := range render.PodSecurityLabels {
		if _, ok := ns.Labels[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	labelled := ns.DeepCopy()
	if labelled.Labels == nil {
		labelled.Labels = map[string]string{}
	}
	for _, k := range missing {
		labelled.Labels[k] = render.PodSecurityLabels[k]
	}
	if _, err := c.kubeClient.CoreV1().Namespaces().Update(ctx, labelled, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("putting back the Pod Security labels %v of namespace %s: %w", missing, ns.Name, err)
	}
	slices.Sort(missing)
	recorder.Eventf("NamespaceLabelled", "Put back the Pod Security labels %s of namespace %s", strings.Join(missing, ", "), ns.Name)
	return nil
}
