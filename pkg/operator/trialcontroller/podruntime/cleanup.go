package podruntime

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// Selector selects the trial objects the operator made, whatever their trial.
func Selector() labels.Selector {
	return labels.SelectorFromSet(labels.Set{AppNameLabel: AppName, names.ManagedByLabel: names.ManagedByValue})
}

// IsTrialObject says whether o is a trial object the operator made.
func IsTrialObject(o metav1.Object) bool {
	return Selector().Matches(labels.Set(o.GetLabels()))
}

// Kinds are the kinds of trial objects, as their clients in namespace delete
// and get them.
func Kinds(kube kubernetes.Interface, namespace string) []Kind {
	core, networking := kube.CoreV1(), kube.NetworkingV1()
	return []Kind{
		{"Pod", func(ctx context.Context, name string) (metav1.Object, error) {
			return core.Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		}, core.Pods(namespace).Delete},
		{"Secret", func(ctx context.Context, name string) (metav1.Object, error) {
			return core.Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
		}, core.Secrets(namespace).Delete},
		{"NetworkPolicy", func(ctx context.Context, name string) (metav1.Object, error) {
			return networking.NetworkPolicies(namespace).Get(ctx, name, metav1.GetOptions{})
		}, networking.NetworkPolicies(namespace).Delete},
	}
}

// Kind is one kind of trial object.
type Kind struct {
	Name   string
	Get    func(ctx context.Context, name string) (metav1.Object, error)
	Delete func(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// DeleteObject deletes o, and only o: the UID precondition keeps a delete
// from reaching an object that took its name since it was read.
func (k Kind) DeleteObject(ctx context.Context, o metav1.Object) error {
	uid := o.GetUID()
	err := k.Delete(ctx, o.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) { // gone, or another object now
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting trial %s %s/%s: %w", k.Name, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

// DeleteNamed deletes the Pod, Secret and NetworkPolicy called name in
// namespace that are trial objects; an object of that name that is not one
// is left alone.
func DeleteNamed(ctx context.Context, kube kubernetes.Interface, namespace, name string) error {
	var errs []error
	for _, k := range Kinds(kube, namespace) {
		o, err := k.Get(ctx, name)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("reading trial %s %s/%s: %w", k.Name, namespace, name, err))
			continue
		}
		if IsTrialObject(o) {
			errs = append(errs, k.DeleteObject(ctx, o))
		}
	}
	return errors.Join(errs...)
}
