// Package deploymentapply applies a Deployment as library-go's
// resourceapply.ApplyDeployment decides when to write, but writes with a
// strategic merge patch that names the live object's UID instead of an
// update.
package deploymentapply

import (
	"context"
	"encoding/json"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourcehelper"
	"github.com/openshift/library-go/pkg/operator/resource/resourcemerge"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	"k8s.io/klog/v2"
)

// Apply writes d only when the spec hash annotation or the generation says
// the live Deployment differs. recorded is the generation the caller last
// recorded for it, not a cache's: right after a write a cache may still hold
// the one before, and an unexpected generation forces a write.
//
// The write is a patch of what changed, not an update: an update carries the
// read resourceVersion, which the deployment controller's writes all through
// a rollout (status, the revision annotation) make stale, and each conflict
// cost the change two more requests. A patch keeps what others wrote
// meanwhile.
func Apply(ctx context.Context, client appsv1client.DeploymentsGetter, recorder events.Recorder, d *appsv1.Deployment,
	recorded *operatorv1.GenerationStatus) (*appsv1.Deployment, error) {
	var generations []operatorv1.GenerationStatus
	if recorded != nil {
		generations = append(generations, *recorded)
	}
	expected := resourcemerge.ExpectedDeploymentGeneration(d, generations)
	required := d.DeepCopy()
	if err := resourceapply.SetSpecHashAnnotation(&required.ObjectMeta, required.Spec); err != nil {
		return nil, err
	}
	deployments := client.Deployments(required.Namespace)
	existing, err := deployments.Get(ctx, required.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		created, err := deployments.Create(ctx, required, metav1.CreateOptions{})
		resourcehelper.ReportCreateEvent(recorder, required, err)
		return created, err
	}
	if err != nil {
		return nil, err
	}
	modified := false
	toWrite := existing.DeepCopy()
	resourcemerge.EnsureObjectMeta(&modified, &toWrite.ObjectMeta, required.ObjectMeta)
	if !modified && toWrite.Generation == expected {
		return toWrite, nil
	}
	toWrite.Spec = required.Spec // required is this call's own copy
	patch, err := Patch(existing, toWrite)
	if err != nil {
		return nil, err
	}
	klog.V(2).InfoS("Patching Deployment", "deployment", klog.KObj(required), "patch", string(patch))
	applied, err := deployments.Patch(ctx, required.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	resourcehelper.ReportUpdateEvent(recorder, required, err)
	return applied, err
}

// Patch is the strategic merge patch from existing to desired, naming
// existing's UID, which the API server refuses to change: a patch meant for
// one Deployment never lands on another made under its name since.
func Patch(existing, desired *appsv1.Deployment) ([]byte, error) {
	withoutUID := existing.DeepCopy()
	withoutUID.UID = "" // so that the patch names it
	from, err := json.Marshal(withoutUID)
	if err != nil {
		return nil, err
	}
	to, err := json.Marshal(desired)
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateTwoWayMergePatch(from, to, appsv1.Deployment{})
}
