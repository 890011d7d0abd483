package simulatorcontroller

import (
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/message"

	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/admissionguardcontroller"
)

func TestGuardedFields(t *testing.T) {
	template := &corev1.PodTemplateSpec{}
	peers := []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}}}
	for _, tc := range []struct {
		name string
		spec simv1alpha1.SimulatorSpec
		want []string
	}{
		{"defaults", simv1alpha1.SimulatorSpec{}, nil},
		{"the default image named", simv1alpha1.SimulatorSpec{Image: simv1alpha1.DefaultImage}, nil},
		{"etcdURL and CORS alone configure a default Pod", simv1alpha1.SimulatorSpec{EtcdURL: ptr.To("http://etcd:2379"),
			CORSAllowedOriginList: []string{"http://ui"}}, nil},
		{"template", simv1alpha1.SimulatorSpec{PodTemplate: template}, []string{"spec.podTemplate"}},
		{"image", simv1alpha1.SimulatorSpec{Image: "example.com/sim:1"}, []string{"spec.image"}},
		{"template with etcdURL and CORS", simv1alpha1.SimulatorSpec{PodTemplate: template, EtcdURL: ptr.To("http://etcd:2379"),
			CORSAllowedOriginList: []string{"http://ui"}}, []string{"spec.podTemplate", "spec.etcdURL", "spec.corsAllowedOriginList"}},
		{"image with an empty etcdURL", simv1alpha1.SimulatorSpec{Image: "example.com/sim:1", EtcdURL: ptr.To("")}, []string{"spec.image"}},
		{"ingressFrom", simv1alpha1.SimulatorSpec{IngressFrom: peers}, []string{"spec.ingressFrom"}},
		{"everything", simv1alpha1.SimulatorSpec{PodTemplate: template, Image: "example.com/sim:1", IngressFrom: peers},
			[]string{"spec.podTemplate", "spec.image", "spec.ingressFrom"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GuardedFields(&simv1alpha1.Simulator{Spec: tc.spec}); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// breakGuard makes the harness's guard not intact.
func (h *harness) breakGuard() {
	h.guard.Set(admissionguardcontroller.Verdict{Reason: admissionguardcontroller.ReasonBindingMissing,
		Message: "ValidatingAdmissionPolicyBinding x is missing: apply it again"})
}

func (h *harness) listPods() []corev1.Pod {
	h.t.Helper()
	pods, err := h.kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{})
	h.must(err)
	return pods.Items
}

func TestSyncHoldsBackGuardedSimulators(t *testing.T) {
	h := newHarness(t, newSimulator("sim", func(s *simv1alpha1.Simulator) {
		s.Spec.Image = "example.com/simulator:2"
		s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}}}
	}))
	h.breakGuard()

	// No Pod, no Service; a NetworkPolicy that admits the namespace alone.
	expectWrites(t, h.sync(), "create networkpolicies, update simulators/status")
	policy, err := h.kube.NetworkingV1().NetworkPolicies("team-a").Get(context.Background(), "sim", metav1.GetOptions{})
	h.must(err)
	if from := policy.Spec.Ingress[0].From; len(from) != 1 || from[0].PodSelector == nil {
		t.Errorf("held back, the NetworkPolicy admits %+v: want the namespace alone", from)
	}
	sim := h.current()
	degraded := meta.FindStatusCondition(sim.Status.Conditions, ConditionDegraded)
	if sim.Status.Phase != simv1alpha1.SimulatorPending || degraded == nil || degraded.Reason != ReasonAdmissionGuardNotIntact {
		t.Fatalf("status %+v", sim.Status)
	}
	for _, want := range []string{"spec.image, spec.ingressFrom", "ValidatingAdmissionPolicyBinding x is missing"} {
		if !strings.Contains(*sim.Status.Message, want) {
			t.Errorf("message %q lacks %q", *sim.Status.Message, want)
		}
	}
	h.observe()
	expectWrites(t, h.sync(), "")

	// The guard is back: the Simulator runs, with its NetworkPolicy widened.
	h.guard.Set(admissionguardcontroller.Verdict{Intact: true})
	expectWrites(t, h.sync(), "update networkpolicies, create pods, create services, update simulators/status")
}

func TestSyncKeepsTheRunningPodOfAHeldBackSimulator(t *testing.T) {
	h := newHarness(t, newSimulator("sim", func(s *simv1alpha1.Simulator) { s.Spec.Image = "example.com/simulator:2" }))
	h.sync()
	h.observe()
	running := h.markReady()
	h.sync()
	h.observe()

	// Its spec unchanged, it stays Available and not Degraded, with a note.
	h.breakGuard()
	expectWrites(t, h.sync(), "update simulators/status")
	if sim := h.current(); sim.Status.Phase != simv1alpha1.SimulatorAvailable || meta.IsStatusConditionTrue(sim.Status.Conditions, ConditionDegraded) ||
		!strings.Contains(*sim.Status.Message, "is kept as it is") {
		t.Fatalf("status %+v", sim.Status)
	}
	h.observe()

	// A spec change while the guard is broken neither replaces nor deletes it.
	h.changeImage("example.com/simulator:3")
	expectWrites(t, h.sync(), "update simulators/status")
	if pods := h.listPods(); len(pods) != 1 || pods[0].Name != running.Name {
		t.Fatalf("pods %v, want %s alone", pods, running.Name)
	}
	sim := h.current()
	degraded := meta.FindStatusCondition(sim.Status.Conditions, ConditionDegraded)
	if sim.Status.Phase != simv1alpha1.SimulatorAvailable || !strings.Contains(*sim.Status.Message, "Pod "+running.Name+" is kept as it is") ||
		degraded.Status != metav1.ConditionTrue || degraded.Reason != ReasonAdmissionGuardNotIntact {
		t.Fatalf("status %+v", sim.Status)
	}

	// Restored: the Pod of the new spec replaces it.
	h.guard.Set(admissionguardcontroller.Verdict{Intact: true})
	expectWrites(t, h.sync(), "delete pods, create pods, update simulators/status")
}

func TestSyncRunsDefaultSimulatorsWithoutTheGuard(t *testing.T) {
	h := newHarness(t, newSimulator("sim", func(s *simv1alpha1.Simulator) { s.Spec.CORSAllowedOriginList = []string{"http://ui"} }))
	h.breakGuard()
	expectWrites(t, h.sync(), "create networkpolicies, create pods, create services, update simulators/status")
}

func TestHeldBackMessageIsCapped(t *testing.T) {
	h := newHarness(t, newSimulator("sim", func(s *simv1alpha1.Simulator) { s.Spec.PodTemplate = &corev1.PodTemplateSpec{} }))
	h.guard.Set(admissionguardcontroller.Verdict{Reason: "X", Message: strings.Repeat("é", 2000)})
	h.sync()
	if msg := *h.current().Status.Message; len(msg) > MaxMessageBytes || !strings.HasSuffix(msg, message.TruncatedMarker) {
		t.Errorf("message of %d bytes: %q", len(msg), msg[len(msg)-10:])
	}
}
