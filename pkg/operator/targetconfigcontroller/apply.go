package targetconfigcontroller

import (
	"context"
	"errors"
	"fmt"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/cached"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/deploymentapply"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/extrarbac"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/staticresources"
)

// apply writes what was decided: RBAC, ConfigMap and Deployment, then what
// they superseded goes, then status.
func (c *targetConfigController) apply(ctx context.Context, recorder events.Recorder, ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus,
	objs *render.Objects, decision rollout.Decision, in *gathered) error {
	// RBAC first: a scheduler or sidecar that needs a new rule must not roll before it has it.
	if err := c.extraRBAC.Apply(ctx, recorder, objs.Extra); err != nil {
		if apierrors.IsForbidden(err) {
			return errors.Join(err, c.setDegraded(ctx, ss, own, reasonRBACRefused, extrarbac.RefusedMessage(err)))
		}
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}
	step(ctx, "extra RBAC applied")
	if err := c.applyConfigMap(ctx, recorder, ss, objs.ConfigMap); err != nil {
		return c.applyFailed(ctx, ss, own, err, fmt.Sprintf("applying ConfigMap %s/%s: %v", objs.ConfigMap.Namespace, objs.ConfigMap.Name, err))
	}
	step(ctx, "ConfigMap applied")
	if err := staticresources.EnsurePodSecurityLabels(ctx, c.kubeClient, c.namespaces, recorder); err != nil {
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}
	step(ctx, "Pod Security labels ensured")
	deployment, err := in.Live, error(nil)
	if decision.Deployment != nil { // nil while a trial holds the change: the live one stays
		deployment, err = deploymentapply.Apply(ctx, c.kubeClient.AppsV1(), recorder, decision.Deployment, own.deployment)
	}
	if err != nil {
		if msg, ok := render.RefusedSpecFields(ss, objs, err); ok {
			// Nothing to retry until the spec changes; the informers requeue then.
			return c.setDegraded(ctx, ss, own, reasonInvalidInput, msg+"\nThe running scheduler is left as it is until this is fixed.")
		}
		return c.applyFailed(ctx, ss, own, err, fmt.Sprintf("applying Deployment %s/%s: %v", decision.Deployment.Namespace, decision.Deployment.Name, err))
	}
	step(ctx, "Deployment applied")
	c.countRollout(in.Live, decision)
	keep := rollout.InUse(objs.ConfigHash, decision.Record, deployment, in.Pods)
	if err := c.pruneConfigMaps(ctx, recorder, keep, ss.Spec.SchedulerConfig, rollout.RetainedConfigs); err != nil {
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}
	step(ctx, "ConfigMaps pruned")
	// After the Deployment: by now the static resources controller has bound
	// the scheduler's own ClusterRole, so it never runs without either.
	if err := c.deleteFormerBindings(ctx, recorder); err != nil {
		return c.applyFailed(ctx, ss, own, err, err.Error())
	}
	step(ctx, "former bindings deleted")
	c.conflicts = 0
	return c.rolledOut(ctx, ss, own, objs, deployment, decision)
}

// countRollout counts a pod template that decision applied over live, once:
// a cache still behind this controller's write shows the next sync the
// template before it, and that sync applies the same template again. A
// Deployment created (live is nil) always counts: with a cache behind, the
// create fails (it exists) and nothing is counted.
func (c *targetConfigController) countRollout(live *appsv1.Deployment, decision rollout.Decision) {
	applied := rollout.TemplateHash(decision.Deployment)
	if applied == "" || applied == rollout.TemplateHash(live) || (live != nil && applied == c.lastRolled) {
		return
	}
	c.lastRolled = applied
	metrics.CountRollout(decision.Action == rollout.RollBack)
}

