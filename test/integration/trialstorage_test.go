package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// storedObject names one object the test makes in the live cluster.
type storedObject struct {
	gvr             schema.GroupVersionResource
	namespace, name string
}

func (o storedObject) String() string { return o.gvr.Resource + " " + o.namespace + "/" + o.name }

var (
	podGroupsGVR     = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}
	elasticQuotasGVR = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "elasticquotas"}
	crdGVR           = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// TestTrialStorageSeeding: every kind a snapshot copies, written straight
// into a sandbox's etcd (local.Runtime), is served by its kube-apiserver as
// the live cluster's GET gave it, less what the snapshot trims; and as a
// sandbox seeded through its API serves it (uid, times, resourceVersion and
// managedFields aside), so that a trial's result does not depend on how its
// sandboxes were seeded.
func TestTrialStorageSeeding(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	objects := makeLiveObjects(t, env)
	snap, err := trial.Take(ctx, trial.Source{Kube: env.Admin.Kube, Dynamic: env.Admin.Dynamic}, []string{pendingDRAScheduler}, trial.ReplayBounds{Pending: 10})
	if err != nil {
		t.Fatal(err)
	}
	checkReplayClaims(t, snap)
	// The round trip is of the kinds the storage holds; the replay set goes
	// through the API in either case.
	snap.Replay = nil
	if len(snap.CRDs) != 2 || len(snap.Custom) < 2 {
		t.Fatalf("the snapshot holds %d CRDs and %d scheduler-plugins objects, want 2 and at least 2", len(snap.CRDs), len(snap.Custom))
	}
	if len(snap.DeviceClasses) == 0 || len(snap.ResourceSlices) == 0 || len(snap.ResourceClaimTemplates) == 0 || len(snap.ResourceClaims) < 2 {
		t.Fatalf("the snapshot holds %d DeviceClasses, %d ResourceSlices, %d ResourceClaimTemplates and %d ResourceClaims, want some of each and 2 claims",
			len(snap.DeviceClasses), len(snap.ResourceSlices), len(snap.ResourceClaimTemplates), len(snap.ResourceClaims))
	}
	stored, created := checkServedAsLive(t, env, snap, objects)
	checkClaimOwners(t, "in its storage", stored, objects)
	checkClaimOwners(t, "through its API", created, objects)
	checkAdmitted(t, env, stored, objects)
}

