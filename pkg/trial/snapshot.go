package trial

import (
	"context"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/pager"
)

// Snapshot is what scheduling reads of a cluster, trimmed (see TrimPod and its
// siblings). Pods are bound pods, which stay on their node; Replay are the
// pods both schedulers place, with their node cleared.
type Snapshot struct {
	Namespaces      []corev1.Namespace
	Nodes           []corev1.Node
	Pods            []corev1.Pod
	Replay          []corev1.Pod
	PVs             []corev1.PersistentVolume
	PVCs            []corev1.PersistentVolumeClaim
	Services        []corev1.Service
	StorageClasses  []storagev1.StorageClass
	CSINodes        []storagev1.CSINode
	PriorityClasses []schedulingv1.PriorityClass
	RuntimeClasses  []nodev1.RuntimeClass
	// CRDs are those of Custom, copied from the cluster.
	CRDs []unstructured.Unstructured
	// Custom are scheduler-plugins' objects: PodGroups and ElasticQuotas.
	Custom []unstructured.Unstructured
}

// Source is the live cluster a snapshot is read from; only list and get
// requests are sent.
type Source struct {
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
}

// pluginCRDs are the CustomResourceDefinitions of scheduler-plugins whose
// objects a snapshot copies when the cluster has them.
var pluginCRDs = []string{"podgroups.scheduling.x-k8s.io", "elasticquotas.scheduling.x-k8s.io"}

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// Take reads a snapshot of src. The replay set is every pending pod naming one
// of schedulerNames and the last replay pods those schedulers bound (see
// SelectReplay).
func Take(ctx context.Context, src Source, schedulerNames []string, replay int) (*Snapshot, error) {
	s := &Snapshot{}
	core, storage := src.Kube.CoreV1(), src.Kube.StorageV1()
	steps := []struct {
		what string
		list pager.ListPageFunc
		add  func(runtime.Object)
	}{
		{"namespaces", listFn(core.Namespaces().List), func(o runtime.Object) {
			n := o.(*corev1.Namespace)
			s.Namespaces = append(s.Namespaces, TrimNamespace(n))
		}},
		{"nodes", listFn(core.Nodes().List), func(o runtime.Object) { s.Nodes = append(s.Nodes, TrimNode(o.(*corev1.Node))) }},
		{"persistentvolumes", listFn(core.PersistentVolumes().List), func(o runtime.Object) { s.PVs = append(s.PVs, TrimPV(o.(*corev1.PersistentVolume))) }},
		{"persistentvolumeclaims", listFn(core.PersistentVolumeClaims("").List), func(o runtime.Object) {
			s.PVCs = append(s.PVCs, TrimPVC(o.(*corev1.PersistentVolumeClaim)))
		}},
		{"services", listFn(core.Services("").List), func(o runtime.Object) {
			if svc := o.(*corev1.Service); len(svc.Spec.Selector) > 0 {
				s.Services = append(s.Services, TrimService(svc))
			}
		}},
		{"storageclasses", listFn(storage.StorageClasses().List), func(o runtime.Object) {
			s.StorageClasses = append(s.StorageClasses, TrimStorageClass(o.(*storagev1.StorageClass)))
		}},
		{"csinodes", listFn(storage.CSINodes().List), func(o runtime.Object) { s.CSINodes = append(s.CSINodes, TrimCSINode(o.(*storagev1.CSINode))) }},
		{"priorityclasses", listFn(src.Kube.SchedulingV1().PriorityClasses().List), func(o runtime.Object) {
			if pc := o.(*schedulingv1.PriorityClass); !isBuiltinPriorityClass(pc.Name) {
				s.PriorityClasses = append(s.PriorityClasses, TrimPriorityClass(pc))
			}
		}},
		{"runtimeclasses", listFn(src.Kube.NodeV1().RuntimeClasses().List), func(o runtime.Object) {
			s.RuntimeClasses = append(s.RuntimeClasses, TrimRuntimeClass(o.(*nodev1.RuntimeClass)))
		}},
	}
	for _, step := range steps {
		if err := pager.New(step.list).EachListItem(ctx, metav1.ListOptions{}, func(o runtime.Object) error {
			step.add(o)
			return nil
		}); err != nil {
			return nil, fmt.Errorf("listing %s: %w", step.what, err)
		}
	}
	var pods []corev1.Pod
	if err := pager.New(listFn(core.Pods("").List)).EachListItem(ctx, metav1.ListOptions{}, func(o runtime.Object) error {
		pods = append(pods, *o.(*corev1.Pod))
		return nil
	}); err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	s.Pods, s.Replay = SelectReplay(pods, schedulerNames, replay)
	if src.Dynamic != nil {
		if err := s.takeCustom(ctx, src.Dynamic); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// isBuiltinPriorityClass tells the classes every API server creates itself.
func isBuiltinPriorityClass(name string) bool {
	return name == "system-cluster-critical" || name == "system-node-critical"
}

// takeCustom copies the scheduler-plugins CRDs the cluster has, and their objects.
func (s *Snapshot) takeCustom(ctx context.Context, dyn dynamic.Interface) error {
	for _, name := range pluginCRDs {
		crd, err := dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading CustomResourceDefinition %s: %w", name, err)
		}
		gvr, ok := storageVersion(crd)
		if !ok {
			continue
		}
		s.CRDs = append(s.CRDs, TrimCRD(crd))
		list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("listing %s: %w", name, err)
		}
		for i := range list.Items {
			s.Custom = append(s.Custom, TrimCustom(&list.Items[i]))
		}
	}
	return nil
}

