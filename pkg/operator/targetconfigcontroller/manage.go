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
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
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

func (c *targetConfigController) applyDeployment(ctx context.Context, recorder events.Recorder, objs *render.Objects) (*appsv1.Deployment, error) {
	_, status, _, err := c.operatorClient.GetOperatorState()
	if err != nil {
		return nil, err
	}
	expected := resourcemerge.ExpectedDeploymentGeneration(objs.Deployment, status.Generations)
	d, _, err := resourceapply.ApplyDeployment(ctx, c.kubeClient.AppsV1(), recorder, objs.Deployment, expected)
	return d, err
}

// updateStatus records what was rolled out; each write happens only on a change.
func (c *targetConfigController) updateStatus(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, objs *render.Objects,
	d *appsv1.Deployment, history *secondaryschedulerv1.SecondarySchedulerStatus, rolloutFailure string) error {
	condition := operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	if rolloutFailure != "" {
		condition = operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionTrue, Reason: reasonRolloutFailed, Message: boundMessage(rolloutFailure)}
	}
	if err := c.setCondition(ctx, ss, condition, func(status *operatorv1.OperatorStatus) error {
		resourcemerge.SetDeploymentGeneration(&status.Generations, d)
		return nil
	}); err != nil {
		return err
	}
	if ss.Status.ConfigHash != "" && ss.Status.ConfigHash != objs.ConfigHash && rolloutFailure == "" {
		c.recorderOn(ss).Eventf("ConfigurationChanged", "rolling out the merged configuration in ConfigMap %s (schedulerNames %s)",
			render.ConfigMapNameFor(objs.ConfigHash), strings.Join(objs.SchedulerNames, ", "))
	}
	if slices.Equal(ss.Status.SchedulerNames, objs.SchedulerNames) && ss.Status.ConfigHash == objs.ConfigHash &&
		equality.Semantic.DeepEqual(ss.Status.LastKnownGood, history.LastKnownGood) &&
		equality.Semantic.DeepEqual(ss.Status.FailedRollout, history.FailedRollout) {
		return nil
	}
	// Server-side apply of just these fields: no resourceVersion, so no
	// conflict with the other controllers writing conditions at the same time.
	// A field left out of the apply configuration is removed.
	status := secondaryschedulerapply.SecondarySchedulerStatus().WithSchedulerNames(objs.SchedulerNames...).WithConfigHash(objs.ConfigHash)
	if lkg := history.LastKnownGood; lkg != nil {
		status.WithLastKnownGood(secondaryschedulerapply.Rollout().WithConfigHash(lkg.ConfigHash).WithTemplateHash(lkg.TemplateHash))
	}
	if f := history.FailedRollout; f != nil {
		status.WithFailedRollout(secondaryschedulerapply.FailedRollout().WithConfigHash(f.ConfigHash).
			WithTemplateHash(f.TemplateHash).WithMessage(f.Message).WithFailedAt(f.FailedAt))
	}
	if _, err := c.statusClient.SecondarySchedulers().ApplyStatus(ctx,
		secondaryschedulerapply.SecondaryScheduler(ss.Name).WithStatus(status),
		metav1.ApplyOptions{FieldManager: "TargetConfigController", Force: true}); err != nil {
		return err
	}
	return nil
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