// checkServedAsLive seeds snap into a sandbox's storage and, apart, through
// its API, and holds each of objects as both serve it against the live
// cluster's GET (less what the snapshot trims) and against each other. It
// returns what each served.
func checkServedAsLive(t *testing.T, env *framework.Env, snap *trial.Snapshot, objects []storedObject) (stored, created map[string]*unstructured.Unstructured) {
	t.Helper()
	stored = servedBySandbox(t, snap, objects, false)
	created = servedBySandbox(t, snap, objects, true)
	for _, o := range objects {
		live, err := env.Admin.Dynamic.Resource(o.gvr).Namespace(o.namespace).Get(context.Background(), o.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, a := stored[o.String()], created[o.String()]
		if s == nil || a == nil {
			t.Errorf("%s: not served by the sandbox seeded in its storage (%t) or through its API (%t)", o, s != nil, a != nil)
			continue
		}
		want, got := trimmed(t, live), trimmed(t, s)
		if !equality.Semantic.DeepEqual(want, got) {
			t.Errorf("%s: what the snapshot keeps is served otherwise than the live cluster's GET gave it:\nlive:   %+v\nserved: %+v", o, want, got)
		}
		if want, got := normalized(a), normalized(s); !equality.Semantic.DeepEqual(want, got) {
			t.Errorf("%s: served otherwise than when seeded through the API:\nAPI:     %v\nstorage: %v", o, want, got)
		}
		if created := s.GetCreationTimestamp(); s.GetUID() == "" || created.IsZero() {
			t.Errorf("%s: served without the uid (%q) and creation time (%v) the API server sets on create", o, s.GetUID(), s.GetCreationTimestamp())
		}
	}
	return stored, created
}

// checkAdmitted: what admission sets on a pod is served as the live one has it.
func checkAdmitted(t *testing.T, env *framework.Env, served map[string]*unstructured.Unstructured, objects []storedObject) {
	for _, o := range objects {
		if o.gvr.Resource != "pods" {
			continue
		}
		live, err := env.Admin.Kube.CoreV1().Pods(o.namespace).Get(context.Background(), o.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got corev1.Pod
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(served[o.String()].Object, &got); err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(got.Spec.Priority, live.Spec.Priority) || !equality.Semantic.DeepEqual(got.Spec.PreemptionPolicy, live.Spec.PreemptionPolicy) ||
			!equality.Semantic.DeepEqual(got.Spec.Overhead, live.Spec.Overhead) || got.Status.QOSClass != live.Status.QOSClass {
			t.Errorf("%s: priority %v, preemption %v, overhead %v, QoS %s served; the live cluster's admission set %v, %v, %v, %s", o,
				ptr.Deref(got.Spec.Priority, -1), got.Spec.PreemptionPolicy, got.Spec.Overhead, got.Status.QOSClass,
				ptr.Deref(live.Spec.Priority, -1), live.Spec.PreemptionPolicy, live.Spec.Overhead, live.Status.QOSClass)
		}
	}
}

// checkClaimOwners: a claim made from a template for a pod names, as its
// controller, the pod the sandbox serves: the scheduler uses the claim for
// that pod only.
func checkClaimOwners(t *testing.T, seeded string, served map[string]*unstructured.Unstructured, objects []storedObject) {
	t.Helper()
	for _, o := range objects {
		c := served[o.String()]
		if o.gvr.Resource != "resourceclaims" || c == nil {
			continue
		}
		for _, ref := range c.GetOwnerReferences() {
			pod := served[storedObject{gvr: corev1.SchemeGroupVersion.WithResource("pods"), namespace: o.namespace, name: ref.Name}.String()]
			if ref.Kind != "Pod" || pod == nil || ref.UID != pod.GetUID() {
				t.Errorf("%s, seeded %s: owner %s %s (uid %s) is not a pod the sandbox serves by that uid", o, seeded, ref.Kind, ref.Name, ref.UID)
			}
		}
	}
}

// apiSeeded hides local.Runtime's storage seeding: its sandboxes are seeded
// through their API.
type apiSeeded struct{ trial.Runtime }

// servedBySandbox runs a trial of snap (no replay set) and reads objects from
// the current arm's sandbox, seeded through its API or in its storage.
func servedBySandbox(t *testing.T, snap *trial.Snapshot, objects []storedObject, throughAPI bool) map[string]*unstructured.Unstructured {
	bin := framework.Binary(t, "kube-scheduler")
	var rt trial.Runtime = local.New(filepath.Dir(bin), t.TempDir())
	if throughAPI {
		rt = apiSeeded{rt}
	}
	var (
		mu  sync.Mutex
		out = map[string]*unstructured.Unstructured{}
	)
	inspect := func(arm string, cfg *rest.Config) error {
		if arm != "current" {
			return nil
		}
		dyn, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return err
		}
		for _, o := range objects {
			u, err := dyn.Resource(o.gvr).Namespace(o.namespace).Get(context.Background(), o.name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("%s: %w", o, err)
			}
			mu.Lock()
			out[o.String()] = u
			mu.Unlock()
		}
		return nil
	}
	config := framework.ScoringConfig("no-such-scheduler", "LeastAllocated")
	_, err := trial.Run(context.Background(), trial.Options{Snapshot: snap, Runtime: rt, Timeout: 10 * time.Second, Inspect: inspect,
		Current: trial.Arm{Name: "current", Binary: bin, Config: config}, Candidate: trial.Arm{Name: "candidate", Binary: bin, Config: config}})
	if err != nil {
		t.Fatalf("seeding through the API %t: %v", throughAPI, err)
	}
	return out
}

// trimmed is what a snapshot keeps of u.
func trimmed(t *testing.T, u *unstructured.Unstructured) any {
	t.Helper()
	if u.GroupVersionKind().Group == trial.GangGroup {
		switch u.GetKind() {
		case "Workload":
			return trial.TrimWorkload(u)
		case "PodGroup":
			return trial.TrimPodGroup(u)
		}
	}
	switch u.GetKind() {
	case "PodGroup", "ElasticQuota":
		return trial.TrimCustom(u)
	case "CustomResourceDefinition":
		return trial.TrimCRD(u)
	}
	typed, err := clientgoscheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		t.Fatal(err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		t.Fatal(err)
	}
	switch o := typed.(type) {
	case *corev1.Namespace:
		return trial.TrimNamespace(o)
	case *corev1.Node:
		return trial.TrimNode(o)
	case *corev1.Pod:
		return trial.TrimPod(o)
	case *corev1.PersistentVolume:
		return trial.TrimPV(o)
	case *corev1.PersistentVolumeClaim:
		return trial.TrimPVC(o)
	case *corev1.Service:
		return trial.TrimService(o)
	case *storagev1.StorageClass:
		return trial.TrimStorageClass(o)
	case *storagev1.CSINode:
		return trial.TrimCSINode(o)
	case *schedulingv1.PriorityClass:
		return trial.TrimPriorityClass(o)
	case *nodev1.RuntimeClass:
		return trial.TrimRuntimeClass(o)
	case *resourcev1.DeviceClass:
		return trial.TrimDeviceClass(o)
	case *resourcev1.ResourceSlice:
		return trial.TrimResourceSlice(o)
	case *resourcev1.ResourceClaimTemplate:
		return trial.TrimResourceClaimTemplate(o)
	case *resourcev1.ResourceClaim:
		c := trial.TrimResourceClaim(o)
		// Each cluster gave the owning pod a UID of its own (checkClaimOwners).
		for i := range c.OwnerReferences {
			c.OwnerReferences[i].UID = ""
		}
		return c
	}
	t.Fatalf("no trim for %s", u.GroupVersionKind())
	return nil
}

// normalized is u without what differs between two creates of the same
// object: its identity, times and versions, and the times of its status.
func normalized(u *unstructured.Unstructured) map[string]any {
	c := u.DeepCopy()
	for _, f := range []string{"uid", "creationTimestamp", "resourceVersion", "managedFields"} {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(c.Object, "status", "lastPhaseTransitionTime")
	if owners := c.GetOwnerReferences(); len(owners) > 0 {
		for i := range owners {
			owners[i].UID = "" // the owner's, set by each sandbox (checkClaimOwners)
		}
		c.SetOwnerReferences(owners)
	}
	if c.GetKind() == "CustomResourceDefinition" {
		conditions, _, _ := unstructured.NestedSlice(c.Object, "status", "conditions")
		for _, cond := range conditions {
			delete(cond.(map[string]any), "lastTransitionTime")
		}
		_ = unstructured.SetNestedSlice(c.Object, conditions, "status", "conditions")
	}
	return c.Object
}

// makeLiveObjects makes one object (or more) of each kind a snapshot copies
// in the live cluster, as a cluster's own controllers would have them.
func makeLiveObjects(t *testing.T, env *framework.Env) []storedObject {
	ctx := context.Background()
	kube := env.Admin.Kube
	// The CRDs first: they are deleted after the namespace, its objects first.
	crds := installPluginCRDs(t, env)
	ns := env.CreateNamespace(t, "trial-storage")
	out := append([]storedObject{{gvr: corev1.SchemeGroupVersion.WithResource("namespaces"), name: ns}}, crds...)
	add := func(gvr schema.GroupVersionResource, namespace, name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s %s: %v", gvr.Resource, name, err)
		}
		out = append(out, storedObject{gvr: gvr, namespace: namespace, name: name})
	}
	prefix := ns + "-"
	pc, err := kube.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: prefix + "high"}, Value: 1000}, metav1.CreateOptions{})
	add(schedulingv1.SchemeGroupVersion.WithResource("priorityclasses"), "", pc.Name, err)
	rc, err := kube.NodeV1().RuntimeClasses().Create(ctx, &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: prefix + "kata"}, Handler: "kata",
		Overhead:   &nodev1.Overhead{PodFixed: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
		Scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"runtime": "kata"}}}, metav1.CreateOptions{})
	add(nodev1.SchemeGroupVersion.WithResource("runtimeclasses"), "", rc.Name, err)
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	sc, err := kube.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: prefix + "local"},
		Provisioner: "example.com/local", VolumeBindingMode: &wait}, metav1.CreateOptions{})
	add(storagev1.SchemeGroupVersion.WithResource("storageclasses"), "", sc.Name, err)
	node := liveNode(t, env, prefix+"node")
	add(corev1.SchemeGroupVersion.WithResource("nodes"), "", node, nil)
	csi, err := kube.StorageV1().CSINodes().Create(ctx, &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: node},
		Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: "disk.example.com", NodeID: "n1", Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To[int32](16)}}}}}, metav1.CreateOptions{})
	add(storagev1.SchemeGroupVersion.WithResource("csinodes"), "", csi.Name, err)
	out = append(out, liveVolumes(t, env, ns, sc.Name)...)
	svc, err := kube.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	add(corev1.SchemeGroupVersion.WithResource("services"), ns, svc.Name, err)
	out = append(out, livePods(t, env, ns, node, pc.Name, rc.Name)...)
	out = append(out, liveDevices(t, env, ns, node)...)
	out = append(out, liveCustom(t, env, ns)...)
	t.Cleanup(func() {
		_ = kube.SchedulingV1().PriorityClasses().Delete(ctx, pc.Name, metav1.DeleteOptions{})
		_ = kube.NodeV1().RuntimeClasses().Delete(ctx, rc.Name, metav1.DeleteOptions{})
		_ = kube.StorageV1().StorageClasses().Delete(ctx, sc.Name, metav1.DeleteOptions{})
		_ = kube.StorageV1().CSINodes().Delete(ctx, csi.Name, metav1.DeleteOptions{})
		_ = kube.CoreV1().Nodes().Delete(ctx, node, metav1.DeleteOptions{})
		_ = kube.CoreV1().PersistentVolumes().Delete(ctx, ns+"-pv", metav1.DeleteOptions{})
	})
	return out
}

