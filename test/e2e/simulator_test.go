package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// simulatorsNamespace is where examples/simulators put their Simulators.
const simulatorsNamespace = "simulators"

// TestSimulatorExamples: `kubectl apply -f examples/simulators/` is accepted,
// the operator's simulator controller gives every Simulator its Pod, Service
// and NetworkPolicy, and the harness runs each Pod with the real simulator
// v0.1.1 (operandrunner.RunSimulators; kwok leaves these Pods alone):
//
//   - a Simulator the harness can run with its own etcd container reaches phase
//     Available with its kube-apiserver URL, and one whose
//     kubeSchedulerConfigurationPath points at a ConfigMap mounted through
//     podTemplate serves that configuration;
//   - one whose etcd is outside the Pod (no such etcd here), or whose image has
//     no binary here (a newer simulator), is not Available, and its status says
//     why, as a kubelet's report of the Pod makes it;
//   - one whose Pod waits for a PersistentVolumeClaim stays Creating (this
//     control plane provisions no volumes).
//
// Deleting a Simulator deletes its Pod, Service and NetworkPolicy (owner
// references, collected by kube-controller-manager's garbage collector).
func TestSimulatorExamples(t *testing.T) {
	c := needCluster(t)
	h := c.playSimulators(t)
	ctx := context.Background()
	out, err := c.kubectl("apply", "-f", repoPath(t, "examples", "simulators")+"/")
	if err != nil {
		t.Fatalf("kubectl apply -f examples/simulators/: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		_ = c.admin.Kube.CoreV1().Namespaces().Delete(context.Background(), simulatorsNamespace, metav1.DeleteOptions{})
	})
	sims, err := c.admin.Operator.SimulationV1alpha1().Simulators(simulatorsNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sims.Items) == 0 {
		t.Fatal("examples/simulators has no Simulator")
	}
	for _, sim := range sims.Items {
		t.Run(sim.Name, func(t *testing.T) {
			var pod *corev1.Pod
			framework.WaitForWithin(ctx, t, reconcileTimeout, "the Simulator's Pod, Service and NetworkPolicy", func() (bool, error) {
				var err error
				if pod, err = c.simulatorPod(ctx, sim.Name); err != nil || pod == nil {
					return false, err
				}
				if _, err = c.admin.Kube.CoreV1().Services(simulatorsNamespace).Get(ctx, sim.Name, metav1.GetOptions{}); err != nil {
					return false, err
				}
				_, err = c.admin.Kube.NetworkingV1().NetworkPolicies(simulatorsNamespace).Get(ctx, sim.Name, metav1.GetOptions{})
				return err == nil, err
			})
			if needsVolumeClaim(pod) {
				t.Logf("Simulator %s: Pod %s waits for a PersistentVolumeClaim; not expecting Available here", sim.Name, pod.Name)
				return
			}
			if !runsHere(pod) {
				c.waitSimulatorProblem(ctx, t, sim.Name)
				return
			}
			s := c.waitSimulatorAvailable(ctx, t, h, sim.Name)
			if sim.Spec.KubeSchedulerConfigurationPath == "" {
				return
			}
			_, body, err := simulatorGet(s, "/api/v1/schedulerconfiguration", "")
			if err != nil {
				t.Fatal(err)
			}
			// examples/simulators/scheduler-config.yaml: NodeResourcesFit weighs 5.
			var served struct {
				Profiles []struct {
					Plugins struct {
						Score struct {
							Enabled []struct {
								Name   string `json:"name"`
								Weight int    `json:"weight"`
							} `json:"enabled"`
						} `json:"score"`
					} `json:"plugins"`
				} `json:"profiles"`
			}
			if err := json.Unmarshal([]byte(body), &served); err != nil {
				t.Fatalf("%v:\n%s", err, body)
			}
			weighs5 := false
			for _, p := range served.Profiles {
				for _, e := range p.Plugins.Score.Enabled {
					weighs5 = weighs5 || (e.Name == "NodeResourcesFit" && e.Weight == 5)
				}
			}
			if !weighs5 {
				t.Fatalf("the simulator does not serve the configuration at %s:\n%s", sim.Spec.KubeSchedulerConfigurationPath, body)
			}
			t.Logf("the simulator serves the mounted configuration (NodeResourcesFit weight 5)")
		})
	}

	// Deleting one deletes its Pod and Service.
	name := sims.Items[0].Name
	if err := c.admin.Operator.SimulationV1alpha1().Simulators(simulatorsNamespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the garbage collector to delete the Pod, Service and NetworkPolicy of Simulator "+name, func() (bool, error) {
		pod, err := c.simulatorPod(ctx, name)
		if err != nil || pod != nil {
			return false, err
		}
		if _, err = c.admin.Kube.CoreV1().Services(simulatorsNamespace).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, err
		}
		_, err = c.admin.Kube.NetworkingV1().NetworkPolicies(simulatorsNamespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// simulatorPod is the Pod the Simulator owns, or nil.
func (c *cluster) simulatorPod(ctx context.Context, simulator string) (*corev1.Pod, error) {
	pods, err := c.admin.Kube.CoreV1().Pods(simulatorsNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i, p := range pods.Items {
		for _, ref := range p.OwnerReferences {
			if ref.Kind == "Simulator" && ref.Name == simulator && p.DeletionTimestamp == nil {
				return &pods.Items[i], nil
			}
		}
	}
	return nil, nil
}

func needsVolumeClaim(p *corev1.Pod) bool {
	for _, v := range p.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			return true
		}
	}
	return false
}

// runsHere says whether the harness can run the Pod: a simulator image it has
// a binary for, with its etcd in the Pod (an external one does not exist here).
func runsHere(p *corev1.Pod) bool {
	image, etcd := "", false
	for _, c := range p.Spec.Containers {
		switch c.Name {
		case simv1alpha1.SimulatorContainerName:
			image = c.Image
		case simv1alpha1.EtcdContainerName:
			etcd = true
		}
	}
	return etcd && operandrunner.RunsImage(image)
}

// waitSimulatorAvailable waits for Simulator name (in examples/simulators'
// namespace) to be Available with its URL, and returns its running simulator.
func (c *cluster) waitSimulatorAvailable(ctx context.Context, t *testing.T, h *simulatorHarness, name string) *operandrunner.Simulator {
	t.Helper()
	framework.WaitForWithin(ctx, t, reconcileTimeout, "Simulator "+name+" to be Available", func() (bool, error) {
		s, err := c.admin.Operator.SimulationV1alpha1().Simulators(simulatorsNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if s.Status.Phase != simv1alpha1.SimulatorAvailable || s.Status.KubeAPIServerURL == "" {
			return false, fmt.Errorf("phase %q, kubeAPIServerURL %q: %s", s.Status.Phase, s.Status.KubeAPIServerURL, ptr.Deref(s.Status.Message, ""))
		}
		t.Logf("Simulator %s is Available at %s", s.Name, s.Status.KubeAPIServerURL)
		return true, nil
	})
	s, _ := h.latest(simulatorsNamespace, name)
	return s
}

// waitSimulatorProblem waits for Simulator name to report what keeps its Pod
// from running (a message other than the one of a Pod still starting), and
// checks it is not Available.
func (c *cluster) waitSimulatorProblem(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	framework.WaitForWithin(ctx, t, reconcileTimeout, "Simulator "+name+" to say why its Pod does not run", func() (bool, error) {
		s, err := c.admin.Operator.SimulationV1alpha1().Simulators(simulatorsNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		msg := ptr.Deref(s.Status.Message, "")
		if s.Status.Phase == simv1alpha1.SimulatorAvailable {
			t.Fatalf("Simulator %s is Available, but its Pod cannot run here: %s", name, msg)
		}
		if msg == "" || msg == simulatorcontroller.MessageWaitingForPod {
			return false, fmt.Errorf("phase %q: %q", s.Status.Phase, msg)
		}
		t.Logf("Simulator %s: phase %s: %s", name, s.Status.Phase, msg)
		return true, nil
	})
}
