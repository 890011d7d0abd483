package trial

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
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
	Namespaces []corev1.Namespace
	Nodes      []corev1.Node
	Pods       BoundPods
	Replay     []corev1.Pod
	// LiveNodes are the nodes the live scheduler bound the recently bound
	// pods of Replay to, by "namespace/name": what the current arm's
	// placements are held against (MeasureFidelity).
	LiveNodes map[string]string
	// Sampled is what the replay set holds of each namespace.
	Sampled         []NamespaceSample
	PVs             []corev1.PersistentVolume
	PVCs            []corev1.PersistentVolumeClaim
	Services        []corev1.Service
	StorageClasses  []storagev1.StorageClass
	CSINodes        []storagev1.CSINode
	PriorityClasses []schedulingv1.PriorityClass
	RuntimeClasses  []nodev1.RuntimeClass
	// DeviceClasses, ResourceSlices, ResourceClaimTemplates and
	// ResourceClaims are Dynamic Resource Allocation's (resource.k8s.io/v1),
	// when the cluster serves it: the claims that hold devices (allocated),
	// and the templates and other claims the replay set uses
	// (takeReplayClaims); a claim that only replayed pods use is unallocated
	// (settleClaims).
	DeviceClasses          []resourcev1.DeviceClass
	ResourceSlices         []resourcev1.ResourceSlice
	ResourceClaimTemplates []resourcev1.ResourceClaimTemplate
	ResourceClaims         []resourcev1.ResourceClaim
	// Workloads and PodGroups are Kubernetes' own gang scheduling's
	// (scheduling.k8s.io), when the cluster serves it, at GangVersion
	// (gangs.go); scheduler-plugins' PodGroups are among Custom.
	Workloads []unstructured.Unstructured
	PodGroups []unstructured.Unstructured
	// GangVersion is the version of scheduling.k8s.io Workloads and
	// PodGroups were read at ("v1beta1"), "" when the cluster serves none.
	GangVersion string
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

// MaxSnapshotBytes bounds a snapshot: the trimmed objects it holds, in their
// protobuf size (JSON for scheduler-plugins' objects), which is also about
// the heap they take, bound pods being held encoded (BoundPods); the replay
// set, held decoded, counts its heap (heldSize). Every object
// is trimmed as its list page arrives, so what users put in objects that
// scheduling does not read (annotations, env, managed fields) costs nothing;
// what it does read (labels, affinity) stops here, with a message that names
// where most of it is, rather than growing the operator's memory with the
// cluster. An ordinary pod takes 450 bytes: about 300,000 fit, twice the pods
// Kubernetes supports in one cluster.
const MaxSnapshotBytes = 128 << 20

// Take reads a snapshot of src. The replay set is a fair sample of the pending
// pods naming one of schedulerNames and of the pods those schedulers bound
// last, within bounds (see SelectReplay). A cluster whose trimmed objects
// exceed MaxSnapshotBytes is refused with an error that says so.
func Take(ctx context.Context, src Source, schedulerNames []string, bounds ReplayBounds) (*Snapshot, error) {
	return take(ctx, src, schedulerNames, bounds, MaxSnapshotBytes)
}

