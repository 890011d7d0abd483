// Package trim holds the transforms of the operator's informers: they drop,
// before an object enters a cache, what no code of the operator reads of it,
// so that the heap follows what the operator uses rather than what the API
// server sends, or what a user chose to write into an object the operator
// watches (annotations of up to 256 KiB, say).
//
// Dropping metadata.managedFields is safe for an object the operator writes by
// update from a cached copy: the API server keeps the live managedFields when
// an update carries none. It is not for the SecondaryScheduler, which is
// server-side applied from what Extract finds of each field manager in them.
// An object whose metadata is trimmed further (Metadata) must never be written
// back from its cached copy: the Simulator controller writes a Simulator's
// status only (the status subresource keeps the live metadata), and reads a
// Service or NetworkPolicy afresh before it updates one.
package trim

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

// Objects is the transform of the informers but the Simulator controller's
// Pods, Services and NetworkPolicies and the unserved pods controller's. It
// drops managedFields (but the SecondaryScheduler's) and Secret data: the
// operator only checks that its serving certificate Secret exists. Of a
// Simulator, written by any user of its namespace, it keeps the metadata
// that identifies it (Metadata): the Simulator controller reads its spec,
// its status and nothing else of its metadata; and of a spec over
// simulatorrender.MaxSpecBytes, only its size.
func Objects(obj any) (any, error) {
	switch o := obj.(type) {
	case *secondaryschedulerv1.SecondaryScheduler:
		return obj, nil
	case *corev1.Secret:
		o.Data, o.StringData = nil, nil
	case *simv1alpha1.Simulator:
		Metadata(&o.ObjectMeta, nil, simulatorrender.DropOversizedSpec(o))
	}
	if m, ok := obj.(metav1.Object); ok {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// Metadata keeps of m what identifies the object (name, namespace, UID,
// resourceVersion, generation, creation and deletion timestamps), its
// controller reference, and the labels and annotations named; the rest
// (other labels and annotations, other owner references, finalizers,
// managedFields) goes.
func Metadata(m *metav1.ObjectMeta, labels, annotations []string) {
	*m = metav1.ObjectMeta{
		Name:              m.Name,
		Namespace:         m.Namespace,
		UID:               m.UID,
		ResourceVersion:   m.ResourceVersion,
		Generation:        m.Generation,
		CreationTimestamp: m.CreationTimestamp,
		DeletionTimestamp: m.DeletionTimestamp,
		Labels:            only(m.Labels, labels),
		Annotations:       only(m.Annotations, annotations),
		OwnerReferences:   controllerRef(m.OwnerReferences),
	}
}

func only(in map[string]string, keys []string) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := in[k]; ok {
			if out == nil {
				out = make(map[string]string, len(keys))
			}
			out[k] = v
		}
	}
	return out
}

func controllerRef(refs []metav1.OwnerReference) []metav1.OwnerReference {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			return []metav1.OwnerReference{r}
		}
	}
	return nil
}

// Owned returns the transform of the informers of the Pods, Services and
// NetworkPolicies a controller makes (the Simulator controller's): it keeps
// their metadata as Metadata does with the labels and annotations named; of
// a Pod (never written back: it is only created and deleted) the names and
// images of the containers (a pull failure names the image), and of the
// status the phase, reason, message, conditions, start time and container
// statuses; of a Service its type, selector and ports; of a NetworkPolicy
// its spec.
func Owned(labels, annotations []string) cache.TransformFunc {
	return func(obj any) (any, error) {
		switch o := obj.(type) {
		case *corev1.Pod:
			trimPod(o)
		case *corev1.Service:
			o.Spec = corev1.ServiceSpec{Type: o.Spec.Type, Selector: o.Spec.Selector, Ports: o.Spec.Ports}
			o.Status = corev1.ServiceStatus{}
		}
		if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
			if m, ok := a.GetObjectMeta().(*metav1.ObjectMeta); ok {
				Metadata(m, labels, annotations)
			}
		}
		return obj, nil
	}
}

func trimPod(p *corev1.Pod) {
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
