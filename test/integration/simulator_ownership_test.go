package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestSimulatorLeavesAServiceItDidNotCreateAlone: a user's Service that
// takes a Simulator's name, even labelled as the operator labels its own, is
// never adopted, updated or deleted (its resourceVersion does not move): the
// Simulator is Degraded (NameConflict) with a message naming it, and a
// Warning says so. Once the user deletes it, the Simulator gets its own.
func TestSimulatorLeavesAServiceItDidNotCreateAlone(t *testing.T) {
	env, ns, _ := simctlSetup(t, "sim-conflict")
	ctx := context.Background()
	for name, labels := range map[string]map[string]string{
		"bare":     {"app": "theirs"},
		"labelled": {"app": "theirs", simulatorrender.SimulatorLabel: "labelled", simulatorcontroller.ManagedByLabel: simulatorcontroller.ManagedByValue},
	} {
		theirs, err := env.Admin.Kube.CoreV1().Services(ns).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "theirs"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}})
		message := "Service " + name + " already exists and was not created by the operator for this Simulator"
		simctlWaitStatus(t, env, ns, name, name+": Degraded, NameConflict", func(s *simv1alpha1.SimulatorStatus) error {
			if err := simctlPhase(simv1alpha1.SimulatorCreating, true, message)(s); err != nil {
				return err
			}
			if c := meta.FindStatusCondition(s.Conditions, simulatorcontroller.ConditionDegraded); c.Reason != simulatorcontroller.ReasonNameConflict ||
				!strings.Contains(c.Message, "rename or delete it") {
				return fmt.Errorf("Degraded %s: %s", c.Reason, c.Message)
			}
			return nil
		})
		framework.WaitFor(ctx, t, name+": a Warning on the Simulator", func() (bool, error) {
			return framework.FindEvent(ctx, env.Admin.Kube, ns, "involvedObject.kind=Simulator,involvedObject.name="+name,
				corev1.EventTypeWarning, simulatorcontroller.ReasonNameConflict, message)
		})
		framework.ServiceUntouched(ctx, t, env.Admin.Kube, theirs, 3*time.Second)
		if err := env.Admin.Kube.CoreV1().Services(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		simctlWaitStatus(t, env, ns, name, name+": Creating once the name is free", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))
		svc, err := env.Admin.Kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		simctlExpectOwned(t, &svc.ObjectMeta, simctlGet(t, env, ns, name))
	}
}

// TestSimulatorAdoptsWhatAnEarlierVersionMade: objects an earlier operator
// version made (a controller reference to the Simulator, without the
// managed-by label the informers select by) are not lost when the
// controller starts: the Pod is replaced (the informers cannot see it, and
// left running the Service would select it beside its replacement), the
// Service and NetworkPolicy get the label, in place.
func TestSimulatorAdoptsWhatAnEarlierVersionMade(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "sim-earlier")
	sim := simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}})
	rendered, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	if err != nil {
		t.Fatal(err)
	}
	earlier := func(labels map[string]string) map[string]string {
		delete(labels, simulatorcontroller.ManagedByLabel)
		return labels
	}
	rendered.Pod.Labels = earlier(rendered.Pod.Labels)
	oldPod, err := env.Admin.Kube.CoreV1().Pods(ns).Create(ctx, rendered.Pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rendered.Service.Labels = earlier(rendered.Service.Labels)
	oldSvc, err := env.Admin.Kube.CoreV1().Services(ns).Create(ctx, rendered.Service, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rendered.NetworkPolicy.Labels = earlier(rendered.NetworkPolicy.Labels)
	if _, err := env.Admin.Kube.NetworkingV1().NetworkPolicies(ns).Create(ctx, rendered.NetworkPolicy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	simctlStart(t, env, ns, simctlRole)
	framework.WaitFor(ctx, t, "the earlier Pod replaced", func() (bool, error) {
		pod := simctlPod(t, env, ns, "sim")
		if pod.UID == oldPod.UID || pod.Labels[simulatorcontroller.ManagedByLabel] != simulatorcontroller.ManagedByValue {
			return false, fmt.Errorf("pod %s labels %v", pod.Name, pod.Labels)
		}
		return true, nil
	})
	framework.WaitFor(ctx, t, "the Service and NetworkPolicy labelled in place", func() (bool, error) {
		svc, err := env.Admin.Kube.CoreV1().Services(ns).Get(ctx, "sim", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		policy, err := env.Admin.Kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, "sim", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if svc.UID != oldSvc.UID || svc.Labels[simulatorcontroller.ManagedByLabel] == "" || policy.Labels[simulatorcontroller.ManagedByLabel] == "" {
			return false, fmt.Errorf("service %s labels %v, policy labels %v", svc.UID, svc.Labels, policy.Labels)
		}
		return true, nil
	})
	simctlWaitStatus(t, env, ns, "sim", "Creating", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))
}

// TestSimulatorAPIBudget counts the controller's requests (events included)
// from the creation of Simulators to all of them Available, the kubelet
// played by the test: at most five each (NetworkPolicy, Pod and Service
// created, the status written twice: Creating, then Available), and none
// once they are.
func TestSimulatorAPIBudget(t *testing.T) {
	env, ns, counter := simctlSetup(t, "sim-budget")
	ctx := context.Background()
	const n = 20
	// Its four informers (Simulators, Pods, Services, NetworkPolicies) have
	// opened their watches, and their start-up requests have stopped (an
	// informer may fall back from a streaming watch to a list and a watch):
	// none of that is counted below.
	framework.WaitFor(ctx, t, "the controller's informers to watch", func() (bool, error) {
		if n := counter.Count("watch"); n < 4 {
			return false, fmt.Errorf("%d watches open", n)
		}
		return true, nil
	})
	framework.WaitForStable(ctx, t, time.Second, "the controller's start-up requests", func() (int, error) {
		total := 0
		for _, c := range counter.Counts() {
			total += c
		}
		return total, nil
	})
	counter.Reset()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(name string) {
			defer wg.Done()
			if _, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}},
				metav1.CreateOptions{}); err != nil {
				t.Error(err)
			}
		}(fmt.Sprintf("sim-%02d", i))
	}
	wg.Wait()
	framework.WaitFor(ctx, t, "all Available", func() (bool, error) {
		pods, err := env.Admin.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: simulatorcontroller.Selector})
		if err != nil {
			return false, err
		}
		for i := range pods.Items {
			if pod := &pods.Items[i]; len(pod.Status.Conditions) == 0 {
				simctlKubelet(t, env, pod, simctlReady(true))
			}
		}
		available, err := framework.SimulatorsInPhase(ctx, env.Admin.Operator, ns, simv1alpha1.SimulatorAvailable)
		if err != nil || available < n {
			return false, fmt.Errorf("%d of %d Available (%v)", available, n, err)
		}
		return true, nil
	})
	framework.WaitForStable(ctx, t, 2*time.Second, "the controller's requests", func() (int, error) {
		total := 0
		for _, c := range counter.Counts() {
			total += c
		}
		return total, nil
	})
	counts := counter.Counts()
	total := 0
	for _, c := range counts {
		total += c
	}
	perSim := float64(total) / n
	t.Logf("%d Simulators: %d requests until all Available, %.2f per Simulator, by verb %v", n, total, perSim, counts)
	if perSim > 5 {
		t.Errorf("%.2f requests per Simulator (%v), want at most 5; writes: %v", perSim, counts, counter.WriteRequests())
	}
	counter.Reset()
	framework.Consistently(ctx, t, 3*time.Second, "Available Simulators cost nothing", counter.NoWrites)
}
