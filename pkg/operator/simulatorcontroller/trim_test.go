package simulatorcontroller

import (
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

// bloated adds to obj's metadata what any user of its namespace may write
// and no controller reads.
func bloated[T runtime.Object](obj T) T {
	out := obj.DeepCopyObject().(T)
	m := any(out).(metav1.ObjectMetaAccessor).GetObjectMeta()
	labels, annotations := m.GetLabels(), m.GetAnnotations()
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	labels["team"] = "a"
	annotations["big"] = strings.Repeat("x", 250<<10)
	m.SetLabels(labels)
	m.SetAnnotations(annotations)
	m.SetFinalizers([]string{"example.com/keep"})
	m.SetOwnerReferences(append(m.GetOwnerReferences(), metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "other", UID: "other"}))
	m.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "kubectl"}})
	return out
}

// TestTrimmedPodsReadTheSame: the controller decides the same from a Pod as its
// informer caches it (Transform) as from the whole Pod.
func TestTrimmedPodsReadTheSame(t *testing.T) {
	sim := newSimulator("sim")
	rendered, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	if err != nil {
		t.Fatal(err)
	}
	finishedAt := metav1.NewTime(time.Unix(2000, 0))
	statuses := map[string]corev1.PodStatus{
		"ready": {Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
		"pulling": {Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: rendered.Pod.Spec.Containers[0].Name,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImagePull", Message: "not found"}}}}},
		"crash-looping": {Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "etcd", RestartCount: 3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}}}},
		"failed": {Phase: corev1.PodFailed, Reason: "Evicted", Message: "low on memory", ContainerStatuses: []corev1.ContainerStatus{{Name: "etcd",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, FinishedAt: finishedAt}}}}},
	}
	for name, status := range statuses {
		full := bloated(rendered.Pod)
		full.UID, full.ResourceVersion, full.CreationTimestamp = "pod-uid", "7", metav1.NewTime(time.Unix(1000, 0))
		full.Status = status
		trimmed := informed(full).(*corev1.Pod)
		if a, b := observePod(full), observePod(trimmed); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: observed %+v of the whole Pod, %+v of the cached one", name, a, b)
		}
		if a, b := endedAt(full), endedAt(trimmed); !a.Equal(b) {
			t.Errorf("%s: ended at %v, or %v by the cached Pod", name, a, b)
		}
		keys, _ := ownerKeys(trimmed)
		if notOwned(trimmed, sim) != "" || !reflect.DeepEqual(keys, []string{sim.Namespace + "/" + sim.Name}) || finished(full) != finished(trimmed) {
			t.Errorf("%s: the cached Pod lost its owner (%q, keys %v) or its phase", name, notOwned(trimmed, sim), keys)
		}
		if trimmed.Annotations[simulatorrender.SimulatorSpecHashAnnotation] != full.Annotations[simulatorrender.SimulatorSpecHashAnnotation] || trimmed.Annotations["big"] != "" {
			t.Errorf("%s: cached annotations %v", name, trimmed.Annotations)
		}
	}
}

