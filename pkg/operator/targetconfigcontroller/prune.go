package targetconfigcontroller

import (
	"context"
	"errors"

	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/cached"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// pruneConfigMaps deletes the config ConfigMaps the operator made that are
// not in keep, beyond the newest retain; never the user's own.
func (c *targetConfigController) pruneConfigMaps(ctx context.Context, recorder events.Recorder, keep map[string]bool, userConfig string, retain int) error {
	all, err := c.configMapLister.List(labels.SelectorFromSet(labels.Set{render.ManagedByLabel: render.ManagedByValue}))
	if err != nil {
		return err
	}
	ns := render.OperandNamespace
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
	for _, name := range render.FormerOperandBindingNames {
		errs = append(errs, cached.Delete(ctx, recorder, "ClusterRoleBinding", "", name, c.formerBindings.Get, live))
	}
	return errors.Join(errs...)
}

// deleteOperand deletes what this controller writes: the Deployment, every
// config ConfigMap and the extra RBAC. The fixed objects are the static
// resources controller's to delete. The operand namespace stays: it holds the
// user's own ConfigMap, which must survive a Removed/Managed round trip.
func (c *targetConfigController) deleteOperand(ctx context.Context, recorder events.Recorder, userConfig string) error {
	ns := render.OperandNamespace
	return errors.Join(
		cached.Delete(ctx, recorder, "Deployment", ns, render.OperandName, c.deployments.Get, c.kubeClient.AppsV1().Deployments(ns)),
		c.pruneConfigMaps(ctx, recorder, nil, userConfig, 0),
		c.extraRBAC.Delete(ctx, recorder),
		c.deleteFormerBindings(ctx, recorder),
	)
}

// finalize runs when the SecondaryScheduler is deleted: everything made for it
// goes, the cluster-scoped objects included, then the finalizer is released.
func (c *targetConfigController) finalize(ctx context.Context, recorder events.Recorder, userConfig string) error {
	if err := errors.Join(c.deleteOperand(ctx, recorder, userConfig), c.deleteStatic(ctx, recorder)); err != nil {
		return err
	}
	return c.operatorClient.RemoveFinalizer(ctx, CleanupFinalizer)
}
