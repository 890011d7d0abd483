package simulatorcontroller

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/openshift/library-go/pkg/operator/events"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// managePods makes the Simulator's Pod the required one: it deletes the Pods of
// an earlier spec (or of an earlier Simulator of the same name, or one that
// failed for good) and creates the required Pod when missing and mayCreate. It returns the
// current Pod (nil when none) and what it says about the simulator.
//
// A running Pod rendered from the same spec as the required one, which differs
// only by the defaults of the operator version that made it, is kept: an
// operator upgrade does not wipe the simulators' state (an emptyDir). It takes
// the new defaults when it is next replaced.
func (c *simulatorController) managePods(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator, required *corev1.Pod, mayCreate bool) (*corev1.Pod, observation, error) {
	var current, earlierDefaults *corev1.Pod
	var errs []error
	var backoff time.Duration
	key, now := sim.Namespace+"/"+sim.Name, c.clock.Now()
	pods := c.podsOf(sim, required.Name)
	requiredRuns := slices.ContainsFunc(pods, func(pod *corev1.Pod) bool { return pod.Name == required.Name })
	for _, pod := range pods {
		ours, stale := controlledBy(pod, sim)
		switch {
		case pod.Name == required.Name && ours && !finished(pod):
			current = pod
		case !requiredRuns && earlierDefaults == nil && ours && pod.DeletionTimestamp == nil && !finished(pod) &&
			pod.Annotations[SimulatorSpecHashAnnotation] == required.Annotations[SimulatorSpecHashAnnotation]:
			current, earlierDefaults = pod, pod
		case pod.Name == required.Name && ours && pod.DeletionTimestamp == nil:
			// It ended: replaced after a back-off, reported meanwhile.
			current = pod
			ended := endedAt(pod)
			if backoff = c.backoff.wait(key, ended, now); backoff > 0 {
				continue
			}
			if err := c.deletePod(ctx, recorder, sim, pod); err != nil {
				errs = append(errs, err)
			} else {
				c.backoff.replaced(key, ended, now)
			}
		case pod.Name == required.Name && !ours && !stale:
			return nil, observation{
				phase: simv1alpha1.SimulatorPending, reason: ReasonSyncFailed, degraded: true,
				message: fmt.Sprintf("Pod %s already exists and is not controlled by this Simulator: delete it", pod.Name),
			}, nil
		case (ours || stale) && pod.DeletionTimestamp == nil:
			if pod.Name == required.Name {
				current = pod // gone soon: report it until its replacement exists
			}
			if err := c.deletePod(ctx, recorder, sim, pod); err != nil {
				errs = append(errs, err)
			}
		case pod.Name == required.Name:
			current = pod // terminating
		}
	}
	if err := firstError(errs); err != nil {
		return current, observation{phase: simv1alpha1.SimulatorCreating, reason: ReasonSyncFailed, message: err.Error(), degraded: true}, err
	}
	if current != nil {
		obs := observePod(current)
		if earlierDefaults != nil {
			obs.note = fmt.Sprintf("; Pod %s keeps the defaults of the operator version that created it: delete it to restart the simulator with this version's (its state is lost)", current.Name)
		}
		if backoff > 0 {
			obs.message += fmt.Sprintf(" in %s (back-off: a simulator that keeps ending is replaced ever more slowly, up to every %s)",
				backoff.Round(time.Second), maxReplaceBackoff)
			obs.requeueAfter = backoff
		}
		return current, obs, nil
	}
	if !mayCreate {
		return nil, observation{phase: simv1alpha1.SimulatorPending}, nil
	}

	created, err := c.kubeClient.CoreV1().Pods(required.Namespace).Create(ctx, required, metav1.CreateOptions{})
	if err != nil {
		if apierrors.IsAlreadyExists(err) {
			err = fmt.Errorf("Pod %s already exists and is not controlled by this Simulator (or lacks the label %s): delete it", required.Name, SimulatorLabel)
		} else {
			err = fmt.Errorf("creating Pod %s: %w", required.Name, err)
		}
		return nil, observation{phase: simv1alpha1.SimulatorPending, reason: ReasonSyncFailed, message: err.Error(), degraded: true}, err
	}
	c.writes.record(kindPod, created)
	recorder.Eventf("SimulatorPodCreated", "Created Pod %s", created.Name)
	klog.V(2).InfoS("Created simulator Pod", "simulator", klog.KObj(sim), "pod", klog.KObj(created))
	return created, observePod(created), nil
}

