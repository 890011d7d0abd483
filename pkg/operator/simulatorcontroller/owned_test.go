package simulatorcontroller

import (
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/message"

	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clienttesting "k8s.io/client-go/testing"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

// expectConflict checks that the last sync failed on a name conflict with
// the object named, reported in the status and by one Warning.
func (h *harness) expectConflict(err error, phase simv1alpha1.SimulatorPhase, object string) {
	h.t.Helper()
	status := h.current().Status
	degraded := meta.FindStatusCondition(status.Conditions, ConditionDegraded)
	if !isConflict(err) || status.Phase != phase || degraded.Status != metav1.ConditionTrue || degraded.Reason != ReasonNameConflict ||
		!strings.HasPrefix(*status.Message, object+" already exists and was not created by the operator") || !strings.Contains(*status.Message, "rename or delete it") {
		h.t.Fatalf("error %v, status %+v, message %q", err, status, *status.Message)
	}
	var warnings []string
	for _, e := range h.recorder.Events() {
		if e.Type == corev1.EventTypeWarning && e.Reason == ReasonNameConflict && strings.HasPrefix(e.Message, object) {
			warnings = append(warnings, e.Message)
		}
	}
	if len(warnings) != 1 {
		h.t.Errorf("warnings %q, want one NameConflict naming %s", warnings, object)
	}
}

// controllerLabels adds to labels (a new map when nil) those the controller
// puts on the objects of Simulator sim.
func controllerLabels(sim string, labels map[string]string) map[string]string {
	out := map[string]string{simulatorrender.SimulatorLabel: sim, ManagedByLabel: ManagedByValue}
	for k, v := range labels {
		out[k] = v
	}
	return out
}

// A user's Service of the Simulator's name is never adopted, whether it
// carries the controller's labels (it is cached) or not (creating ours
// fails): the Simulator says so, and keeps saying so without a new write.
func TestSyncLeavesAServiceItDidNotCreateAlone(t *testing.T) {
	for _, labelled := range []bool{true, false} {
		t.Run(fmt.Sprintf("labelled=%v", labelled), func(t *testing.T) {
			h := newHarness(t, newSimulator("sim"))
			theirs := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "sim", Namespace: "team-a", Labels: map[string]string{"app": "theirs"}},
				Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}, Selector: map[string]string{"app": "theirs"}}}
			if labelled {
				theirs.Labels = controllerLabels("sim", theirs.Labels)
			}
			_, err := h.kube.CoreV1().Services("team-a").Create(context.Background(), theirs, metav1.CreateOptions{})
			h.must(err)
			h.observe()
			writes, err := h.syncErr()
			want := "create networkpolicies, create pods, update simulators/status"
			if !labelled {
				want = "create networkpolicies, create pods, create services, update simulators/status"
			}
			expectWrites(t, writes, want)
			h.expectConflict(err, simv1alpha1.SimulatorCreating, "Service sim")
			h.observe()
			writes, _ = h.syncErr()
			if want = ""; !labelled {
				want = "create services" // the retry finds it again
			}
			expectWrites(t, writes, want)
			svc, err := h.kube.CoreV1().Services("team-a").Get(context.Background(), "sim", metav1.GetOptions{})
			h.must(err)
			if svc.Spec.Selector["app"] != "theirs" || len(svc.OwnerReferences) != 0 {
				t.Errorf("their Service was changed: %+v", svc)
			}
		})
	}
}

// A NetworkPolicy of the Simulator's name that is someone else's may admit
// anything: no Pod is created behind it.
func TestSyncLeavesAPolicyItDidNotCreateAloneAndStartsNoPod(t *testing.T) {
	h := newHarness(t, newSimulator("sim"))
	theirs := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "sim", Namespace: "team-a", Labels: controllerLabels("sim", nil)}}
	_, err := h.kube.NetworkingV1().NetworkPolicies("team-a").Create(context.Background(), theirs, metav1.CreateOptions{})
	h.must(err)
	h.observe()
	writes, err := h.syncErr()
	expectWrites(t, writes, "create services, update simulators/status")
	h.expectConflict(err, simv1alpha1.SimulatorPending, "NetworkPolicy sim")
}

// A Service an earlier operator version made (a controller reference to the
// Simulator, not the managed-by label) is the Simulator's: it gets the
// labels back, and is cached from then on.
func TestSyncRelabelsItsOwnService(t *testing.T) {
	sim := newSimulator("sim")
	h := newHarness(t, sim)
	r, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	h.must(err)
	earlier := r.Service.DeepCopy()
	earlier.Labels = map[string]string{simulatorrender.SimulatorLabel: "sim", "team": "a"}
	_, err = h.kube.CoreV1().Services("team-a").Create(context.Background(), earlier, metav1.CreateOptions{})
	h.must(err)
	h.observe()
	expectWrites(t, h.sync(), "create networkpolicies, create pods, create services, update services, update simulators/status")
	svc, err := h.kube.CoreV1().Services("team-a").Get(context.Background(), "sim", metav1.GetOptions{})
	h.must(err)
	if svc.Labels[ManagedByLabel] != ManagedByValue || svc.Labels["team"] != "a" {
		t.Errorf("labels %v", svc.Labels)
	}
	h.observe()
	expectWrites(t, h.sync(), "")
}

