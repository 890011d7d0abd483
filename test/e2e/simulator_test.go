package e2e

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// simulatorsNamespace is where examples/simulators put their Simulators.
const simulatorsNamespace = "simulators"

// TestSimulatorExamples: `kubectl apply -f examples/simulators/` is accepted,
// the operator's simulator controller gives every Simulator its Pod, Service and NetworkPolicy,
// and each whose Pod can be scheduled here reaches phase Available with its
// kube-apiserver URL (kwok marks the Pod ready; a Simulator whose Pod waits for
// a PersistentVolumeClaim stays Creating: this control plane provisions no
// volumes). Deleting a Simulator deletes its Pod, Service and NetworkPolicy (owner
// references, collected by kube-controller-manager's garbage collector).
func TestSimulatorExamples(t *testing.T) {
	c := needCluster(t)
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
			framework.WaitForWithin(ctx, t, reconcileTimeout, "Simulator "+sim.Name+" to be Available", func() (bool, error) {
				s, err := c.admin.Operator.SimulationV1alpha1().Simulators(simulatorsNamespace).Get(ctx, sim.Name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				if s.Status.Phase != simv1alpha1.SimulatorAvailable || s.Status.KubeAPIServerURL == "" {
					msg := ""
					if s.Status.Message != nil {
						msg = *s.Status.Message
					}
					return false, fmt.Errorf("phase %q, kubeAPIServerURL %q: %s", s.Status.Phase, s.Status.KubeAPIServerURL, msg)
				}
				t.Logf("Simulator %s is Available at %s", s.Name, s.Status.KubeAPIServerURL)
				return true, nil
			})
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
