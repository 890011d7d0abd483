package trial

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// StoredObjects calls put with objects of a snapshot as kube-apiserver
// v1.37 stores them in etcd: its key below the storage prefix ("/registry/")
// and its value, protobuf in the "k8s\x00" envelope for built-in kinds and
// JSON for custom resources. Built-in kinds are stored in the version
// kube-apiserver stores them in (resource.k8s.io in v1); scheduling.k8s.io's
// gangs are JSON at the version they were read at (storedGangs). put is
// called from one goroutine; its error stops the walk.
type StoredObjects func(put func(key string, value []byte) error) error

// StoragePrefix is the etcd prefix of a sandbox's kube-apiserver (its
// --etcd-prefix, the default).
const StoragePrefix = "/registry/"

var (
	storageScheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(s); err != nil {
			panic(err)
		}
		if err := apiextensionsv1.AddToScheme(s); err != nil {
			panic(err)
		}
		return s
	}()
	storageCodecs     = serializer.NewCodecFactory(storageScheme)
	storageSerializer = protobuf.NewSerializer(storageScheme, storageScheme)
)

// storedKind writes one kind: its objects' keys and values.
type storedKind struct {
	what string
	n    int
	at   func(i int) (key string, obj runtime.Object, err error)
}

// Storage is a snapshot as a sandbox's storage takes it, in two writes that
// agree on the UIDs claims name: Objects while nothing schedules, and
// Replay once the arm's scheduler has seen them all (fence). Replay after
// Objects, never at once.
type Storage struct {
	snap  *Snapshot
	at    metav1.Time
	uids  storedUIDs
	admit *podAdmission
}

// Storage is snap as a sandbox's storage takes it, with the fields the API
// server sets on create (created) and those its admission sets (admitPod);
// created is their creation time.
func (snap *Snapshot) Storage(created time.Time) *Storage {
	return &Storage{snap: snap, at: metav1.NewTime(created.Truncate(time.Second)), uids: storedUIDs{}, admit: newPodAdmission(snap)}
}

// Objects are the snapshot's objects but the replayed pods, with the claims
// those pods control.
func (s *Storage) Objects() StoredObjects {
	return func(put func(key string, value []byte) error) error {
		kinds, err := s.storedKinds()
		if err != nil {
			return err
		}
		return putKinds(put, kinds...)
	}
}

// Replay are the replayed pods, labelled ReplayLabel, in replay order: a
// scheduler that sees them arrive one by one in that order queues them so
// (the scheduling queue breaks ties of priority by when it first saw a pod),
// whatever its pace.
func (s *Storage) Replay() StoredObjects {
	return func(put func(key string, value []byte) error) error {
		replay := s.snap.Replay
		return putKinds(put, storedKind{what: "replayed pods", n: len(replay), at: func(i int) (string, runtime.Object, error) {
			return s.pod(replayCopy(&replay[i]))
		}})
	}
}

func putKinds(put func(key string, value []byte) error, kinds ...storedKind) error {
	for _, k := range kinds {
		for i := range k.n {
			key, obj, err := k.at(i)
			if err == nil {
				err = putObject(put, key, obj)
			}
			if err != nil {
				return fmt.Errorf("writing %s into the sandbox's storage: %w", k.what, err)
			}
		}
	}
	return nil
}

// pod is p as the API server stores it after its create and admission.
func (s *Storage) pod(p *corev1.Pod) (string, runtime.Object, error) {
	created(p, s.at)
	p.UID = s.uids.of("Pod", p.Namespace+"/"+p.Name)
	if err := s.admit.pod(p); err != nil {
		return "", nil, fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	createdPod(p)
	return namespacedKey("pods", p.Namespace, p.Name), p, nil
}

// putObject encodes obj as the API server stores it: custom resources
// (unstructured) as JSON, the rest as protobuf in their group's version.
func putObject(put func(string, []byte) error, key string, obj runtime.Object) error {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		data, err := json.Marshal(u.Object)
		if err != nil {
			return err
		}
		return put(key, append(data, '\n'))
	}
	gvks, _, err := storageScheme.ObjectKinds(obj)
	if err != nil {
		return err
	}
	data, err := runtime.Encode(storageCodecs.EncoderForVersion(storageSerializer, gvks[0].GroupVersion()), obj)
	if err != nil {
		return err
	}
	return put(key, data)
}