// A Pod of the Simulator's that lacks the managed-by label is not cached: it
// is replaced, not left running beside a new one.
func TestSyncReplacesItsOwnUnlabelledPod(t *testing.T) {
	sim := newSimulator("sim")
	h := newHarness(t, sim)
	r, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	h.must(err)
	earlier := r.Pod.DeepCopy()
	delete(earlier.Labels, ManagedByLabel)
	_, err = h.kube.CoreV1().Pods("team-a").Create(context.Background(), earlier, metav1.CreateOptions{})
	h.must(err)
	h.observe()
	writes, _ := h.syncErr()
	expectWrites(t, writes, "create networkpolicies, create pods, delete pods, create services, update simulators/status")
	h.observe()
	expectWrites(t, h.sync(), "create pods, update simulators/status")
	if pods := h.listPods(); len(pods) != 1 || pods[0].Labels[ManagedByLabel] != ManagedByValue {
		t.Errorf("pods %+v", pods)
	}
}

// Once started, the controller deletes the Pods earlier operator versions
// made for Simulators that still exist, and nobody else's.
func TestReplaceUnlabelledPods(t *testing.T) {
	sim := newSimulator("sim")
	h := newHarness(t, sim)
	r, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	h.must(err)
	for name, mutate := range map[string]func(*corev1.Pod){
		"sim-earlier-version": func(p *corev1.Pod) { delete(p.Labels, ManagedByLabel) },
		"sim-earlier-uid":     func(p *corev1.Pod) { delete(p.Labels, ManagedByLabel); p.OwnerReferences[0].UID = "earlier" },
		"someone-elses":       func(p *corev1.Pod) { delete(p.Labels, ManagedByLabel); p.OwnerReferences = nil },
		"current":             func(*corev1.Pod) {},
	} {
		pod := r.Pod.DeepCopy()
		pod.Name, pod.UID = name, types.UID(name)
		mutate(pod)
		_, err := h.kube.CoreV1().Pods("team-a").Create(context.Background(), pod, metav1.CreateOptions{})
		h.must(err)
	}
	if n, err := h.c.deleteUnlabelledPods(context.Background()); n != 1 || err != nil {
		t.Fatalf("deleted %d: %v", n, err)
	}
	var names []string
	for _, p := range h.listPods() {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "current,sim-earlier-uid,someone-elses" {
		t.Errorf("pods left: %s", got)
	}
}

func TestSyncForeignAndStalePods(t *testing.T) {
	sim := newSimulator("sim")
	r, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	if err != nil {
		t.Fatal(err)
	}
	// A Pod of the required name that someone else made, with our labels.
	foreign := r.Pod.DeepCopy()
	foreign.OwnerReferences = nil
	h := newHarness(t, sim)
	_, err = h.kube.CoreV1().Pods("team-a").Create(context.Background(), foreign, metav1.CreateOptions{})
	h.must(err)
	h.observe()
	writes, err := h.syncErr()
	expectWrites(t, writes, "create networkpolicies, create services, update simulators/status")
	got := h.current().Status
	if !isConflict(err) || got.Phase != simv1alpha1.SimulatorPending || !strings.Contains(*got.Message, "Pod "+foreign.Name+" already exists and was not created by the operator") ||
		meta.FindStatusCondition(got.Conditions, ConditionDegraded).Reason != ReasonNameConflict {
		t.Fatalf("error %v, status %+v", err, got)
	}

	// A Pod of an earlier Simulator of the same name is not this one's to
	// delete (the garbage collector does); this one's is created.
	h.must(h.kube.CoreV1().Pods("team-a").Delete(context.Background(), foreign.Name, metav1.DeleteOptions{}))
	stale := r.Pod.DeepCopy()
	stale.Name = "sim-earlier"
	stale.OwnerReferences[0].UID = "earlier"
	_, err = h.kube.CoreV1().Pods("team-a").Create(context.Background(), stale, metav1.CreateOptions{})
	h.must(err)
	h.observe()
	expectWrites(t, h.sync(), "create pods, update simulators/status")
}

// Every message the controller writes is capped, whatever it echoes: here an
// API error quoting a 300 KiB value, and a container's status message.
func TestMessagesAreCapped(t *testing.T) {
	h := newHarness(t, newSimulator("sim"))
	huge := strings.Repeat("é", 150<<10)
	h.kube.PrependReactor("create", "services", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "sim", field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations"), huge, "too long")})
	})
	_, _ = h.syncErr()
	checkCapped(t, *h.current().Status.Message)
	for _, c := range h.current().Status.Conditions {
		checkCapped(t, c.Message)
	}
	for _, e := range h.recorder.Events() {
		checkCapped(t, e.Message)
	}
	if len(h.recorder.Events()) == 0 {
		t.Error("no Warning")
	}

	pod := h.listPods()[0]
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("simulator", "CreateContainerConfigError", huge)}
	_, err := h.kube.CoreV1().Pods("team-a").UpdateStatus(context.Background(), &pod, metav1.UpdateOptions{})
	h.must(err)
	h.observe()
	_, _ = h.syncErr()
	checkCapped(t, *h.current().Status.Message)
}

func checkCapped(t *testing.T, msg string) {
	t.Helper()
	if len(msg) > MaxMessageBytes || !utf8.ValidString(msg) || (len(msg) > MaxMessageBytes/2 && !strings.HasSuffix(msg, message.TruncatedMarker)) {
		t.Errorf("message of %d bytes, valid UTF-8 %v: ...%q", len(msg), utf8.ValidString(msg), msg[max(0, len(msg)-40):])
	}
}

// The note (what is kept, and why) keeps its half of a status message.
func TestStatusMessageKeepsTheNote(t *testing.T) {
	if got := statusMessage(strings.Repeat("m", 2000), "; "+strings.Repeat("n", 2000)); len(got) != MaxMessageBytes || !strings.Contains(got, message.TruncatedMarker+"; nnn") {
		t.Errorf("statusMessage of %d bytes: the note must keep its half", len(got))
	}
}
