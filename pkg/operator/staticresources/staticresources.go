// Package staticresources applies the operand's fixed objects (namespace,
// service account, the system RBAC bindings, lease Role, metrics Service) with
// library-go's static resources controller, and deletes them on Removed.
package staticresources

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/staticresourcecontroller"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/cached"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// ControllerName makes the condition this controller reports,
// OperandStaticResourcesDegraded: applying the operand's fixed objects failed.
const ControllerName = "OperandStaticResources"

// FormerConditionTypes are what this controller's condition was called before:
// the stale-conditions controller removes them from the SecondaryScheduler.
var FormerConditionTypes = []string{"SecondarySchedulerDegraded"}

// NewStaticResourcesController returns library-go's controller for the fixed
// objects. kubeClient should read from kubeInformers (lister-backed GETs).
// On Removed it deletes them all but the namespace, which holds the user's own
// scheduler ConfigMap and so must outlive a Removed/Managed round trip.
func NewStaticResourcesController(name string, kubeClient kubernetes.Interface, kubeInformers v1helpers.KubeInformersForNamespaces,
	operatorClient v1helpers.OperatorClient, recorder events.Recorder) *staticresourcecontroller.StaticResourceController {
	managed := func() bool { return stateIs(operatorClient, operatorv1.Managed, operatorv1.Force) }
	removed := func() bool { return stateIs(operatorClient, operatorv1.Removed) }
	never := func() bool { return false }
	return staticresourcecontroller.NewStaticResourceController(name, bindata.Asset, nil,
		resourceapply.NewKubeClientHolder(kubeClient), operatorClient, recorder).
		WithConditionalResources(bindata.Asset, []string{render.NamespaceAsset}, managed, never).
		WithConditionalResources(bindata.Asset, removable(), managed, removed).
		AddKubeInformers(kubeInformers)
}

// DeleteAll deletes the fixed objects the controller deletes on Removed; it runs
// when the SecondaryScheduler itself is deleted.
func DeleteAll(kubeClient kubernetes.Interface) func(ctx context.Context, recorder events.Recorder) error {
	return func(ctx context.Context, recorder events.Recorder) error {
		var errs []error
		for _, r := range resourceapply.DeleteAll(ctx, resourceapply.NewKubeClientHolder(kubeClient), recorder, bindata.Asset, removable()...) {
			errs = append(errs, r.Error)
		}
		return errors.Join(errs...)
	}
}

func removable() []string {
	var names []string
	for _, name := range render.StaticAssetNames() {
		if name != render.NamespaceAsset {
			names = append(names, name)
		}
	}
	return names
}

// stateIs is false once the SecondaryScheduler is being deleted: its finalizer
// then deletes the objects, and they must not be recreated behind it.
func stateIs(client v1helpers.OperatorClient, states ...operatorv1.ManagementState) bool {
	meta, err := client.GetObjectMeta()
	if err != nil || meta.DeletionTimestamp != nil {
		return false
	}
	spec, _, _, err := client.GetOperatorState()
	if err != nil {
		return false
	}
	for _, s := range states {
		if spec.ManagementState == s {
			return true
		}
	}
	return false
}

// EnsurePodSecurityLabels puts back the Pod Security labels the operand
// namespace lacks (render.PodSecurityLabels) and leaves those it has, an
// administrator's stricter or looser choice included: library-go's
// ApplyNamespace would overwrite them. The target config controller calls it
// before the Deployment: its pods are held to the level the namespace enforces.
func EnsurePodSecurityLabels(ctx context.Context, kube kubernetes.Interface, namespaces corev1listers.NamespaceLister, recorder events.Recorder) error {
	ns, err := cached.Get(namespaces.Get, names.OperandNamespace)
	if err != nil || ns == nil {
		return err // absent, the static resources controller creates it, with its labels
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
	if _, err := kube.CoreV1().Namespaces().Update(ctx, labelled, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("putting back the Pod Security labels %v of namespace %s: %w", missing, ns.Name, err)
	}
	slices.Sort(missing)
	recorder.Eventf("NamespaceLabelled", "Put back the Pod Security labels %s of namespace %s", strings.Join(missing, ", "), ns.Name)
	return nil
}