// liveNode is a ready node with labels, a taint, capacity and images, as a
// kubelet reports it.
func liveNode(t *testing.T, env *framework.Env, name string) string {
	ctx := context.Background()
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("110")}
	n, err := env.Admin.Kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{"topology.kubernetes.io/zone": "a", "runtime": "kata"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Status = corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
		Images:     []corev1.ContainerImage{{Names: []string{"app:1"}, SizeBytes: 1 << 20}}}
	if _, err := env.Admin.Kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

// liveVolumes are a bound PersistentVolume and its claim.
func liveVolumes(t *testing.T, env *framework.Env, ns, class string) []storedObject {
	ctx := context.Background()
	kube := env.Admin.Kube
	pv, err := kube.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: ns + "-pv"},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: class,
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "disk.example.com", VolumeHandle: "v1"}},
			ClaimRef:               &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: ns, Name: "data"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pv.Status.Phase = corev1.VolumeBound
	if _, err := kube.CoreV1().PersistentVolumes().UpdateStatus(ctx, pv, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pvc, err := kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: &class, VolumeName: pv.Name,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pvc.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: pvc.Spec.AccessModes, Capacity: pvc.Spec.Resources.Requests}
	if _, err := kube.CoreV1().PersistentVolumeClaims(ns).UpdateStatus(ctx, pvc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return []storedObject{{gvr: corev1.SchemeGroupVersion.WithResource("persistentvolumes"), name: pv.Name},
		{gvr: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), namespace: ns, name: pvc.Name}}
}