// created sets what the API server sets on every object it creates.
func created(m metav1.Object, at metav1.Time) {
	m.SetUID(uuid.NewUUID())
	m.SetCreationTimestamp(at)
	m.SetResourceVersion("")
}

func clusterKey(resource, name string) string { return resource + "/" + name }

func namespacedKey(resource, namespace, name string) string {
	return resource + "/" + namespace + "/" + name
}

// typed is a storedKind of a typed list: key names each object, set fills
// in what the API server would (beyond created).
func typed[T any, P interface {
	*T
	runtime.Object
	metav1.Object
}](what string, items []T, at metav1.Time, key func(P) string, set func(P) error) storedKind {
	return storedKind{what: what, n: len(items), at: func(i int) (string, runtime.Object, error) {
		o := P(new(T))
		*o = items[i]
		o = o.DeepCopyObject().(P)
		created(o, at)
		if set != nil {
			if err := set(o); err != nil {
				return "", nil, err
			}
		}
		return key(o), o, nil
	}}
}

// storedUIDs are the UIDs of the objects written into a sandbox's storage
// that claims name as their controller, by "Kind/namespace/name", made on
// first ask: a claim and the pod or PodGroup that controls it agree,
// whichever is written first.
type storedUIDs map[string]types.UID

func (u storedUIDs) of(kind, key string) types.UID {
	k := kind + "/" + key
	if _, ok := u[k]; !ok {
		u[k] = uuid.NewUUID()
	}
	return u[k]
}

// storedKinds are the objects of Objects, kind by kind.
func (s *Storage) storedKinds() ([]storedKind, error) {
	snap, at, uids := s.snap, s.at, s.uids
	kinds := []storedKind{
		typed("namespaces", snap.Namespaces, at, func(o *corev1.Namespace) string { return clusterKey("namespaces", o.Name) },
			func(o *corev1.Namespace) error { createdNamespace(o); return nil }),
		typed("priorityclasses", snap.PriorityClasses, at, func(o *schedulingv1.PriorityClass) string { return clusterKey("priorityclasses", o.Name) },
			func(o *schedulingv1.PriorityClass) error { o.Generation = 1; return nil }),
		typed("runtimeclasses", snap.RuntimeClasses, at, func(o *nodev1.RuntimeClass) string { return clusterKey("runtimeclasses", o.Name) }, nil),
		typed("storageclasses", snap.StorageClasses, at, func(o *storagev1.StorageClass) string { return clusterKey("storageclasses", o.Name) }, nil),
		typed("csinodes", snap.CSINodes, at, func(o *storagev1.CSINode) string { return clusterKey("csinodes", o.Name) }, nil),
		typed("nodes", snap.Nodes, at, func(o *corev1.Node) string { return clusterKey("minions", o.Name) }, nil),
		typed("persistentvolumes", snap.PVs, at, func(o *corev1.PersistentVolume) string { return clusterKey("persistentvolumes", o.Name) },
			func(o *corev1.PersistentVolume) error { createdPV(o, at); return nil }),
		typed("deviceclasses", snap.DeviceClasses, at, func(o *resourcev1.DeviceClass) string { return clusterKey("deviceclasses", o.Name) },
			func(o *resourcev1.DeviceClass) error { o.Generation = 1; return nil }),
		typed("resourceslices", snap.ResourceSlices, at, func(o *resourcev1.ResourceSlice) string { return clusterKey("resourceslices", o.Name) },
			func(o *resourcev1.ResourceSlice) error { o.Generation = 1; return nil }),
		typed("persistentvolumeclaims", snap.PVCs, at, func(o *corev1.PersistentVolumeClaim) string {
			return namespacedKey("persistentvolumeclaims", o.Namespace, o.Name)
		}, func(o *corev1.PersistentVolumeClaim) error { createdPVC(o); return nil }),
		typed("services", snap.Services, at, func(o *corev1.Service) string { return namespacedKey("services/specs", o.Namespace, o.Name) },
			func(o *corev1.Service) error { createdService(o); return nil }),
	}
	custom, err := snap.storedCustom(at)
	if err != nil {
		return nil, err
	}
	kinds = append(kinds, custom...)
	kinds = append(kinds,
		storedGangs("workloads", snap.Workloads, at, nil),
		storedGangs("podgroups", snap.PodGroups, at, func(o *unstructured.Unstructured) {
			o.SetUID(uids.of("PodGroup", o.GetNamespace()+"/"+o.GetName()))
			// As the PodGroupProtection admission plugin stamps every new group.
			o.SetFinalizers([]string{podGroupProtectionFinalizer})
		}),
		typed("resourceclaimtemplates", snap.ResourceClaimTemplates, at, func(o *resourcev1.ResourceClaimTemplate) string {
			return namespacedKey("resourceclaimtemplates", o.Namespace, o.Name)
		}, nil),
		typed("resourceclaims", snap.ResourceClaims, at, func(o *resourcev1.ResourceClaim) string { return namespacedKey("resourceclaims", o.Namespace, o.Name) },
			func(o *resourcev1.ResourceClaim) error {
				if kind, owner, ok := claimController(o); ok {
					*o = *controlledBy(o, uids.of(kind, owner))
				}
				return nil
			}),
	)
	return append(kinds, storedKind{what: "bound pods", n: snap.Pods.Len(), at: func(i int) (string, runtime.Object, error) {
		p, err := snap.Pods.At(i)
		if err != nil {
			return "", nil, err
		}
		return s.pod(p)
	}}), nil
}

