package trial

import (
	"maps"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// The trimming functions copy only what the scheduler and its plugins read:
// no env value, no envFrom, no Secret or ConfigMap reference and no
// annotation but those below leaves the live cluster.

// keptAnnotationPrefixes are the annotations plugins read: scheduler-plugins'
// own, and those of volume binding (bind-completed, selected-node,
// storage-provisioner).
var keptAnnotationPrefixes = []string{
	"scheduling.x-k8s.io/", "scheduling.sigs.k8s.io/",
	"pv.kubernetes.io/", "volume.kubernetes.io/", "volume.beta.kubernetes.io/",
}

func keptAnnotations(in map[string]string) map[string]string {
	var out map[string]string
	for k, v := range in {
		for _, p := range keptAnnotationPrefixes {
			if strings.HasPrefix(k, p) {
				if out == nil {
					out = map[string]string{}
				}
				out[k] = v
				break
			}
		}
	}
	return out
}

// meta keeps the name, namespace, labels (selectors of affinity, spread and
// PodGroups read them) and the annotations plugins read.
func meta(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, Labels: keptLabels(m.Labels), Annotations: keptAnnotations(m.Annotations)}
}

// trialLabelPrefix is the prefix of the labels a trial sets in its sandboxes
// (ReplayLabel): a live object carrying one is copied without it, or an arm
// would count it among the pods it watches.
const trialLabelPrefix = "trial.secondary-scheduler.openshift.io/"

func keptLabels(in map[string]string) map[string]string {
	for k := range in {
		if strings.HasPrefix(k, trialLabelPrefix) {
			out := maps.Clone(in)
			maps.DeleteFunc(out, func(k, _ string) bool { return strings.HasPrefix(k, trialLabelPrefix) })
			return out
		}
	}
	return in
}

// TrimNode keeps a node's labels, taints, unschedulable flag, capacity,
// allocatable, condition statuses and images (ImageLocality scores them).
func TrimNode(n *corev1.Node) corev1.Node {
	out := corev1.Node{ObjectMeta: meta(n.ObjectMeta)}
	out.Spec.Taints = n.Spec.Taints
	out.Spec.Unschedulable = n.Spec.Unschedulable
	out.Status.Capacity = n.Status.Capacity
	out.Status.Allocatable = n.Status.Allocatable
	for _, c := range n.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, corev1.NodeCondition{Type: c.Type, Status: c.Status, Reason: c.Reason})
	}
	for _, img := range n.Status.Images {
		out.Status.Images = append(out.Status.Images, corev1.ContainerImage{Names: img.Names, SizeBytes: img.SizeBytes})
	}
	return out
}

// TrimPod keeps what filters and scores read of a pod: its node, scheduler,
// selectors, affinity, tolerations, spread, priority class, runtime class,
// the containers' images, requests, limits and ports, its volumes reduced
// to the kinds volume plugins count, its resource claims (in the pod and its
// containers alike, and the names of the claims made from templates, which
// the scheduler finds them by) and its scheduling group. spec.priority and
// spec.overhead are left to the sandbox's admission, which computes them
// from the classes.
func TrimPod(p *corev1.Pod) corev1.Pod {
	s := p.Spec
	out := corev1.Pod{ObjectMeta: meta(p.ObjectMeta), Spec: corev1.PodSpec{
		NodeName:                  s.NodeName,
		SchedulerName:             s.SchedulerName,
		NodeSelector:              s.NodeSelector,
		Affinity:                  s.Affinity,
		Tolerations:               s.Tolerations,
		TopologySpreadConstraints: s.TopologySpreadConstraints,
		PriorityClassName:         s.PriorityClassName,
		PreemptionPolicy:          s.PreemptionPolicy,
		RuntimeClassName:          s.RuntimeClassName,
		HostNetwork:               s.HostNetwork,
		Resources:                 s.Resources,
		ResourceClaims:            s.ResourceClaims,
		SchedulingGroup:           s.SchedulingGroup,
		Containers:                trimContainers(s.Containers),
		InitContainers:            trimContainers(s.InitContainers),
	}}
	out.Status.ResourceClaimStatuses = p.Status.ResourceClaimStatuses
	for _, v := range s.Volumes {
		if tv, ok := trimVolume(v); ok {
			out.Spec.Volumes = append(out.Spec.Volumes, tv)
		}
	}
	return out
}

