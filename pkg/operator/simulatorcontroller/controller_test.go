package simulatorcontroller

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubeinformers "k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	simfake "github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned/fake"
	siminformers "github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/admissionguardcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender/simulatortest"
)

var newSimulator = simulatortest.New

// harness runs sync against fake clients whose informer stores the test fills by
// hand, playing the watch: what a sync sees is exactly what the test put there.
type harness struct {
	t        *testing.T
	kube     *kubefake.Clientset
	sims     *simfake.Clientset
	simStore cache.Store
	pods     cache.Store
	services cache.Store
	policies cache.Store
	ctrl     factory.Controller
	c        *simulatorController
	recorder events.InMemoryRecorder
	// guard is intact unless a test says otherwise.
	guard *admissionguardcontroller.Verdicts
}

func newHarness(t *testing.T, sim *simv1alpha1.Simulator) *harness {
	h := &harness{t: t, kube: kubefake.NewClientset(), sims: simfake.NewClientset(sim), guard: admissionguardcontroller.NewVerdicts()}
	h.guard.Set(admissionguardcontroller.Verdict{Intact: true})
	kubeInformers := kubeinformers.NewSharedInformerFactoryWithOptions(h.kube, 0, InformerOption())
	simInformers := siminformers.NewSharedInformerFactory(h.sims, 0)
	simInformer := simInformers.Simulation().V1alpha1().Simulators()
	podInformer := kubeInformers.Core().V1().Pods()
	serviceInformer := kubeInformers.Core().V1().Services()
	policyInformer := kubeInformers.Networking().V1().NetworkPolicies()
	h.recorder = events.NewInMemoryRecorder("test", clocktesting.NewFakePassiveClock(time.Now()))
	h.c, h.ctrl = newSimulatorController(h.kube, h.sims, Informers{simInformer, podInformer, serviceInformer, policyInformer, h.guard, ""}, h.recorder,
		func(*simv1alpha1.Simulator) events.Recorder { return h.recorder },
		clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
	// Like the API server, a write gets a new, higher resourceVersion.
	rv := 100
	for _, f := range []*clienttesting.Fake{&h.kube.Fake, &h.sims.Fake} {
		f.PrependReactor("*", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
			if w, ok := a.(interface{ GetObject() runtime.Object }); ok && (a.GetVerb() == "create" || a.GetVerb() == "update") {
				if m, err := meta.Accessor(w.GetObject()); err == nil {
					rv++
					m.SetResourceVersion(strconv.Itoa(rv))
				}
			}
			return false, nil, nil
		})
	}
	h.simStore, h.pods, h.services = simInformer.Informer().GetStore(), podInformer.Informer().GetStore(), serviceInformer.Informer().GetStore()
	h.policies = policyInformer.Informer().GetStore()
	h.must(h.simStore.Add(informed(sim)))
	return h
}

func (h *harness) must(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}

type syncContext struct {
	key      string
	recorder events.Recorder
}

func (s syncContext) Queue() workqueue.RateLimitingInterface { return nil }
func (s syncContext) QueueKey() string                       { return s.key }
func (s syncContext) Recorder() events.Recorder              { return s.recorder }

// sync runs one sync of team-a/sim and returns the write actions it sent.
func (h *harness) sync() []clienttesting.Action {
	h.t.Helper()
	writes, err := h.syncErr()
	if err != nil {
		h.t.Fatalf("sync: %v", err)
	}
	return writes
}

// syncErr runs one sync of team-a/sim and returns the write actions it sent and its error.
func (h *harness) syncErr() ([]clienttesting.Action, error) {
	h.kube.ClearActions()
	h.sims.ClearActions()
	err := h.ctrl.Sync(context.Background(), syncContext{key: "team-a/sim", recorder: h.recorder})
	var writes []clienttesting.Action
	for _, a := range append(h.kube.Actions(), h.sims.Actions()...) {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			writes = append(writes, a)
		}
	}
	return writes, err
}

// observe copies what the fake API server holds into the informer stores, as
// the operator's informers hold it: the objects Selector selects, trimmed
// (Transform, trim.Objects). Every sync of these tests reads what the
// operator's caches hold, never more.
func (h *harness) observe() {
	h.t.Helper()
	ctx, opts := context.Background(), metav1.ListOptions{LabelSelector: Selector}
	pods, err := h.kube.CoreV1().Pods("team-a").List(ctx, opts)
	h.must(err)
	h.must(h.pods.Replace(informedItems(pods.Items), ""))
	svcs, err := h.kube.CoreV1().Services("team-a").List(ctx, opts)
	h.must(err)
	h.must(h.services.Replace(informedItems(svcs.Items), ""))
	policies, err := h.kube.NetworkingV1().NetworkPolicies("team-a").List(ctx, opts)
	h.must(err)
	h.must(h.policies.Replace(informedItems(policies.Items), ""))
	h.must(h.simStore.Update(informed(h.current())))
}

// informed is obj as the operator's informers hold it.
func informed(obj runtime.Object) runtime.Object {
	return cached(obj.DeepCopyObject())
}