// podGroupProtectionFinalizer is what kube-apiserver's PodGroupProtection
// admission puts on each PodGroup it creates.
const podGroupProtectionFinalizer = GangGroup + "/podgroup-protection"

// storedGangs are Kubernetes' own gang objects of resource: JSON at the
// version they were read at, which kube-apiserver decodes as it decodes its
// own protobuf (its storage reads either) and converts to the version it
// serves; set fills in what the API server would beyond created.
func storedGangs(resource string, items []unstructured.Unstructured, at metav1.Time, set func(*unstructured.Unstructured)) storedKind {
	return storedKind{what: resource + "." + GangGroup, n: len(items), at: func(i int) (string, runtime.Object, error) {
		o := items[i].DeepCopy()
		created(o, at)
		if set != nil {
			set(o)
		}
		return namespacedKey(resource, o.GetNamespace(), o.GetName()), o, nil
	}}
}

// storedCustom are the CRDs, typed (protobuf, as the API server stores
// them), and their objects, as JSON under their group and plural.
func (snap *Snapshot) storedCustom(at metav1.Time) ([]storedKind, error) {
	plurals := map[schema.GroupKind]string{}
	crds := make([]apiextensionsv1.CustomResourceDefinition, len(snap.CRDs))
	for i := range snap.CRDs {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(snap.CRDs[i].Object, &crds[i]); err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %s: %w", snap.CRDs[i].GetName(), err)
		}
		plurals[schema.GroupKind{Group: crds[i].Spec.Group, Kind: crds[i].Spec.Names.Kind}] = crds[i].Spec.Names.Plural
	}
	return []storedKind{
		typed("CustomResourceDefinitions", crds, at, func(o *apiextensionsv1.CustomResourceDefinition) string {
			return clusterKey("apiextensions.k8s.io/customresourcedefinitions", o.Name)
		}, func(o *apiextensionsv1.CustomResourceDefinition) error { createdCRD(o); return nil }),
		{what: "scheduler-plugins objects", n: len(snap.Custom), at: func(i int) (string, runtime.Object, error) {
			u := snap.Custom[i].DeepCopy()
			gvk := u.GroupVersionKind()
			plural, ok := plurals[gvk.GroupKind()]
			if !ok {
				return "", nil, fmt.Errorf("%s %s/%s: the snapshot has no CustomResourceDefinition of its kind", gvk.Kind, u.GetNamespace(), u.GetName())
			}
			u.SetUID(uuid.NewUUID())
			u.SetCreationTimestamp(at)
			u.SetGeneration(1)
			key := gvk.Group + "/" + plural + "/" + u.GetName()
			if ns := u.GetNamespace(); ns != "" {
				key = gvk.Group + "/" + plural + "/" + ns + "/" + u.GetName()
			}
			return key, u, nil
		}},
	}, nil
}
