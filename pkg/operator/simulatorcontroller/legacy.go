package simulatorcontroller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/openshift/library-go/pkg/controller/factory"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/kubecache"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

// unlabelledSelector selects Pods that carry simulatorrender.SimulatorLabel
// but not the operator's ManagedByLabel: those of earlier operator versions,
// which labelled them with SimulatorLabel alone, and anyone else's.
const unlabelledSelector = simulatorrender.SimulatorLabel + "," + ManagedByLabel + "!=" + ManagedByValue

// replaceUnlabelledPods runs once, after the informers synced: it deletes
// the Pods that an earlier operator version made for a Simulator that still
// exists (a controller reference with its UID) without ManagedByLabel. The
// informers do not show them, so the controller creates their replacements
// (the labels are part of a Pod's hash, hence of its name); left running,
// the Service would select both. Its Service and NetworkPolicy need nothing
// of the kind: the controller finds them when creating them fails, and puts
// its labels back (manageOwned). It retries until it succeeds or ctx ends.
func (c *simulatorController) replaceUnlabelledPods(ctx context.Context, _ factory.SyncContext) error {
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Steps: 100, Cap: time.Minute}
	return wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		n, err := c.deleteUnlabelledPods(ctx)
		if err != nil {
			klog.ErrorS(err, "Cannot replace the Pods of earlier operator versions yet", "controller", ControllerName)
			return false, nil
		}
		if n > 0 {
			klog.InfoS("Replaced the Pods of earlier operator versions, which lack the operator's labels", "controller", ControllerName, "pods", n)
		}
		return true, nil
	})
}

// deleteUnlabelledPods deletes the Pods replaceUnlabelledPods replaces, and
// says how many.
func (c *simulatorController) deleteUnlabelledPods(ctx context.Context) (int, error) {
	pods := c.kubeClient.CoreV1().Pods(c.namespace)
	// Any user may label a Pod so, and give it 256 KiB of annotations: a
	// small page bounds what one holds.
	opts := metav1.ListOptions{LabelSelector: unlabelledSelector, Limit: kubecache.ListPageSize}
	deleted := 0
	for {
		list, err := pods.List(ctx, opts)
		if err != nil {
			return deleted, fmt.Errorf("listing the Pods of earlier operator versions: %w", err)
		}
		for i := range list.Items {
			pod := &list.Items[i]
			if !c.ofExistingSimulator(pod) || pod.DeletionTimestamp != nil {
				continue
			}
			err := c.kubeClient.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptrUID(pod.UID)}})
			switch {
			case err == nil:
				deleted++
			case !apierrors.IsNotFound(err) && !apierrors.IsConflict(err):
				return deleted, fmt.Errorf("deleting Pod %s/%s of an earlier operator version: %w", pod.Namespace, pod.Name, err)
			}
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			return deleted, nil
		}
	}
}

// ofExistingSimulator says whether the Simulator pod's label names controls
// it (notOwned).
func (c *simulatorController) ofExistingSimulator(pod *corev1.Pod) bool {
	sim, err := c.simLister.Simulators(pod.Namespace).Get(pod.Labels[simulatorrender.SimulatorLabel])
	return err == nil && ours(pod, sim)
}
