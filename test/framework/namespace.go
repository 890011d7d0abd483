package framework

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
)

// CreateNamespace creates a namespace named prefix-<random> and deletes it, with
// everything in it, when the test ends (after the test's later cleanups, such as
// stopping controllers started with RunInBackground).
func (e *Env) CreateNamespace(t testing.TB, prefix string) string {
	t.Helper()
	ns, err := e.Admin.Kube.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a namespace: %v", err)
	}
	t.Cleanup(func() {
		if err := e.DeleteNamespace(context.Background(), ns.Name); err != nil {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

// DeleteNamespace deletes a namespace and everything in it at once, doing what
// the namespace controller (which envtest does not run) would: without it a
// deleted namespace stays Terminating forever, its objects stay behind, and the
// controllers of later tests keep acting on them. Finalizers of the namespace's
// objects are removed: nothing is left to honour them.
func (e *Env) DeleteNamespace(ctx context.Context, name string) error {
	kube := e.Admin.Kube
	if err := kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	lists, err := kube.Discovery().ServerPreferredNamespacedResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return fmt.Errorf("discovering namespaced resources: %w", err)
	}
	var errs []error
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return err
		}
		for _, r := range list.APIResources {
			if !slices.Contains(r.Verbs, "deletecollection") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			ri := e.Admin.Dynamic.Resource(gv.WithResource(r.Name)).Namespace(name)
			err := ri.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting %s: %w", r.Name, err))
				continue
			}
			left, err := ri.List(ctx, metav1.ListOptions{})
			if err != nil {
				errs = append(errs, fmt.Errorf("listing %s: %w", r.Name, err))
				continue
			}
			for _, o := range left.Items {
				if len(o.GetFinalizers()) == 0 {
					continue
				}
				_, err := ri.Patch(ctx, o.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				if err != nil && !apierrors.IsNotFound(err) {
					errs = append(errs, fmt.Errorf("removing the finalizers of %s %s: %w", r.Name, o.GetName(), err))
				}
			}
		}
	}
	ns, err := kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return errors.Join(errs...)
	}
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	ns.Spec.Finalizers = nil
	if _, err := kube.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		errs = append(errs, fmt.Errorf("finalizing: %w", err))
	}
	return errors.Join(errs...)
}
