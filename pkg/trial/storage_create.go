package trial

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/apis/core/v1/helper/qos"
)

// What the API server's create strategies and admission set on an object
// written through its API, set here on an object written into its storage,
// so that a sandbox seeded either way serves the same objects. Defaults need
// no copy: the API server applies them to every object it reads from etcd.

// createdNamespace: a new namespace is active, with the kubernetes finalizer.
func createdNamespace(n *corev1.Namespace) {
	n.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
	n.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
}

// createdPV: the seeder through the API sets the phase after the create
// (UpdateStatus), which records when it changed; StorageObjectInUseProtection
// adds its finalizer.
func createdPV(v *corev1.PersistentVolume, at metav1.Time) {
	if v.Status.Phase == "" {
		v.Status.Phase = corev1.VolumePending
	}
	v.Status.LastPhaseTransitionTime = &at
	v.Finalizers = append(v.Finalizers, "kubernetes.io/pv-protection")
}

// createdPVC: StorageObjectInUseProtection adds its finalizer; the phase is
// the snapshot's, as the seeder through the API sets it after the create.
func createdPVC(c *corev1.PersistentVolumeClaim) {
	if c.Status.Phase == "" {
		c.Status.Phase = corev1.ClaimPending
	}
	c.Finalizers = append(c.Finalizers, "kubernetes.io/pvc-protection")
}

// createdService: a headless service (TrimService) is given the cluster's
// one IP family and no address.
func createdService(s *corev1.Service) {
	if s.Spec.ClusterIP == corev1.ClusterIPNone {
		single := corev1.IPFamilyPolicySingleStack
		s.Spec.ClusterIPs = []string{corev1.ClusterIPNone}
		s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
		s.Spec.IPFamilyPolicy = &single
	}
}

// createdCRD: generation 1, its storage version recorded as stored; the
// sandbox's naming and establishing controllers accept its names and
// establish it as they do for a CRD created through the API.
func createdCRD(c *apiextensionsv1.CustomResourceDefinition) {
	c.Generation = 1
	c.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	for _, v := range c.Spec.Versions {
		if v.Storage {
			c.Status.StoredVersions = []string{v.Name}
		}
	}
}

// createdPod: a new pod is pending, of its QoS class, at generation 1; the
// names of its claims made from templates are the snapshot's, as the seeder
// through the API sets them after the create.
func createdPod(p *corev1.Pod) {
	p.Generation = 1
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: qos.ComputePodQOS(p), ResourceClaimStatuses: p.Status.ResourceClaimStatuses}
}

// podAdmission is what the sandbox's Priority and RuntimeClass admission
// plugins set on a pod created through its API: the priority and preemption
// policy of its class (or of the global default one) and its runtime class's
// overhead (TrimPod leaves both to admission).
type podAdmission struct {
	classes        map[string]priority
	defaultClass   string
	runtimeClasses map[string]*nodev1.RuntimeClass
}

type priority struct {
	value  int32
	policy *corev1.PreemptionPolicy
}

// builtinPriorityClasses are those every API server creates (isBuiltinPriorityClass).
var builtinPriorityClasses = map[string]int32{"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}

func newPodAdmission(snap *Snapshot) *podAdmission {
	a := &podAdmission{classes: map[string]priority{}, runtimeClasses: map[string]*nodev1.RuntimeClass{}}
	lower := corev1.PreemptLowerPriority
	for name, v := range builtinPriorityClasses {
		a.classes[name] = priority{value: v, policy: &lower}
	}
	var defaultValue int32
	for i := range snap.PriorityClasses {
		pc := &snap.PriorityClasses[i]
		policy := pc.PreemptionPolicy
		if policy == nil {
			policy = &lower
		}
		a.classes[pc.Name] = priority{value: pc.Value, policy: policy}
		// Of several global defaults, admission takes the lowest.
		if pc.GlobalDefault && (a.defaultClass == "" || pc.Value < defaultValue) {
			a.defaultClass, defaultValue = pc.Name, pc.Value
		}
	}
	for i := range snap.RuntimeClasses {
		a.runtimeClasses[snap.RuntimeClasses[i].Name] = &snap.RuntimeClasses[i]
	}
	return a
}

// pod admits p as the API would, refusing it for the reasons it would.
func (a *podAdmission) pod(p *corev1.Pod) error {
	lower := corev1.PreemptLowerPriority
	pr := priority{policy: &lower}
	if p.Spec.PriorityClassName == "" {
		p.Spec.PriorityClassName = a.defaultClass
	}
	if name := p.Spec.PriorityClassName; name != "" {
		var ok bool
		if pr, ok = a.classes[name]; !ok {
			return fmt.Errorf("no PriorityClass with name %s was found", name)
		}
	}
	p.Spec.Priority = &pr.value
	if p.Spec.PreemptionPolicy == nil {
		p.Spec.PreemptionPolicy = pr.policy
	}
	if name := p.Spec.RuntimeClassName; name != nil {
		rc, ok := a.runtimeClasses[*name]
		if !ok {
			return fmt.Errorf("RuntimeClass %q not found", *name)
		}
		if rc.Overhead != nil {
			p.Spec.Overhead = rc.Overhead.PodFixed
		}
	}
	return nil
}
