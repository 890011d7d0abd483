package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const (
	clusterOperatorName = "secondary-scheduler"
	// degradedTimeout: library-go reports Degraded on the ClusterOperator only
	// after it has lasted 2 minutes (degraded inertia), on loaded cores.
	degradedTimeout = 4 * time.Minute
	nowhereLabel    = "e2e.secondary-scheduler.openshift.io/nowhere"
)

// TestStatusFollowsOperandHealth: the SecondaryScheduler's conditions and, on
// OpenShift, ClusterOperator secondary-scheduler follow the operand's real
// health (kube-controller-manager and kwok run its pods):
//   - Available with the operator and operand versions once the Deployment is;
//   - a rollout that cannot be scheduled (a nodeSelector no node has): Degraded,
//     naming the pod and Unschedulable, while the old pod keeps serving
//     (Available stays True);
//   - no schedulable node at all (every node cordoned) and the old pod gone:
//     Available=False, naming the pod;
//   - fixed: Available, not Degraded again.
func TestStatusFollowsOperandHealth(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)
	if c.openShift {
		c.waitClusterOperator(t, "Available with its versions", reconcileTimeout, func(co *configv1.ClusterOperator) error {
			if err := coCondition(co, configv1.OperatorAvailable, configv1.ConditionTrue, ""); err != nil {
				return err
			}
			if err := coCondition(co, configv1.OperatorDegraded, configv1.ConditionFalse, ""); err != nil {
				return err
			}
			versions := map[string]string{}
			for _, v := range co.Status.Versions {
				versions[v.Name] = v.Version
			}
			if c.operatorVersion != "" && versions["operator"] != c.operatorVersion {
				return fmt.Errorf("versions %v: operator is not %q", versions, c.operatorVersion)
			}
			if versions["secondary-scheduler"] != "registry.k8s.io/kube-scheduler:v1.37.2" {
				return fmt.Errorf("versions %v: secondary-scheduler is not the running image", versions)
			}
			if len(co.Status.RelatedObjects) == 0 {
				return fmt.Errorf("no relatedObjects")
			}
			return nil
		})
	}
	t.Cleanup(func() {
		c.cordonAll(t, false)
		c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.Placement = nil })
	})

	// 1. A rollout nobody can schedule: Degraded, the old pod still serves.
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.Placement = &secondaryschedulerv1.Placement{NodeSelector: map[string]string{nowhereLabel: "true"}}
	})
	var stuck string
	framework.WaitForWithin(ctx, t, reconcileTimeout, "OperandDegraded to name the unschedulable pod", func() (bool, error) {
		ss, err := c.getCR(ctx)
		if err != nil {
			return false, err
		}
		cond := condition(ss.Status.Conditions, "OperandDegraded")
		if cond == nil || cond.Status != operatorv1.ConditionTrue {
			return false, fmt.Errorf("OperandDegraded: %+v", cond)
		}
		if stuck, err = c.pendingOperandPod(ctx); err != nil || stuck == "" {
			return false, err
		}
		if cond.Reason != "Unschedulable" || !strings.Contains(cond.Message, stuck) {
			return false, fmt.Errorf("OperandDegraded %s: %q does not name pod %s and Unschedulable", cond.Reason, cond.Message, stuck)
		}
		if err := hasCondition(ss.Status.Conditions, "Degraded", operatorv1.ConditionTrue); err != nil {
			return false, err
		}
		// The last good pod keeps scheduling.
		return true, hasCondition(ss.Status.Conditions, "Available", operatorv1.ConditionTrue)
	})
	t.Logf("pod %s is unschedulable; the old pod keeps the scheduler Available", stuck)

	// 2. No node at all: the old pod is gone and cannot come back.
	c.cordonAll(t, true)
	c.deleteRunningOperandPods(t)
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the SecondaryScheduler to be Available=False", func() (bool, error) {
		ss, err := c.getCR(ctx)
		if err != nil {
			return false, err
		}
		cond := condition(ss.Status.Conditions, "OperandAvailable")
		if cond == nil || cond.Status != operatorv1.ConditionFalse {
			return false, fmt.Errorf("OperandAvailable: %+v", cond)
		}
		if !strings.Contains(cond.Message, "cannot be scheduled") {
			return false, fmt.Errorf("OperandAvailable message %q does not say why", cond.Message)
		}
		t.Logf("OperandAvailable=False %s: %s", cond.Reason, cond.Message)
		return true, hasCondition(ss.Status.Conditions, "Available", operatorv1.ConditionFalse)
	})
	if c.openShift {
		c.waitClusterOperator(t, "Available=False", reconcileTimeout, func(co *configv1.ClusterOperator) error {
			return coCondition(co, configv1.OperatorAvailable, configv1.ConditionFalse, "cannot be scheduled")
		})
		c.waitClusterOperator(t, "Degraded=True naming the pod and Unschedulable", degradedTimeout, func(co *configv1.ClusterOperator) error {
			if err := coCondition(co, configv1.OperatorDegraded, configv1.ConditionTrue, "cannot be scheduled"); err != nil {
				return err
			}
			d := findCO(co, configv1.OperatorDegraded)
			if !strings.Contains(d.Reason+d.Message, "Unschedulable") || !strings.Contains(d.Message, "pod secondary-scheduler-") {
				return fmt.Errorf("Degraded %s: %q does not name the pod and Unschedulable", d.Reason, d.Message)
			}
			t.Logf("ClusterOperator Degraded=True %s: %s", d.Reason, d.Message)
			return nil
		})
	}

	// 3. Fixed: nodes back, the nodeSelector gone.
	c.cordonAll(t, false)
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.Placement = nil })
	c.waitReconciled(t)
	if c.openShift {
		c.waitClusterOperator(t, "Available and not Degraded again", reconcileTimeout, func(co *configv1.ClusterOperator) error {
			if err := coCondition(co, configv1.OperatorAvailable, configv1.ConditionTrue, ""); err != nil {
				return err
			}
			return coCondition(co, configv1.OperatorDegraded, configv1.ConditionFalse, "")
		})
	}
}