// livePods are bound pods: one of every field a snapshot keeps, one of a
// priority and a runtime class (admission sets its priority and overhead),
// one in a PodGroup.
func livePods(t *testing.T, env *framework.Env, ns, node, priorityClass, runtimeClass string) []storedObject {
	ctx := context.Background()
	requests := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}
	always := corev1.ContainerRestartPolicyAlways
	pods := []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "full", Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"scheduling.x-k8s.io/note": "kept", "other": "dropped"}},
			Spec: corev1.PodSpec{NodeName: node, SchedulerName: "default-scheduler", NodeSelector: map[string]string{"topology.kubernetes.io/zone": "a"},
				Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname"}}}},
				Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}},
				TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
					WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
				HostNetwork: true,
				InitContainers: []corev1.Container{{Name: "sidecar", Image: "proxy:1", RestartPolicy: &always,
					Resources: corev1.ResourceRequirements{Requests: requests}}},
				Containers: []corev1.Container{{Name: "app", Image: "app:1", Env: []corev1.EnvVar{{Name: "SECRET", Value: "dropped"}},
					Ports: []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 8080}}, Resources: corev1.ResourceRequirements{Requests: requests, Limits: requests}}},
				Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
					{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "classes"}, Spec: corev1.PodSpec{NodeName: node, PriorityClassName: priorityClass, RuntimeClassName: &runtimeClass,
			Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "gang-0", Labels: map[string]string{"scheduling.x-k8s.io/pod-group": "gang"}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "app:1", Resources: corev1.ResourceRequirements{Requests: requests}}}}},
	}
	var out []storedObject
	for _, p := range pods {
		if _, err := env.Admin.Kube.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("pod %s: %v", p.Name, err)
		}
		out = append(out, storedObject{gvr: corev1.SchemeGroupVersion.WithResource("pods"), namespace: ns, name: p.Name})
	}
	return out
}