func trimContainers(in []corev1.Container) []corev1.Container {
	var out []corev1.Container
	for _, c := range in {
		out = append(out, corev1.Container{
			Name: c.Name, Image: c.Image, Resources: c.Resources, Ports: c.Ports,
			// A restartable init container (a sidecar) counts in the pod's requests.
			RestartPolicy: c.RestartPolicy,
		})
	}
	return out
}

// withoutClaims drops a trimmed pod's resource claims, in the pod and its
// containers alike, for a snapshot that holds no claims (replaySelector).
func withoutClaims(p *corev1.Pod) {
	p.Spec.ResourceClaims, p.Status.ResourceClaimStatuses = nil, nil
	if r := p.Spec.Resources; r != nil && len(r.Claims) > 0 {
		p.Spec.Resources = &corev1.ResourceRequirements{Limits: r.Limits, Requests: r.Requests}
	}
	for _, cs := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for i := range cs {
			cs[i].Resources.Claims = nil
		}
	}
}

// trimVolume keeps claims and the volume kinds VolumeRestrictions,
// NodeVolumeLimits and VolumeZone read, without their secret references and
// attributes; false for every other kind.
func trimVolume(v corev1.Volume) (corev1.Volume, bool) {
	out := corev1.Volume{Name: v.Name}
	src := v.VolumeSource
	switch {
	case src.PersistentVolumeClaim != nil:
		out.PersistentVolumeClaim = src.PersistentVolumeClaim
	case src.Ephemeral != nil && src.Ephemeral.VolumeClaimTemplate != nil:
		out.Ephemeral = &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
			Spec: trimClaimSpec(src.Ephemeral.VolumeClaimTemplate.Spec)}}
	case src.CSI != nil:
		out.CSI = &corev1.CSIVolumeSource{Driver: src.CSI.Driver, ReadOnly: src.CSI.ReadOnly}
	case src.GCEPersistentDisk != nil:
		out.GCEPersistentDisk = src.GCEPersistentDisk
	case src.AWSElasticBlockStore != nil:
		out.AWSElasticBlockStore = src.AWSElasticBlockStore
	case src.AzureDisk != nil:
		out.AzureDisk = src.AzureDisk
	case src.ISCSI != nil:
		out.ISCSI = &corev1.ISCSIVolumeSource{TargetPortal: src.ISCSI.TargetPortal, IQN: src.ISCSI.IQN,
			Lun: src.ISCSI.Lun, ReadOnly: src.ISCSI.ReadOnly}
	default:
		return corev1.Volume{}, false
	}
	return out, true
}

func trimClaimSpec(s corev1.PersistentVolumeClaimSpec) corev1.PersistentVolumeClaimSpec {
	return corev1.PersistentVolumeClaimSpec{AccessModes: s.AccessModes, Selector: s.Selector, Resources: s.Resources,
		VolumeName: s.VolumeName, StorageClassName: s.StorageClassName, VolumeMode: s.VolumeMode}
}

// TrimPVC keeps a claim's spec and phase.
func TrimPVC(c *corev1.PersistentVolumeClaim) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{ObjectMeta: meta(c.ObjectMeta), Spec: trimClaimSpec(c.Spec),
		Status: corev1.PersistentVolumeClaimStatus{Phase: c.Status.Phase, AccessModes: c.Status.AccessModes, Capacity: c.Status.Capacity}}
}