// podsOf lists the Pods labelled for sim, sorted by name, with the required one
// when this controller created it and the informer does not show it yet.
func (c *simulatorController) podsOf(sim *simv1alpha1.Simulator, required string) []*corev1.Pod {
	byName := map[string]*corev1.Pod{}
	objs, err := c.podIndexer.ByIndex(podsBySimulatorIndex, sim.Namespace+"/"+sim.Name)
	if err == nil {
		for _, obj := range objs {
			if pod, ok := obj.(*corev1.Pod); ok {
				byName[pod.Name] = pod
			}
		}
	} else {
		pods, _ := c.podLister.Pods(sim.Namespace).List(labels.SelectorFromSet(labels.Set{SimulatorLabel: sim.Name}))
		for _, pod := range pods {
			byName[pod.Name] = pod
		}
	}
	if pod, ok := c.writes.newest(kindPod, sim.Namespace, required, podOrNil(byName[required])).(*corev1.Pod); ok {
		byName[required] = pod
	}
	pods := make([]*corev1.Pod, 0, len(byName))
	for _, pod := range byName {
		pods = append(pods, pod)
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	return pods
}

func podOrNil(pod *corev1.Pod) runtime.Object {
	if pod == nil {
		return nil
	}
	return pod
}

// controlledBy says whether sim controls obj (ours), or a Simulator of the same
// name that no longer exists does (stale: the garbage collector will delete it).
func controlledBy(obj metav1.Object, sim *simv1alpha1.Simulator) (ours, stale bool) {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != "Simulator" || ref.APIVersion != simv1alpha1.SchemeGroupVersion.String() || ref.Name != sim.Name {
		return false, false
	}
	return ref.UID == sim.UID, ref.UID != sim.UID
}

// finished: a Pod that will never run again (evicted, or a restartPolicy that
// let it end) is replaced.
func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

func (c *simulatorController) deletePod(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator, pod *corev1.Pod) error {
	err := c.kubeClient.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{
		Preconditions: &metav1.Preconditions{UID: ptrUID(pod.UID)},
	})
	c.writes.forget(kindPod, pod.Namespace, pod.Name)
	switch {
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		return nil // gone already, or another Pod of that name
	case err != nil:
		return fmt.Errorf("deleting Pod %s: %w", pod.Name, err)
	}
	recorder.Eventf("SimulatorPodDeleted", "Deleted Pod %s: %s", pod.Name, deleteReason(pod, sim))
	klog.V(2).InfoS("Deleted simulator Pod", "simulator", klog.KObj(sim), "pod", klog.KObj(pod), "reason", deleteReason(pod, sim))
	return nil
}

func deleteReason(pod *corev1.Pod, sim *simv1alpha1.Simulator) string {
	if _, stale := controlledBy(pod, sim); stale {
		return "it belongs to a deleted Simulator of the same name"
	}
	if finished(pod) {
		return fmt.Sprintf("it ended (%s %s)", pod.Status.Phase, pod.Status.Reason)
	}
	return "the spec changed"
}

func ptrUID(uid types.UID) *types.UID { return &uid }

// ownedObject is a Service or NetworkPolicy the controller creates for a Simulator.
type ownedObject interface {
	metav1.Object
	runtime.Object
}

// ownedClient is the part of a typed client manageOwned writes through.
type ownedClient[T ownedObject] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// manageOwned creates the required object, or updates the existing one when
// what the controller owns in it (its label, its owner, and what setOwned copies
// from required) differs. Other fields, such as those the API server defaults,
// are left alone. existing is the zero T when there is none. The garbage
// collector deletes the object with its Simulator.
func manageOwned[T ownedObject](ctx context.Context, c *simulatorController, recorder events.Recorder, kind string,
	client ownedClient[T], required, existing T, exists bool, setOwned func(dst, src T)) (T, error) {
	var zero T
	if !exists {
		created, err := client.Create(ctx, required, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return zero, fmt.Errorf("%s %s already exists and is not managed by this Simulator (it lacks the label %s): delete it", kind, required.GetName(), SimulatorLabel)
		}
		if err != nil {
			return zero, fmt.Errorf("creating %s %s: %w", kind, required.GetName(), err)
		}
		c.writes.record(kind, created)
		recorder.Eventf("Simulator"+kind+"Created", "Created %s %s", kind, created.GetName())
		return created, nil
	}

	updated := existing.DeepCopyObject().(T)
	labels := updated.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[SimulatorLabel] = required.GetLabels()[SimulatorLabel]
	updated.SetLabels(labels)
	updated.SetOwnerReferences(withControllerRef(updated.GetOwnerReferences(), required.GetOwnerReferences()[0]))
	setOwned(updated, required)
	if equality.Semantic.DeepEqual(existing, updated) {
		return existing, nil
	}
	written, err := client.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		return zero, fmt.Errorf("updating %s %s: %w", kind, required.GetName(), err)
	}
	c.writes.record(kind, written)
	recorder.Eventf("Simulator"+kind+"Updated", "Updated %s %s", kind, written.GetName())
	return written, nil
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

func firstError(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}