func take(ctx context.Context, src Source, schedulerNames []string, bounds ReplayBounds, limit int) (*Snapshot, error) {
	s := &Snapshot{}
	size := &snapshotSize{limit: limit, byNamespace: map[string]int{}}
	pods := newReplaySelector(schedulerNames, bounds, size)
	for _, step := range s.listSteps(src) {
		if err := step.take(ctx, size); err != nil {
			return nil, err
		}
	}
	var err error
	if pods.claims, err = takeServed(ctx, size, s.resourceSteps(src), s.forgetResources); err != nil {
		return nil, err
	}
	if pods.groups, err = s.takeGangs(ctx, src, size); err != nil {
		return nil, err
	}
	podStep := listStep{"pods", listFn(src.Kube.CoreV1().Pods("").List), func(o runtime.Object) (int, error) { return 0, pods.add(o.(*corev1.Pod)) }}
	if err := podStep.take(ctx, size); err != nil {
		return nil, err
	}
	s.Pods, s.Replay, s.LiveNodes, s.Sampled = pods.finish()
	if pods.claims {
		if err := s.takeReplayClaims(ctx, src, size); err != nil {
			return nil, err
		}
	}
	s.settleClaims(pods.boundClaims)
	s.settleGroups()
	if src.Dynamic != nil {
		if err := s.takeCustom(ctx, src.Dynamic, size); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// listPageSize is the pagers' page: the objects of a page are held untrimmed
// until it is read, and no page is read ahead (newPager).
const listPageSize = 50

func newPager(list pager.ListPageFunc) *pager.ListPager {
	p := pager.New(list)
	p.PageSize = listPageSize
	p.PageBufferSize = 0
	return p
}

// listStep reads one kind: each object its list pages bring goes to add,
// which keeps it trimmed, if it keeps it, and returns its size.
type listStep struct {
	what string
	list pager.ListPageFunc
	add  func(runtime.Object) (int, error)
}

// take lists the step's kind, counting what it keeps in size.
func (step listStep) take(ctx context.Context, size *snapshotSize) error {
	if err := newPager(step.list).EachListItem(ctx, metav1.ListOptions{}, func(o runtime.Object) error {
		n, err := step.add(o)
		if err != nil {
			return err
		}
		return size.add(step.what, o, n)
	}); err != nil {
		return fmt.Errorf("listing %s: %w", step.what, err)
	}
	return nil
}

// takeServed lists the kinds of an API that a cluster may not serve, or the
// operator not be allowed to read (a 404 or a 403 on a list): all of them or,
// with forget, none. It says whether it copied them.
func takeServed(ctx context.Context, size *snapshotSize, steps []listStep, forget func(*snapshotSize)) (bool, error) {
	for _, step := range steps {
		err := step.take(ctx, size)
		if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
			forget(size)
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// listSteps are the kinds a snapshot reads into s that every cluster serves,
// but pods.
func (s *Snapshot) listSteps(src Source) []listStep {
	core, storage := src.Kube.CoreV1(), src.Kube.StorageV1()
	return []listStep{
		{"namespaces", listFn(core.Namespaces().List), func(o runtime.Object) (int, error) {
			return keep(&s.Namespaces, TrimNamespace(o.(*corev1.Namespace)))
		}},
		{"nodes", listFn(core.Nodes().List), func(o runtime.Object) (int, error) { return keep(&s.Nodes, TrimNode(o.(*corev1.Node))) }},
		{"persistentvolumes", listFn(core.PersistentVolumes().List), func(o runtime.Object) (int, error) {
			return keep(&s.PVs, TrimPV(o.(*corev1.PersistentVolume)))
		}},
		{"persistentvolumeclaims", listFn(core.PersistentVolumeClaims("").List), func(o runtime.Object) (int, error) {
			return keep(&s.PVCs, TrimPVC(o.(*corev1.PersistentVolumeClaim)))
		}},
		{"services", listFn(core.Services("").List), func(o runtime.Object) (int, error) {
			if svc := o.(*corev1.Service); len(svc.Spec.Selector) > 0 {
				return keep(&s.Services, TrimService(svc))
			}
			return 0, nil
		}},
		{"storageclasses", listFn(storage.StorageClasses().List), func(o runtime.Object) (int, error) {
			return keep(&s.StorageClasses, TrimStorageClass(o.(*storagev1.StorageClass)))
		}},
		{"csinodes", listFn(storage.CSINodes().List), func(o runtime.Object) (int, error) { return keep(&s.CSINodes, TrimCSINode(o.(*storagev1.CSINode))) }},
		{"priorityclasses", listFn(src.Kube.SchedulingV1().PriorityClasses().List), func(o runtime.Object) (int, error) {
			if pc := o.(*schedulingv1.PriorityClass); !isBuiltinPriorityClass(pc.Name) {
				return keep(&s.PriorityClasses, TrimPriorityClass(pc))
			}
			return 0, nil
		}},
		{"runtimeclasses", listFn(src.Kube.NodeV1().RuntimeClasses().List), func(o runtime.Object) (int, error) {
			return keep(&s.RuntimeClasses, TrimRuntimeClass(o.(*nodev1.RuntimeClass)))
		}},
	}
}

// keep appends obj to list and returns its protobuf size.
func keep[T any, P interface {
	*T
	Size() int
}](list *[]T, obj T) (int, error) {
	*list = append(*list, obj)
	return P(&obj).Size(), nil
}

// forget empties list, which size no longer counts.
func forget[T any, P interface {
	*T
	Size() int
	metav1.Object
}](size *snapshotSize, list *[]T) {
	for i := range *list {
		o := P(&(*list)[i])
		size.change(o.GetNamespace(), -o.Size())
	}
	*list = nil
}

// mebibytes prints n bytes in MiB, to a tenth.
func mebibytes(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// snapshotSize counts the bytes a snapshot holds, by namespace, against
// its limit.
type snapshotSize struct {
	limit, total int
	byNamespace  map[string]int
}

// add counts the n bytes kept of o, read while listing what.
func (z *snapshotSize) add(what string, o runtime.Object, n int) error {
	ns := ""
	if m, err := apimeta.Accessor(o); err == nil {
		ns = m.GetNamespace()
	}
	return z.addSized(what, ns, n)
}

// addSized counts n bytes of an object of namespace ns ("" for none).
func (z *snapshotSize) addSized(what, ns string, n int) error {
	z.change(ns, n)
	return z.check(what)
}

// change counts n more bytes (fewer, when negative) held of namespace ns
// ("" for cluster-scoped objects).
func (z *snapshotSize) change(ns string, n int) {
	z.total += n
	if ns != "" {
		z.byNamespace[ns] += n
	}
}

func (z *snapshotSize) check(what string) error {
	if z.total <= z.limit {
		return nil
	}
	largest, bytes := "", 0
	for ns, b := range z.byNamespace {
		if b > bytes || (b == bytes && ns < largest) {
			largest, bytes = ns, b
		}
	}
	msg := fmt.Sprintf("the cluster's objects that scheduling reads are over the %s a trial copies (reached while reading %s)",
		mebibytes(z.limit), what)
	if largest != "" {
		msg += fmt.Sprintf("; namespace %s holds %s of them", largest, mebibytes(bytes))
	}
	return errors.New(msg + ": roll this change out with spec.rollout.strategy Direct, or remove what makes them so large")
}

// isBuiltinPriorityClass tells the classes every API server creates itself.
func isBuiltinPriorityClass(name string) bool {
	return name == "system-cluster-critical" || name == "system-node-critical"
}

// takeCustom copies the scheduler-plugins CRDs the cluster has, and their objects.
func (s *Snapshot) takeCustom(ctx context.Context, dyn dynamic.Interface, size *snapshotSize) error {
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
		list := func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return dyn.Resource(gvr).List(ctx, o)
		}
		if err := newPager(list).EachListItem(ctx, metav1.ListOptions{}, func(o runtime.Object) error {
			obj := TrimCustom(o.(*unstructured.Unstructured))
			s.Custom = append(s.Custom, obj)
			n, err := jsonSize(&obj)
			if err != nil {
				return err
			}
			return size.add(name, o, n)
		}); err != nil {
			return fmt.Errorf("listing %s: %w", name, err)
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

// listFn adapts a typed List to the pager.
func listFn[T runtime.Object](list func(context.Context, metav1.ListOptions) (T, error)) pager.ListPageFunc {
	return func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return list(ctx, o) }
}