// TrimPV keeps a volume's capacity, access, class, node affinity, claim and
// phase. Its source loses secret references and attributes; a kind no volume
// plugin tells apart becomes an attribute-less CSI volume of a driver named
// after it, which the API server's validation requires some source for.
func TrimPV(v *corev1.PersistentVolume) corev1.PersistentVolume {
	s := v.Spec
	out := corev1.PersistentVolume{ObjectMeta: meta(v.ObjectMeta), Spec: corev1.PersistentVolumeSpec{
		Capacity: s.Capacity, AccessModes: s.AccessModes, StorageClassName: s.StorageClassName,
		NodeAffinity: s.NodeAffinity, VolumeMode: s.VolumeMode, PersistentVolumeReclaimPolicy: s.PersistentVolumeReclaimPolicy,
	}, Status: corev1.PersistentVolumeStatus{Phase: v.Status.Phase}}
	if r := s.ClaimRef; r != nil {
		out.Spec.ClaimRef = &corev1.ObjectReference{Kind: r.Kind, APIVersion: r.APIVersion, Namespace: r.Namespace, Name: r.Name, UID: r.UID}
	}
	src := s.PersistentVolumeSource
	switch {
	case src.CSI != nil:
		out.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: src.CSI.Driver, VolumeHandle: src.CSI.VolumeHandle, FSType: src.CSI.FSType, ReadOnly: src.CSI.ReadOnly}
	case src.Local != nil:
		out.Spec.Local = src.Local
	case src.HostPath != nil:
		out.Spec.HostPath = src.HostPath
	case src.GCEPersistentDisk != nil:
		out.Spec.GCEPersistentDisk = src.GCEPersistentDisk
	case src.AWSElasticBlockStore != nil:
		out.Spec.AWSElasticBlockStore = src.AWSElasticBlockStore
	case src.AzureDisk != nil:
		out.Spec.AzureDisk = src.AzureDisk
	default:
		out.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: "trial.invalid", VolumeHandle: v.Name}
	}
	return out
}

// TrimStorageClass keeps the provisioner, binding mode and allowed topologies.
func TrimStorageClass(c *storagev1.StorageClass) storagev1.StorageClass {
	return storagev1.StorageClass{ObjectMeta: meta(c.ObjectMeta), Provisioner: c.Provisioner,
		VolumeBindingMode: c.VolumeBindingMode, AllowedTopologies: c.AllowedTopologies, ReclaimPolicy: c.ReclaimPolicy}
}

// TrimCSINode keeps each driver's node ID, topology keys and volume limit.
func TrimCSINode(n *storagev1.CSINode) storagev1.CSINode {
	return storagev1.CSINode{ObjectMeta: meta(n.ObjectMeta), Spec: n.Spec}
}

// TrimPriorityClass keeps the value, default flag and preemption policy.
func TrimPriorityClass(c *schedulingv1.PriorityClass) schedulingv1.PriorityClass {
	return schedulingv1.PriorityClass{ObjectMeta: meta(c.ObjectMeta), Value: c.Value, GlobalDefault: c.GlobalDefault, PreemptionPolicy: c.PreemptionPolicy}
}

// TrimRuntimeClass keeps the handler, overhead and scheduling constraints.
func TrimRuntimeClass(c *nodev1.RuntimeClass) nodev1.RuntimeClass {
	return nodev1.RuntimeClass{ObjectMeta: meta(c.ObjectMeta), Handler: c.Handler, Overhead: c.Overhead, Scheduling: c.Scheduling}
}

// TrimNamespace keeps the name and labels (namespace selectors of affinity).
func TrimNamespace(n *corev1.Namespace) corev1.Namespace {
	return corev1.Namespace{ObjectMeta: meta(n.ObjectMeta)}
}

// TrimService keeps the selector, which default topology spreading reads; the
// copy is headless, so that it needs no ports and allocates no IP.
func TrimService(s *corev1.Service) corev1.Service {
	return corev1.Service{ObjectMeta: meta(s.ObjectMeta), Spec: corev1.ServiceSpec{Selector: s.Spec.Selector, ClusterIP: corev1.ClusterIPNone}}
}

// TrimCustom keeps a scheduler-plugins object's (PodGroup, ElasticQuota)
// kind, name, labels and spec.
func TrimCustom(u *unstructured.Unstructured) unstructured.Unstructured {
	out := unstructured.Unstructured{Object: map[string]interface{}{}}
	out.SetAPIVersion(u.GetAPIVersion())
	out.SetKind(u.GetKind())
	out.SetName(u.GetName())
	out.SetNamespace(u.GetNamespace())
	out.SetLabels(keptLabels(u.GetLabels()))
	out.SetAnnotations(keptAnnotations(u.GetAnnotations()))
	if spec, ok := u.Object["spec"]; ok {
		out.Object["spec"] = runtime.DeepCopyJSONValue(spec)
	}
	return out
}

// TrimCRD keeps a CustomResourceDefinition's spec without a conversion webhook
// (none runs in the sandbox).
func TrimCRD(u *unstructured.Unstructured) unstructured.Unstructured {
	out := TrimCustom(u)
	if spec, ok := out.Object["spec"].(map[string]interface{}); ok {
		delete(spec, "conversion")
	}
	return out
}
