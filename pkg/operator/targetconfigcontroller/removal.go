package targetconfigcontroller

import (
	"context"
	"errors"

	"github.com/openshift/library-go/pkg/operator/events"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// deleteOperand deletes what this controller writes: the Deployment, the merged
// ConfigMap and the extra RBAC. The fixed objects are the static resources
// controller's to delete. The operand namespace stays: it holds the user's
// own ConfigMap, which must survive a Removed/Managed round trip.
func (c *targetConfigController) deleteOperand(ctx context.Context, recorder events.Recorder) error {
	ns := render.OperandNamespace
	operand := c.kubeInformers.InformersFor(ns)
	return errors.Join(
		deleteIfCached(ctx, recorder, "Deployment", ns+"/"+render.OperandName,
			func() error {
				_, err := operand.Apps().V1().Deployments().Lister().Deployments(ns).Get(render.OperandName)
				return err
			},
			func() error {
				return c.kubeClient.AppsV1().Deployments(ns).Delete(ctx, render.OperandName, metav1.DeleteOptions{})
			}),
		deleteIfCached(ctx, recorder, "ConfigMap", ns+"/"+render.ConfigMapName,
			func() error { _, err := c.configMapLister.Get(render.ConfigMapName); return err },
			func() error {
				return c.kubeClient.CoreV1().ConfigMaps(ns).Delete(ctx, render.ConfigMapName, metav1.DeleteOptions{})
			}),
		c.deleteExtraRBAC(ctx, recorder),
		c.deleteExtraClusterRBAC(ctx, recorder),
	)
}

// finalize runs when the SecondaryScheduler is deleted: everything made for it
// goes, the cluster-scoped objects included, then the finalizer is released.
func (c *targetConfigController) finalize(ctx context.Context, recorder events.Recorder) error {
	if err := errors.Join(c.deleteOperand(ctx, recorder), c.deleteStatic(ctx, recorder)); err != nil {
		return err
	}
	return c.operatorClient.RemoveFinalizer(ctx, CleanupFinalizer)
}