// liveDevices are Dynamic Resource Allocation's objects as a driver and the
// cluster's controllers leave them: a DeviceClass, a ResourceSlice of node's
// devices, a ResourceClaimTemplate, and a pod bound to node with two claims,
// each allocated on node and reserved for it: one made from the template,
// which the pod controls and names in its status, and one it names.
func liveDevices(t *testing.T, env *framework.Env, ns, node string) []storedObject {
	ctx := context.Background()
	dra := env.Admin.Kube.ResourceV1()
	const driver = "gpu.example.com"
	var out []storedObject
	add := func(gvr schema.GroupVersionResource, namespace, name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s %s: %v", gvr.Resource, name, err)
		}
		out = append(out, storedObject{gvr: gvr, namespace: namespace, name: name})
	}
	draGVR := resourcev1.SchemeGroupVersion.WithResource
	class, err := dra.DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-gpu"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "` + driver + `"`}}}}},
		metav1.CreateOptions{})
	add(draGVR("deviceclasses"), "", ns+"-gpu", err)
	t.Cleanup(func() { _ = dra.DeviceClasses().Delete(ctx, class.Name, metav1.DeleteOptions{}) })
	slice, err := dra.ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: node + "-gpu"},
		Spec: resourcev1.ResourceSliceSpec{Driver: driver, Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}, NodeName: &node,
			Devices: []resourcev1.Device{{Name: "gpu-0",
				Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: ptr.To("a100")}},
				Capacity:   map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: resource.MustParse("40Gi")}}}, {Name: "gpu-1"}}}},
		metav1.CreateOptions{})
	add(draGVR("resourceslices"), "", node+"-gpu", err)
	t.Cleanup(func() { _ = dra.ResourceSlices().Delete(ctx, slice.Name, metav1.DeleteOptions{}) })
	spec := resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
		Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class.Name, Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
			Expression: `device.attributes["` + driver + `"].model == "a100"`}}}}}}}}
	template, err := dra.ResourceClaimTemplates(ns).Create(ctx, &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: spec}}, metav1.CreateOptions{})
	add(draGVR("resourceclaimtemplates"), ns, "gpu", err)

	pendingDRA(t, env, ns, spec)

	const fromTemplate = "dra-gpu-x7k2p" // as the resource claim controller names it
	pods := env.Admin.Kube.CoreV1().Pods(ns)
	pod, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "dra"}, Spec: corev1.PodSpec{NodeName: node,
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &template.Name}, {Name: "shared", ResourceClaimName: ptr.To("shared-gpu")}},
		Containers: []corev1.Container{{Name: "app", Image: "app:1",
			Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}, {Name: "shared"}}}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("pod dra: %v", err)
	}
	pod.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To(fromTemplate)}}
	_, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	add(corev1.SchemeGroupVersion.WithResource("pods"), ns, pod.Name, err)

	allocatedTo := func(name, device string, owners []metav1.OwnerReference) error {
		c, err := dra.ResourceClaims(ns).Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners}, Spec: spec},
			metav1.CreateOptions{})
		if err != nil {
			return err
		}
		c.Status = resourcev1.ResourceClaimStatus{
			Allocation: &resourcev1.AllocationResult{
				Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: driver, Pool: node, Device: device}}},
				NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
					{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
			ReservedFor: []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}}}
		_, err = dra.ResourceClaims(ns).UpdateStatus(ctx, c, metav1.UpdateOptions{})
		return err
	}
	add(draGVR("resourceclaims"), ns, fromTemplate, allocatedTo(fromTemplate, "gpu-0",
		[]metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}))
	add(draGVR("resourceclaims"), ns, "shared-gpu", allocatedTo("shared-gpu", "gpu-1", nil))
	return out
}

// pendingDRAScheduler names the scheduler of the pending pod pendingDRA makes.
const pendingDRAScheduler = "trial-storage-pending"