// applyConfigMap creates the desired config ConfigMap. One of that name that
// the operator did not make as it is (other data, not immutable ...) is
// replaced, and the replacement reported: the pods must read exactly the
// configuration that was validated.
func (c *targetConfigController) applyConfigMap(ctx context.Context, recorder events.Recorder, ss *secondaryschedulerv1.SecondaryScheduler, cm *corev1.ConfigMap) error {
	existing, err := cached.Get(c.configMapLister.Get, cm.Name)
	if err != nil {
		return err
	}
	if existing == nil {
		_, _, err = resourceapply.ApplyConfigMap(ctx, c.kubeClient.CoreV1(), recorder, cm)
		return err
	}
	problem := render.ConfigMapProblem(existing)
	if problem == "" {
		return nil // immutable, and its content is its name: nothing to update
	}
	client := c.kubeClient.CoreV1().ConfigMaps(cm.Namespace)
	if err := client.Delete(ctx, cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &existing.UID}}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("replacing ConfigMap %s/%s, which %s: %w", cm.Namespace, cm.Name, problem, err)
	}
	if _, err := client.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return err
	}
	c.recorderOn(ss).Warningf("ConfigMapReplaced", "ConfigMap %s/%s was not the configuration the operator wrote (%s); it was replaced",
		cm.Namespace, cm.Name, problem)
	recorder.Warningf("ConfigMapReplaced", "Replaced ConfigMap %s/%s: %s", cm.Namespace, cm.Name, problem)
	return nil
}

// pruneConfigMaps deletes the config ConfigMaps the operator made that are
// not in keep, beyond the newest retain; never the user's own.
func (c *targetConfigController) pruneConfigMaps(ctx context.Context, recorder events.Recorder, keep map[string]bool, userConfig string, retain int) error {
	all, err := c.configMapLister.List(labels.SelectorFromSet(labels.Set{names.ManagedByLabel: names.ManagedByValue}))
	if err != nil {
		return err
	}
	ns := names.OperandNamespace
	var errs []error
	for _, name := range rollout.StaleConfigMaps(all, keep, userConfig, retain) {
		errs = append(errs, cached.Delete(ctx, recorder, "ConfigMap", ns, name, c.configMapLister.Get, c.kubeClient.CoreV1().ConfigMaps(ns)))
	}
	return errors.Join(errs...)
}

// deleteFormerBindings deletes the bindings of earlier releases to
// system:kube-scheduler and system:volume-scheduler: they hold the default
// scheduler's lock. The cache holds them only while they exist, so this costs
// no request once they are gone.
func (c *targetConfigController) deleteFormerBindings(ctx context.Context, recorder events.Recorder) error {
	live := c.kubeClient.RbacV1().ClusterRoleBindings()
	var errs []error
	for _, name := range names.FormerOperandBindingNames {
		errs = append(errs, cached.Delete(ctx, recorder, "ClusterRoleBinding", "", name, c.formerBindings.Get, live))
	}
	return errors.Join(errs...)
}

// deleteOperand deletes what this controller writes: the Deployment, every
// config ConfigMap and the extra RBAC. The fixed objects are the static
// resources controller's to delete. The operand namespace stays: it holds the
// user's own ConfigMap, which must survive a Removed/Managed round trip, and
// the config ConfigMaps in keep.
func (c *targetConfigController) deleteOperand(ctx context.Context, recorder events.Recorder, userConfig string, keep map[string]bool) error {
	ns := names.OperandNamespace
	return errors.Join(
		cached.Delete(ctx, recorder, "Deployment", ns, names.OperandName, c.deployments.Get, c.kubeClient.AppsV1().Deployments(ns)),
		c.pruneConfigMaps(ctx, recorder, keep, userConfig, 0),
		c.extraRBAC.Delete(ctx, recorder),
		c.deleteFormerBindings(ctx, recorder),
	)
}

// finalize runs when the SecondaryScheduler is deleted: everything made for it
// goes, the cluster-scoped objects included, then the finalizer is released.
func (c *targetConfigController) finalize(ctx context.Context, recorder events.Recorder, userConfig string) error {
	if err := errors.Join(c.deleteOperand(ctx, recorder, userConfig, nil), c.deleteStatic(ctx, recorder)); err != nil {
		return err
	}
	return c.operatorClient.RemoveFinalizer(ctx, CleanupFinalizer)
}