// storageVersion is the resource of a CRD's storage version.
func storageVersion(crd *unstructured.Unstructured) (schema.GroupVersionResource, bool) {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		m, _ := v.(map[string]interface{})
		if stored, _ := m["storage"].(bool); stored {
			name, _ := m["name"].(string)
			return schema.GroupVersionResource{Group: group, Version: name, Resource: plural}, true
		}
	}
	return schema.GroupVersionResource{}, false
}

// SelectReplay splits pods into the bound pods that stay on their node and the
// replay set, trimmed. The replay set is every pending, ungated pod naming one
// of schedulerNames, and the last n running pods those schedulers bound, by
// binding time (the PodScheduled condition's transition; creation time when a
// pod has none), with their node cleared. Finished and deleted pods hold no
// resources and are left out.
func SelectReplay(pods []corev1.Pod, schedulerNames []string, n int) (bound, replay []corev1.Pod) {
	ours := map[string]bool{}
	for _, name := range schedulerNames {
		ours[name] = true
	}
	var recent, pending []*corev1.Pod
	for i := range pods {
		p := &pods[i]
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		switch {
		case p.Spec.NodeName == "" && ours[p.Spec.SchedulerName] && len(p.Spec.SchedulingGates) == 0:
			pending = append(pending, p)
		case p.Spec.NodeName == "":
			// Another scheduler's, or gated: it holds nothing in either arm.
		case ours[p.Spec.SchedulerName]:
			recent = append(recent, p)
		default:
			bound = append(bound, TrimPod(p))
		}
	}
	// Replayed in the order the pods came: the last n bound, oldest first,
	// then the pending ones by creation.
	sort.SliceStable(pending, func(i, j int) bool { return pending[i].CreationTimestamp.Before(&pending[j].CreationTimestamp) })
	sort.SliceStable(recent, func(i, j int) bool { return boundAt(recent[i]).Before(boundAt(recent[j])) })
	keep := max(len(recent)-max(n, 0), 0)
	for i, p := range recent {
		if i < keep {
			bound = append(bound, TrimPod(p))
		} else {
			replay = append(replay, replayed(p))
		}
	}
	for _, p := range pending {
		replay = append(replay, replayed(p))
	}
	return bound, replay
}

func replayed(p *corev1.Pod) corev1.Pod {
	out := TrimPod(p)
	out.Spec.NodeName = ""
	return out
}

// boundAt is when a pod was bound, as near as the API tells.
func boundAt(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	return p.CreationTimestamp.Time
}

// listFn adapts a typed List to the pager.
func listFn[T runtime.Object](list func(context.Context, metav1.ListOptions) (T, error)) pager.ListPageFunc {
	return func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return list(ctx, o) }
}
