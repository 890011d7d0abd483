// Package trim holds the transforms of the operator's informers: they drop,
// before an object enters a cache, what no code of the operator reads of it,
// so that the heap follows what the operator uses rather than what the API
// server sends.
//
// Dropping metadata.managedFields is safe for an object the operator writes by
// update from a cached copy: the API server keeps the live managedFields when
// an update carries none. It is not for the SecondaryScheduler, which is
// server-side applied from what Extract finds of each field manager in them.
package trim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

// Objects is the transform of the informers but the Simulator controller's
// Pods and the unserved pods controller's. It drops managedFields (but the
// SecondaryScheduler's) and Secret data: the operator only checks that its
// serving certificate Secret exists.
func Objects(obj any) (any, error) {
	switch o := obj.(type) {
	case *secondaryschedulerv1.SecondaryScheduler:
		return obj, nil
	case *corev1.Secret:
		o.Data, o.StringData = nil, nil
	}
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// SimulatorObjects is the transform of the Simulator controller's Pods,
// Services and NetworkPolicies: Objects, and of a Pod (never written back: it
// is only created and deleted) only what the controller reads: the metadata,
// the names and images of the containers (a pull failure names the image),
// and of the status the phase, reason, message, conditions, start time and
// container statuses.
func SimulatorObjects(obj any) (any, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		p.Spec = corev1.PodSpec{
			NodeName:       p.Spec.NodeName,
			SchedulerName:  p.Spec.SchedulerName,
			InitContainers: namesAndImages(p.Spec.InitContainers),
			Containers:     namesAndImages(p.Spec.Containers),
		}
		s := p.Status
		p.Status = corev1.PodStatus{
			Phase:                 s.Phase,
			Reason:                s.Reason,
			Message:               s.Message,
			Conditions:            s.Conditions,
			StartTime:             s.StartTime,
			InitContainerStatuses: s.InitContainerStatuses,
			ContainerStatuses:     s.ContainerStatuses,
		}
	}
	return Objects(obj)
}

func namesAndImages(containers []corev1.Container) []corev1.Container {
	if len(containers) == 0 {
		return nil
	}
	out := make([]corev1.Container, len(containers))
	for i, c := range containers {
		out[i] = corev1.Container{Name: c.Name, Image: c.Image}
	}
	return out
}

// PendingPods is the transform of the unserved pods controller's informer,
// whose pods are anyone's: it keeps what names a pod in an event and what
// tells whether and how long it has waited for its scheduler.
func PendingPods(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	*p = corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              p.Name,
			Namespace:         p.Namespace,
			UID:               p.UID,
			ResourceVersion:   p.ResourceVersion,
			CreationTimestamp: p.CreationTimestamp,
			DeletionTimestamp: p.DeletionTimestamp,
		},
		Spec:   corev1.PodSpec{NodeName: p.Spec.NodeName, SchedulerName: p.Spec.SchedulerName},
		Status: corev1.PodStatus{Phase: p.Status.Phase},
	}
	return p, nil
}