// pendingDRA makes a pending pod of pendingDRAScheduler that uses the
// template "gpu" and the unallocated claim "pending-gpu", and a claim and a
// template nothing uses, as any tenant may.
func pendingDRA(t *testing.T, env *framework.Env, ns string, spec resourcev1.ResourceClaimSpec) {
	t.Helper()
	ctx := context.Background()
	dra := env.Admin.Kube.ResourceV1()
	for _, name := range []string{"pending-gpu", "unused"} {
		if _, err := dra.ResourceClaims(ns).Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec},
			metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := dra.ResourceClaimTemplates(ns).Create(ctx, &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "unused"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: spec}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Admin.Kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "dra-pending"}, Spec: corev1.PodSpec{
		SchedulerName: pendingDRAScheduler,
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu")},
			{Name: "shared", ResourceClaimName: ptr.To("pending-gpu")}},
		Containers: []corev1.Container{{Name: "app", Image: "app:1",
			Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}, {Name: "shared"}}}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// checkReplayClaims: the snapshot holds the template and the unallocated
// claim the replayed pod uses, and neither unused one.
func checkReplayClaims(t *testing.T, snap *trial.Snapshot) {
	t.Helper()
	if len(snap.Replay) != 1 || snap.Replay[0].Name != "dra-pending" {
		t.Fatalf("replay set %d pods, want dra-pending alone", len(snap.Replay))
	}
	ns := snap.Replay[0].Namespace
	names := map[string]bool{}
	for _, c := range snap.ResourceClaims {
		names["claim "+c.Namespace+"/"+c.Name] = true
	}
	for _, c := range snap.ResourceClaimTemplates {
		names["template "+c.Namespace+"/"+c.Name] = true
	}
	for key, want := range map[string]bool{"claim " + ns + "/pending-gpu": true, "template " + ns + "/gpu": true,
		"claim " + ns + "/unused": false, "template " + ns + "/unused": false} {
		if names[key] != want {
			t.Errorf("%s copied: %t, want %t", key, names[key], want)
		}
	}
}

// liveCustom is a PodGroup and an ElasticQuota.
func liveCustom(t *testing.T, env *framework.Env, ns string) []storedObject {
	objs := []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
			"metadata": map[string]any{"name": "gang", "namespace": ns, "labels": map[string]any{"team": "a"}},
			"spec":     map[string]any{"minMember": int64(2), "scheduleTimeoutSeconds": int64(30)}}},
		{Object: map[string]any{"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "ElasticQuota",
			"metadata": map[string]any{"name": "quota", "namespace": ns},
			"spec":     map[string]any{"min": map[string]any{"cpu": "1"}, "max": map[string]any{"cpu": "4"}}}},
	}
	var out []storedObject
	for i, gvr := range []schema.GroupVersionResource{podGroupsGVR, elasticQuotasGVR} {
		if _, err := env.Admin.Dynamic.Resource(gvr).Namespace(ns).Create(context.Background(), objs[i], metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: %v", gvr.Resource, err)
		}
		out = append(out, storedObject{gvr: gvr, namespace: ns, name: objs[i].GetName()})
	}
	return out
}

// installPluginCRDs installs scheduler-plugins' CRDs (from
// hack/controlplane/build.sh, _output/controlplane/crds) for this test.
func installPluginCRDs(t *testing.T, env *framework.Env) []storedObject {
	ctx := context.Background()
	dir := filepath.Join(filepath.Dir(filepath.Dir(framework.Binary(t, "kube-apiserver"))), "crds")
	var out []storedObject
	for _, file := range []string{"podgroups.yaml", "elasticquotas.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatalf("scheduler-plugins' CRDs (make controlplane builds them): %v", err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.NewYAMLOrJSONDecoder(strings.NewReader(string(data)), 4096).Decode(&u.Object); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if _, err := env.Admin.Dynamic.Resource(crdGVR).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		name := u.GetName()
		t.Cleanup(func() { _ = env.Admin.Dynamic.Resource(crdGVR).Delete(ctx, name, metav1.DeleteOptions{}) })
		framework.WaitForWithin(ctx, t, 30*time.Second, "CRD "+name+" established", func() (bool, error) {
			got, err := env.Admin.Dynamic.Resource(crdGVR).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, c := range conds {
				if m := c.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, fmt.Errorf("not established yet")
		})
		out = append(out, storedObject{gvr: crdGVR, name: name})
	}
	return out
}