// TestTrimmedServicesAndPoliciesReadTheSame: what the controller owns in a
// Service or NetworkPolicy reads the same from the cache as from the whole
// object, whatever else a user added to it; and drift shows in both.
func TestTrimmedServicesAndPoliciesReadTheSame(t *testing.T) {
	sim := newSimulator("sim")
	rendered, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	if err != nil {
		t.Fatal(err)
	}
	svc := bloated(rendered.Service)
	svc.Spec.ClusterIP, svc.Spec.SessionAffinity = "10.0.0.7", corev1.ServiceAffinityNone
	policy := bloated(rendered.NetworkPolicy)
	drifted := svc.DeepCopy()
	drifted.Spec.Ports = drifted.Spec.Ports[:1]
	otherOwner := policy.DeepCopy()
	otherOwner.OwnerReferences[0].UID = "earlier"
	for _, tc := range []struct {
		name               string
		full, trimmed      metav1.Object
		differs, differsIn bool
	}{
		{"service", svc, informed(svc).(*corev1.Service), ownedDiffers(svc, rendered.Service, setServiceOwned),
			ownedDiffers(informed(svc).(*corev1.Service), rendered.Service, setServiceOwned)},
		{"drifted service", drifted, informed(drifted).(*corev1.Service), ownedDiffers(drifted, rendered.Service, setServiceOwned),
			ownedDiffers(informed(drifted).(*corev1.Service), rendered.Service, setServiceOwned)},
		{"policy", policy, informed(policy).(*networkingv1.NetworkPolicy), ownedDiffers(policy, rendered.NetworkPolicy, setNetworkPolicyOwned),
			ownedDiffers(informed(policy).(*networkingv1.NetworkPolicy), rendered.NetworkPolicy, setNetworkPolicyOwned)},
		{"policy of an earlier Simulator", otherOwner, informed(otherOwner).(*networkingv1.NetworkPolicy), true, true},
	} {
		if tc.differs != tc.differsIn {
			t.Errorf("%s: differs from what the Simulator asks for: %v, by its cached copy: %v", tc.name, tc.differs, tc.differsIn)
		}
		if a, b := notOwned(tc.full, sim), notOwned(tc.trimmed, sim); a != b {
			t.Errorf("%s: not owned because %q, by its cached copy %q", tc.name, a, b)
		}
		if len(tc.trimmed.GetAnnotations()) != 0 || len(tc.trimmed.GetFinalizers()) != 0 || len(tc.trimmed.GetOwnerReferences()) != 1 {
			t.Errorf("%s: cached metadata %+v", tc.name, tc.trimmed)
		}
	}
	if ownedDiffers(svc, rendered.Service, setServiceOwned) || !ownedDiffers(drifted, rendered.Service, setServiceOwned) {
		t.Error("ownedDiffers: a Service as rendered differs, or a drifted one does not")
	}
}

// TestTrimmedSimulatorsReadTheSame: a Simulator as its informer caches it
// (trim.Objects) renders the same objects, asks for the same guard and has
// the same status as the whole one, without what its user wrote in its
// metadata.
func TestTrimmedSimulatorsReadTheSame(t *testing.T) {
	full := bloated(newSimulator("sim", func(s *simv1alpha1.Simulator) {
		s.Generation = 4
		s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}
		s.Spec.PodTemplate = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kept": "in the Pod"}}}
		s.Status = simv1alpha1.SimulatorStatus{Phase: simv1alpha1.SimulatorCreating, Message: ptr.To("m"), ObservedGeneration: 3}
	}))
	trimmed := informed(full).(*simv1alpha1.Simulator)
	a, errA := simulatorrender.Render(simulatorrender.Inputs{Simulator: full})
	b, errB := simulatorrender.Render(simulatorrender.Inputs{Simulator: trimmed})
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("rendered differently from the cached Simulator: %v %v", errA, errB)
	}
	if !reflect.DeepEqual(GuardedFields(full), GuardedFields(trimmed)) || !reflect.DeepEqual(full.Status, trimmed.Status) {
		t.Error("the cached Simulator lost its guarded fields or its status")
	}
	now := metav1.NewTime(time.Unix(3000, 0))
	obs := observation{phase: simv1alpha1.SimulatorCreating, message: "m"}
	if x, y := desiredStatus(full, obs, "u", now), desiredStatus(trimmed, obs, "u", now); !reflect.DeepEqual(x, y) {
		t.Errorf("desired status %+v, from the cached Simulator %+v", x, y)
	}
	if trimmed.Name != full.Name || trimmed.UID != full.UID || trimmed.ResourceVersion != full.ResourceVersion ||
		len(trimmed.Annotations) != 0 || len(trimmed.Labels) != 0 || len(trimmed.Finalizers) != 0 || trimmed.ManagedFields != nil {
		t.Errorf("cached metadata %+v", trimmed.ObjectMeta)
	}
}