func informedItems[T any, PT interface {
	*T
	runtime.Object
}](items []T) []interface{} {
	out := make([]interface{}, 0, len(items))
	for i := range items {
		out = append(out, informed(PT(&items[i])))
	}
	return out
}

func (h *harness) current() *simv1alpha1.Simulator {
	h.t.Helper()
	sim, err := h.sims.SimulationV1alpha1().Simulators("team-a").Get(context.Background(), "sim", metav1.GetOptions{})
	h.must(err)
	return sim
}

// changeImage changes the Simulator's spec as its user would.
func (h *harness) changeImage(image string) {
	h.t.Helper()
	sim := h.current()
	sim.Spec.Image = image
	sim.Generation++
	_, err := h.sims.SimulationV1alpha1().Simulators("team-a").Update(context.Background(), sim, metav1.UpdateOptions{})
	h.must(err)
	h.observe()
}

// markReady plays the kubelet: the Simulator's only Pod is ready.
func (h *harness) markReady() corev1.Pod {
	h.t.Helper()
	pods, err := h.kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{})
	h.must(err)
	pod := pods.Items[0]
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	_, err = h.kube.CoreV1().Pods("team-a").UpdateStatus(context.Background(), &pod, metav1.UpdateOptions{})
	h.must(err)
	h.observe()
	return pod
}

func describe(actions []clienttesting.Action) string {
	var out []string
	for _, a := range actions {
		s := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			s += "/" + a.GetSubresource()
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func expectWrites(t *testing.T, got []clienttesting.Action, want string) {
	t.Helper()
	if d := describe(got); d != want {
		t.Fatalf("writes: got %q, want %q", d, want)
	}
}

func TestSyncLifecycle(t *testing.T) {
	h := newHarness(t, newSimulator("sim"))

	// First sync: Pod, Service, status Creating with the URL.
	expectWrites(t, h.sync(), "create networkpolicies, create pods, create services, update simulators/status")
	sim := h.current()
	if sim.Status.Phase != simv1alpha1.SimulatorCreating || sim.Status.KubeAPIServerURL != "http://sim.team-a.svc:3131" || *sim.Status.Message != MessageWaitingForPod {
		t.Fatalf("status %+v", sim.Status)
	}

	// The informers have not caught up yet: nothing is created twice.
	expectWrites(t, h.sync(), "")

	// Converged: zero writes.
	h.observe()
	expectWrites(t, h.sync(), "")

	// The kubelet reports the Pod ready: Available.
	h.markReady()
	expectWrites(t, h.sync(), "update simulators/status")
	if sim := h.current(); sim.Status.Phase != simv1alpha1.SimulatorAvailable {
		t.Fatalf("status %+v", sim.Status)
	}
	h.observe()
	expectWrites(t, h.sync(), "")

	// A spec change replaces the Pod and goes back to Creating.
	h.changeImage("example.com/simulator:2")
	expectWrites(t, h.sync(), "delete pods, create pods, update simulators/status")
	sim = h.current()
	if sim.Status.Phase != simv1alpha1.SimulatorCreating || sim.Status.ObservedGeneration != 2 {
		t.Fatalf("status %+v", sim.Status)
	}
	pods, _ := h.kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{})
	if len(pods.Items) != 1 || pods.Items[0].Spec.Containers[0].Image != "example.com/simulator:2" {
		t.Fatalf("pods %v", pods.Items)
	}
	h.observe()
	expectWrites(t, h.sync(), "")

	// The Pod is deleted behind the controller's back: it comes back.
	h.must(h.kube.CoreV1().Pods("team-a").Delete(context.Background(), pods.Items[0].Name, metav1.DeleteOptions{}))
	h.observe()
	expectWrites(t, h.sync(), "create pods")

	// A hand edit of the Service is put back.
	svc, err := h.kube.CoreV1().Services("team-a").Get(context.Background(), "sim", metav1.GetOptions{})
	h.must(err)
	svc.Spec.Ports = svc.Spec.Ports[:1]
	_, err = h.kube.CoreV1().Services("team-a").Update(context.Background(), svc, metav1.UpdateOptions{})
	h.must(err)
	h.observe()
	expectWrites(t, h.sync(), "update services")

	var reasons []string
	for _, e := range h.recorder.Events() {
		reasons = append(reasons, e.Reason)
	}
	// Creating, and becoming Available, is told by the status alone (an event
	// is a request); what the controller deletes or puts back, by events.
	if got := strings.Join(reasons, ","); got != "SimulatorPodDeleted,SimulatorServiceUpdated" {
		t.Errorf("events %s", got)
	}
}

func TestSyncServiceFailureIsNotAvailable(t *testing.T) {
	h := newHarness(t, newSimulator("sim"))
	h.kube.PrependReactor("create", "services", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewInternalError(errors.New("failed to allocate a serviceIP: range is full"))
	})
	h.kube.ClearActions()
	err := h.ctrl.Sync(context.Background(), syncContext{key: "team-a/sim", recorder: h.recorder})
	if err == nil || !strings.Contains(err.Error(), "range is full") {
		t.Fatalf("sync must fail (and be retried): %v", err)
	}
	sim := h.current()
	if sim.Status.Phase != simv1alpha1.SimulatorCreating || !strings.Contains(*sim.Status.Message, "creating Service sim") ||
		!meta.IsStatusConditionTrue(sim.Status.Conditions, ConditionDegraded) || sim.Status.KubeAPIServerURL != "" {
		t.Fatalf("status %+v", sim.Status)
	}

	// Ready Pod, still no Service: not Available.
	h.observe()
	pods, _ := h.kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{})
	pod := pods.Items[0]
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	_, err = h.kube.CoreV1().Pods("team-a").UpdateStatus(context.Background(), &pod, metav1.UpdateOptions{})
	h.must(err)
	h.observe()
	_ = h.ctrl.Sync(context.Background(), syncContext{key: "team-a/sim", recorder: h.recorder})
	if sim := h.current(); sim.Status.Phase != simv1alpha1.SimulatorCreating || meta.IsStatusConditionTrue(sim.Status.Conditions, ConditionAvailable) {
		t.Fatalf("status %+v", sim.Status)
	}
}

