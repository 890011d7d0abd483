package simulatorcontroller

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

// managePods makes the Simulator's Pod the required one: it deletes its Pods
// of an earlier spec (or one that failed for good) and creates the required
// Pod when missing and mayCreate. It returns the current Pod (nil when none)
// and what it says about the simulator. A Pod that is not sim's (notOwned) is
// never deleted: one of the required name is reported (NameConflict), the
// others are left to their owners and the garbage collector.
//
// A running Pod rendered from the same spec as the required one, which differs
// only by the defaults of the operator version that made it, is kept: an
// operator upgrade does not wipe the simulators' state (an emptyDir). It takes
// the new defaults when it is next replaced.
func (c *simulatorController) managePods(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator, required *corev1.Pod, mayCreate bool) (*corev1.Pod, observation, error) {
	found := c.sortPods(ctx, recorder, sim, required)
	if found.conflict != nil {
		return nil, failed(found.conflict, false), found.conflict
	}
	current := found.current
	if err := firstError(found.errs); err != nil {
		return current, failed(err, true), err
	}
	if current != nil {
		obs := observePod(current)
		if found.earlierDefaults != nil {
			obs.note = fmt.Sprintf("; Pod %s keeps the defaults of the operator version that created it: delete it to restart the simulator with this version's (its state is lost)", current.Name)
		}
		if found.backoff > 0 {
			obs.message += fmt.Sprintf(" in %s (back-off: a simulator that keeps ending is replaced ever more slowly, up to every %s)",
				found.backoff.Round(time.Second), maxReplaceBackoff)
			obs.requeueAfter = found.backoff
		}
		return current, obs, nil
	}
	if !mayCreate {
		return nil, observation{phase: simv1alpha1.SimulatorPending}, nil
	}
	return c.createPod(ctx, recorder, sim, required)
}

// podsFound is what sortPods made of a Simulator's Pods.
type podsFound struct {
	// current is the Pod that runs the simulator, or will, or is ending;
	// earlierDefaults is current when it is kept though it is not the required one.
	current, earlierDefaults *corev1.Pod
	// backoff is how long an ended Pod waits to be replaced.
	backoff time.Duration
	// conflict: a Pod of the required name that is not sim's.
	conflict error
	errs     []error
}

// sortPods finds the current Pod among sim's, and deletes those of an
// earlier spec and the required one when it ended and its back-off is over.
func (c *simulatorController) sortPods(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator, required *corev1.Pod) podsFound {
	var found podsFound
	key, now := sim.Namespace+"/"+sim.Name, c.clock.Now()
	pods := c.podsOf(sim, required.Name)
	requiredRuns := slices.ContainsFunc(pods, func(pod *corev1.Pod) bool { return pod.Name == required.Name })
	for _, pod := range pods {
		why := notOwned(pod, sim)
		isRequired, live := pod.Name == required.Name, pod.DeletionTimestamp == nil
		switch {
		case isRequired && why != "":
			found.conflict = &conflictError{kind: kindPod, name: pod.Name, why: why}
			return found
		case why != "":
			// Someone else's: not ours to delete, whatever its labels say.
		case isRequired && !finished(pod):
			found.current = pod
		case !requiredRuns && found.earlierDefaults == nil && live && !finished(pod) &&
			pod.Annotations[simulatorrender.SimulatorSpecHashAnnotation] == required.Annotations[simulatorrender.SimulatorSpecHashAnnotation]:
			found.current, found.earlierDefaults = pod, pod
		case isRequired && live:
			// It ended: replaced after a back-off, reported meanwhile.
			found.current = pod
			ended := endedAt(pod)
			if found.backoff = c.backoff.wait(key, ended, now); found.backoff > 0 {
				continue
			}
			if err := c.deletePod(ctx, recorder, sim, pod, deleteReason(pod)); err != nil {
				found.errs = append(found.errs, err)
			} else {
				c.backoff.replaced(key, ended, now)
			}
		case live:
			if err := c.deletePod(ctx, recorder, sim, pod, deleteReason(pod)); err != nil {
				found.errs = append(found.errs, err)
			}
		case isRequired:
			found.current = pod // terminating
		}
	}
	return found
}

// createPod creates the required Pod. One of its name that sim controls but
// the informer does not show (it lacks the controller's labels: made by an
// earlier operator version, or relabelled by hand) is deleted, to be created
// again with them.
func (c *simulatorController) createPod(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator, required *corev1.Pod) (*corev1.Pod, observation, error) {
	pod, created, err := createOrFind(ctx, kindPod, c.kubeClient.CoreV1().Pods(required.Namespace), sim, required)
	switch {
	case err != nil:
		return nil, failed(err, false), err
	case !created:
		if err := c.deletePod(ctx, recorder, sim, pod, "it lacks the operator's labels "+Selector); err != nil {
			return nil, failed(err, false), err
		}
		return nil, observation{phase: simv1alpha1.SimulatorPending, reason: ReasonPodNotCreated,
			message: fmt.Sprintf("replacing Pod %s, which lacks the operator's labels", pod.Name)}, factory.SyntheticRequeueError
	}
	c.writes.record(kindPod, pod)
	klog.V(2).InfoS("Created simulator Pod", "simulator", klog.KObj(sim), "pod", klog.KObj(pod))
	return pod, observePod(pod), nil
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
		pods, _ := c.podLister.Pods(sim.Namespace).List(labels.SelectorFromSet(labels.Set{simulatorrender.SimulatorLabel: sim.Name}))
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

// finished: a Pod that will never run again (evicted, or a restartPolicy that
// let it end) is replaced.
func finished(pod *corev1.Pod) bool {
	return pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
}

func (c *simulatorController) deletePod(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator, pod *corev1.Pod, reason string) error {
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
	recorder.Eventf("SimulatorPodDeleted", "Deleted Pod %s: %s", pod.Name, reason)
	klog.V(2).InfoS("Deleted simulator Pod", "simulator", klog.KObj(sim), "pod", klog.KObj(pod), "reason", reason)
	return nil
}

// deleteReason says why a Pod of sim's is replaced.
func deleteReason(pod *corev1.Pod) string {
	if finished(pod) {
		return fmt.Sprintf("it ended (%s %s)", pod.Status.Phase, pod.Status.Reason)
	}
	return "the spec changed"
}

func ptrUID(uid types.UID) *types.UID { return &uid }

func firstError(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errs[0]
}