func findCO(co *configv1.ClusterOperator, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range co.Status.Conditions {
		if co.Status.Conditions[i].Type == t {
			return &co.Status.Conditions[i]
		}
	}
	return nil
}

// coCondition checks a ClusterOperator condition's status and that its message
// contains msg.
func coCondition(co *configv1.ClusterOperator, t configv1.ClusterStatusConditionType, s configv1.ConditionStatus, msg string) error {
	c := findCO(co, t)
	if c == nil {
		return fmt.Errorf("no condition %s", t)
	}
	if c.Status != s || !strings.Contains(c.Message, msg) {
		return fmt.Errorf("%s is %s (%s: %q), want %s with %q", t, c.Status, c.Reason, c.Message, s, msg)
	}
	return nil
}

func (c *cluster) waitClusterOperator(t *testing.T, desc string, timeout time.Duration, check func(*configv1.ClusterOperator) error) {
	t.Helper()
	framework.WaitForWithin(context.Background(), t, timeout, "ClusterOperator "+clusterOperatorName+" "+desc, func() (bool, error) {
		co, err := c.admin.OpenShift.ConfigV1().ClusterOperators().Get(context.Background(), clusterOperatorName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		err = check(co)
		return err == nil, err
	})
}

// pendingOperandPod is the name of an operand pod the scheduler marked
// Unschedulable, or "".
func (c *cluster) pendingOperandPod(ctx context.Context) (string, error) {
	pods, err := c.admin.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	for _, p := range pods.Items {
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason == corev1.PodReasonUnschedulable {
				return p.Name, nil
			}
		}
	}
	return "", nil
}

func (c *cluster) deleteRunningOperandPods(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	pods, err := c.admin.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			if err := c.admin.Kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Logf("deleted operand pod %s", p.Name)
		}
	}
}

// cordonAll marks every node (un)schedulable, as `kubectl cordon` does.
func (c *cluster) cordonAll(t *testing.T, cordon bool) {
	t.Helper()
	ctx := context.Background()
	nodes, err := c.admin.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patch, _ := json.Marshal(map[string]interface{}{"spec": map[string]interface{}{"unschedulable": cordon}})
	for _, n := range nodes.Items {
		if _, err := c.admin.Kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