func TestSyncInvalidSpec(t *testing.T) {
	h := newHarness(t, newSimulator("sim", func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("etcd:2379") }))
	expectWrites(t, h.sync(), "update simulators/status")
	sim := h.current()
	if sim.Status.Phase != simv1alpha1.SimulatorPending || !strings.Contains(*sim.Status.Message, "spec.etcdURL") {
		t.Fatalf("status %+v", sim.Status)
	}
	h.observe()
	expectWrites(t, h.sync(), "")
	// One Warning on the Simulator for the problem, not one per sync.
	var warnings []string
	for _, e := range h.recorder.Events() {
		if e.Type == corev1.EventTypeWarning {
			warnings = append(warnings, e.Reason)
		}
	}
	if len(warnings) != 1 || warnings[0] != ReasonInvalidSpec {
		t.Errorf("warnings %v, want one %s", warnings, ReasonInvalidSpec)
	}
}

func TestSyncDeletedSimulator(t *testing.T) {
	h := newHarness(t, newSimulator("sim"))
	h.must(h.simStore.Delete(newSimulator("sim")))
	expectWrites(t, h.sync(), "")
}

func TestQueueKeys(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "sim-0123", Labels: map[string]string{simulatorrender.SimulatorLabel: "sim"}}}
	if got := ownerKeysOf(pod); len(got) != 1 || got[0] != "team-a/sim" {
		t.Errorf("pod keys %v", got)
	}
	if got := ownerKeysOf(&corev1.Service{}); len(got) != 0 {
		t.Errorf("unlabelled service keys %v", got)
	}
	if got := simulatorKey(newSimulator("sim")); got[0] != "team-a/sim" {
		t.Errorf("simulator keys %v", got)
	}
	opts := metav1.ListOptions{}
	TweakListOptions(&opts)
	if opts.LabelSelector != simulatorrender.SimulatorLabel+",app.kubernetes.io/managed-by=secondary-scheduler-operator" {
		t.Errorf("selector %q", opts.LabelSelector)
	}
}

// An operator upgrade that changes only the operator's defaults keeps the
// running Pod (a simulator's state lives in an emptyDir) and says so; the
// Pod takes the new defaults once it is replaced, and a spec change still
// replaces it.
func TestSyncKeepsAPodOfEarlierDefaults(t *testing.T) {
	h := newHarness(t, newSimulator("sim"))
	h.sync()
	h.observe()
	pod := h.markReady()
	h.sync()
	h.observe()

	upgradedFrom := simulatorrender.DefaultEtcdImage
	simulatorrender.DefaultEtcdImage = "registry.k8s.io/etcd:3.5.99-0"
	t.Cleanup(func() { simulatorrender.DefaultEtcdImage = upgradedFrom })

	expectWrites(t, h.sync(), "update simulators/status")
	sim := h.current()
	if sim.Status.Phase != simv1alpha1.SimulatorAvailable || !strings.Contains(*sim.Status.Message, "Pod "+pod.Name+" keeps the defaults") {
		t.Fatalf("status %+v, message %q", sim.Status, *sim.Status.Message)
	}
	h.observe()
	expectWrites(t, h.sync(), "")

	// Deleted by its user: the new Pod has the new defaults.
	h.must(h.kube.CoreV1().Pods("team-a").Delete(context.Background(), pod.Name, metav1.DeleteOptions{}))
	h.observe()
	expectWrites(t, h.sync(), "create pods, update simulators/status")
	pods, _ := h.kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{})
	if len(pods.Items) != 1 || pods.Items[0].Name == pod.Name || pods.Items[0].Spec.Containers[1].Image != simulatorrender.DefaultEtcdImage {
		t.Fatalf("pods after the old one was deleted: %v", pods.Items)
	}

	// A kept Pod is replaced by a spec change as any other.
	simulatorrender.DefaultEtcdImage = upgradedFrom
	h.observe()
	expectWrites(t, h.sync(), "update simulators/status")
	h.changeImage("example.com/simulator:2")
	expectWrites(t, h.sync(), "delete pods, create pods, update simulators/status")
}
