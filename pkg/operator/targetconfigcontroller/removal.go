package targetconfigcontroller

import (
	"context"
	"errors"

	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// deleteOperand deletes what this controller writes: the Deployment, the config
// ConfigMaps and the extra RBAC. The fixed objects are the static resources
// controller's to delete. The operand namespace stays: it holds the user's
// own ConfigMap, which must survive a Removed/Managed round trip.
func (c *targetConfigController) deleteOperand(ctx context.Context, recorder events.Recorder, userConfig string) error {
	ns := render.OperandNamespace
	return errors.Join(
		deleteIfCached(ctx, recorder, "Deployment", ns, render.OperandName, c.deployments.Get, c.kubeClient.AppsV1().Deployments(ns)),
		c.deleteConfigMaps(ctx, recorder, userConfig),
		c.deleteExtraRBAC(ctx, recorder),
		c.deleteExtraClusterRBAC(ctx, recorder),
		c.deleteFormerBindings(ctx, recorder),
	)
}

// deleteFormerBindings deletes the bindings of earlier releases to
// system:kube-scheduler and system:volume-scheduler: they hold the default
// scheduler's lock. The cache holds them only while they exist, so this costs
// no request once they are gone.
func (c *targetConfigController) deleteFormerBindings(ctx context.Context, recorder events.Recorder) error {
	cached, live := c.kubeInformers.InformersFor("").Rbac().V1().ClusterRoleBindings(), c.kubeClient.RbacV1().ClusterRoleBindings()
	var errs []error
	for _, name := range render.FormerOperandBindingNames {
		errs = append(errs, deleteIfCached(ctx, recorder, "ClusterRoleBinding", "", name, cached.Lister().Get, live))
	}
	return errors.Join(errs...)
}

// finalize runs when the SecondaryScheduler is deleted: everything made for it
// goes, the cluster-scoped objects included, then the finalizer is released.
func (c *targetConfigController) finalize(ctx context.Context, recorder events.Recorder, userConfig string) error {
	if err := errors.Join(c.deleteOperand(ctx, recorder, userConfig), c.deleteStatic(ctx, recorder)); err != nil {
		return err
	}
	return c.operatorClient.RemoveFinalizer(ctx, CleanupFinalizer)
}

// deleteConfigMaps deletes every config ConfigMap the operator made: our name
// and our label, never the ConfigMap the user named in spec.schedulerConfig.
func (c *targetConfigController) deleteConfigMaps(ctx context.Context, recorder events.Recorder, userConfig string) error {
	all, err := c.configMapLister.List(labels.SelectorFromSet(labels.Set{render.ManagedByLabel: render.ManagedByValue}))
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range staleConfigMaps(all, nil, userConfig, 0) {
		errs = append(errs, c.deleteConfigMap(ctx, recorder, name))
	}
	return errors.Join(errs...)
}
