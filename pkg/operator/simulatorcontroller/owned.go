package simulatorcontroller

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/library-go/pkg/operator/events"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// ReasonNameConflict: an object of the name a Simulator's Pod, Service or
// NetworkPolicy takes exists and is not the Simulator's. The operator leaves
// it as it is.
const ReasonNameConflict = "NameConflict"

// ownedObject is a Pod, Service or NetworkPolicy the controller creates for a Simulator.
type ownedObject interface {
	metav1.Object
	runtime.Object
}

// ownedClient is the part of a typed client the controller writes its objects through.
type ownedClient[T ownedObject] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
}

// conflictError: an object of the name the Simulator needs exists and is not
// the Simulator's (notOwned says why). The controller neither adopts,
// updates nor deletes it.
type conflictError struct {
	kind, name, why string
}

func (e *conflictError) Error() string {
	return fmt.Sprintf("%s %s already exists and %s: the operator leaves it as it is; rename or delete it", e.kind, e.name, e.why)
}

// isConflict says whether err is (or wraps) a conflictError.
func isConflict(err error) bool {
	var conflict *conflictError
	return errors.As(err, &conflict)
}

// notOwned says why obj is not sim's, "" when it is: it is sim's only with a
// controller reference to sim, UID included. Its name and its labels, which
// any user of the namespace may write, prove nothing.
func notOwned(obj metav1.Object, sim *simv1alpha1.Simulator) string {
	ref := metav1.GetControllerOf(obj)
	switch {
	case ref == nil:
		return "was not created by the operator for this Simulator (it has no controller reference to it)"
	case ref.Kind != kindSimulator || ref.APIVersion != simv1alpha1.SchemeGroupVersion.String() || ref.Name != sim.Name:
		return fmt.Sprintf("is controlled by %s %s", ref.Kind, ref.Name)
	case ref.UID != sim.UID:
		return "belongs to a deleted Simulator of the same name (the garbage collector deletes it with that Simulator)"
	}
	return ""
}

// ours says whether sim controls obj (notOwned).
func ours(obj metav1.Object, sim *simv1alpha1.Simulator) bool {
	return notOwned(obj, sim) == ""
}

// createOrFind creates required. When an object of its name exists already
// (the informer does not show it: it lacks the controller's labels), it
// returns that object, read afresh, if sim controls it, and a conflictError
// if not. created says which.
func createOrFind[T ownedObject](ctx context.Context, kind string, client ownedClient[T], sim *simv1alpha1.Simulator, required T) (obj T, created bool, err error) {
	var zero T
	obj, err = client.Create(ctx, required, metav1.CreateOptions{})
	if err == nil {
		return obj, true, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return zero, false, fmt.Errorf("creating %s %s: %w", kind, required.GetName(), err)
	}
	obj, err = client.Get(ctx, required.GetName(), metav1.GetOptions{})
	if err != nil {
		return zero, false, fmt.Errorf("reading %s %s, which exists already: %w", kind, required.GetName(), err)
	}
	if why := notOwned(obj, sim); why != "" {
		return zero, false, &conflictError{kind: kind, name: required.GetName(), why: why}
	}
	return obj, false, nil
}

// manageOwned makes sim's Service or NetworkPolicy what required says: it
// creates it when missing, and updates it when what the controller owns in it
// (its labels, its controller reference, and what setOwned copies from
// required) differs. Other fields, such as those the API server defaults,
// are left alone. existing is the cached object, the zero T when there is
// none. An object of that name that is not sim's is left alone: a
// conflictError. The garbage collector deletes the object with its Simulator.
func manageOwned[T ownedObject](ctx context.Context, c *simulatorController, recorder events.Recorder, kind string, client ownedClient[T],
	sim *simv1alpha1.Simulator, required, existing T, exists bool, setOwned func(dst, src T)) (T, error) {
	var zero T
	live := existing
	if exists {
		if why := notOwned(existing, sim); why != "" {
			return zero, &conflictError{kind: kind, name: required.GetName(), why: why}
		}
		if !ownedDiffers(existing, required, setOwned) {
			return existing, nil
		}
		// The cached copy is trimmed: the update starts from the whole object.
		var err error
		if live, err = client.Get(ctx, required.GetName(), metav1.GetOptions{}); err != nil {
			return zero, fmt.Errorf("reading %s %s: %w", kind, required.GetName(), err)
		}
		if why := notOwned(live, sim); why != "" {
			return zero, &conflictError{kind: kind, name: required.GetName(), why: why}
		}
	} else {
		obj, created, err := createOrFind(ctx, kind, client, sim, required)
		if err != nil || created {
			if created {
				c.writes.record(kind, obj)
			}
			return obj, err
		}
		live = obj
	}
	if !ownedDiffers(live, required, setOwned) {
		return live, nil
	}
	updated := live.DeepCopyObject().(T)
	setOwnedMeta(updated, required)
	setOwned(updated, required)
	written, err := client.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return zero, fmt.Errorf("updating %s %s: %w", kind, required.GetName(), err)
	}
	c.writes.record(kind, written)
	recorder.Eventf("Simulator"+kind+"Updated", "Updated %s %s: it differed from what the Simulator asks for", kind, written.GetName())
	return written, nil
}

// ownedDiffers says whether what the controller owns in obj differs from required.
func ownedDiffers[T ownedObject](obj, required T, setOwned func(dst, src T)) bool {
	want := obj.DeepCopyObject().(T)
	setOwnedMeta(want, required)
	setOwned(want, required)
	return !equality.Semantic.DeepEqual(obj, want)
}

// setOwnedMeta puts required's labels and controller reference on dst,
// keeping its other labels and references.
func setOwnedMeta(dst, required metav1.Object) {
	labels := dst.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range required.GetLabels() {
		labels[k] = v
	}
	dst.SetLabels(labels)
	dst.SetOwnerReferences(withControllerRef(dst.GetOwnerReferences(), required.GetOwnerReferences()[0]))
}

// setServiceOwned copies what the controller owns in a Service.
func setServiceOwned(dst, src *corev1.Service) {
	dst.Spec.Type = src.Spec.Type
	dst.Spec.Selector = src.Spec.Selector
	dst.Spec.Ports = src.Spec.Ports
}

// setNetworkPolicyOwned copies the whole policy: the controller owns all of it.
func setNetworkPolicyOwned(dst, src *networkingv1.NetworkPolicy) {
	dst.Spec = src.Spec
}

// withControllerRef replaces any controller reference in refs with ref, keeping
// the other (non-controller) references.
func withControllerRef(refs []metav1.OwnerReference, ref metav1.OwnerReference) []metav1.OwnerReference {
	out := []metav1.OwnerReference{ref}
	for _, r := range refs {
		if r.UID == ref.UID || (r.Controller != nil && *r.Controller) {
			continue
		}
		out = append(out, r)
	}
	if len(out) == len(refs) && equality.Semantic.DeepEqual(out, refs) {
		return refs
	}
	return out
}
