package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// trialVerdictTimeout bounds a trial run by the operator on the stack: two
// trial Pods start (etcd, kube-apiserver, a scheduler each), are seeded and
// schedule a handful of pods.
const trialVerdictTimeout = 3 * time.Minute

// TestTrialGatesTheRollout runs spec.rollout.strategy Trial through the
// operator: each change of the scheduler configuration is tried in trial Pods
// (played by the harness, with the real kube-apiserver, etcd and
// kube-scheduler) on a copy of the stack before it replaces the running
// scheduler, which serves LeastAllocated scoring for two bound and four
// pending pods:
//
//   - MostAllocated packs the pods on fewer nodes than either run of the
//     current configuration; the gate allows it and it rolls out;
//   - a NodeAffinity addedAffinity no node matches is blocked: TrialBlocked
//     names the count and the plugin, the Deployment is not touched, and
//     going back to the running configuration clears it;
//   - the Deployment deleted while that change is held comes back as it last
//     ran (its pod template hash), still held;
//   - after each verdict, no trial Pod, Secret or NetworkPolicy is left.
func TestTrialGatesTheRollout(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	dir := c.testDir(t, "trial-rollout")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	c.applyFile(t, writeTrialInput(t, dir, "gated-least", "LeastAllocated", ""))
	c.waitReconciled(t)
	c.useTrialStrategy(t)

	ns := c.createNamespace(t, "e2e-trial-rollout")
	nodes, err := c.admin.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) < 2 {
		t.Fatalf("the stack's nodes: %v (%d)", err, len(nodes.Items))
	}
	for i := 0; i < 2; i++ {
		c.createTrialPod(t, ns, fmt.Sprintf("bound-%d", i), nodes.Items[0].Name, "4", nil)
	}
	for i := 0; i < 4; i++ {
		c.createTrialPod(t, ns, fmt.Sprintf("pending-%d", i), "", "4", nil)
	}

	allowed := writeTrialInput(t, dir, "gated-most", "MostAllocated", "")
	t.Run("MostAllocated is tried, allowed and rolled out", func(t *testing.T) {
		start := time.Now()
		c.applyFile(t, allowed)
		// While it is tried the change is on its way: Progressing, up to the
		// ClusterOperator, as during the rollout that follows.
		c.waitCondition(t, targetconfigcontroller.TrialProgressingCondition, operatorv1.ConditionTrue, "TrialRunning", "")
		c.waitClusterOperator(t, "Progressing while the trial runs", framework.DefaultTimeout, func(co *configv1.ClusterOperator) error {
			for _, cond := range co.Status.Conditions {
				if cond.Type != configv1.OperatorProgressing {
					continue
				}
				if cond.Status != configv1.ConditionTrue || !strings.Contains(cond.Message, targetconfigcontroller.TrialProgressingCondition+": ") {
					return fmt.Errorf("Progressing=%s %s: %s", cond.Status, cond.Reason, cond.Message)
				}
				return nil
			}
			return fmt.Errorf("no Progressing condition")
		})
		result := c.waitTrialVerdict(t)
		report := c.trialReportJSON(t, result)
		if result.Verdict != secondaryschedulerv1.TrialAllowed || result.Counts == nil || result.Counts.Moved == 0 ||
			result.Counts.NewlyUnschedulable != 0 {
			t.Fatalf("lastTrial %+v (counts %+v), want Allowed with moved pods and none newly unschedulable; spread %+v; fences %q",
				result, result.Counts, report.Spread, []string{report.Current.Fence, report.Candidate.Fence, report.Rerun.Fence})
		}
		// Moved pods alone could be tie-breaks: the candidate must pack them.
		checkPacked(t, report)
		c.waitReconciled(t)
		c.waitCondition(t, targetconfigcontroller.TrialProgressingCondition, operatorv1.ConditionFalse, "AsExpected", "")
		t.Logf("verdict after %s, rolled out after %s: %s", result.FinishedAt.Sub(start).Round(100*time.Millisecond),
			time.Since(start).Round(100*time.Millisecond), result.Message)
		c.checkTrialReport(t, result)
		c.checkNoTrialObjects(t)
	})

	t.Run("an addedAffinity no node matches is blocked, outlives the deleted Deployment, and reverting clears it", func(t *testing.T) {
		before := c.operandGeneration(t)
		c.applyFile(t, writeTrialInput(t, dir, "gated-nowhere", "MostAllocated", "e2e.trial/no-such-label"))
		result := c.waitTrialVerdict(t)
		if result.Verdict != secondaryschedulerv1.TrialBlocked || result.Counts == nil || result.Counts.NewlyUnschedulable < 6 {
			t.Fatalf("lastTrial %+v (counts %+v), want Blocked with at least our 6 pods newly unschedulable", result, result.Counts)
		}
		want := fmt.Sprintf("%d newly unschedulable (at most 0 allowed)", result.Counts.NewlyUnschedulable)
		c.waitCondition(t, targetconfigcontroller.TrialBlockedCondition, operatorv1.ConditionTrue, "TrialBlocked", want)
		c.waitCondition(t, targetconfigcontroller.TrialBlockedCondition, operatorv1.ConditionTrue, "TrialBlocked", "NodeAffinity")
		if after := c.operandGeneration(t); after != before {
			t.Errorf("the Deployment went from generation %d to %d while the trial blocked the change", before, after)
		}
		c.checkNoTrialObjects(t)
		before = c.deleteHeldOperand(t)
		c.waitCondition(t, targetconfigcontroller.TrialBlockedCondition, operatorv1.ConditionTrue, "TrialBlocked", want)

		c.applyFile(t, allowed)
		c.waitCondition(t, targetconfigcontroller.TrialBlockedCondition, operatorv1.ConditionFalse, "AsExpected", "")
		c.waitReconciled(t)
		if after := c.operandGeneration(t); after != before {
			t.Errorf("reverting to the running configuration changed the Deployment: generation %d, want %d", after, before)
		}
	})
}

// useTrialStrategy sets spec.rollout.strategy Trial (replaying the last 2
// bound pods) until the test ends, and waits for the operator to take it.
func (c *cluster) useTrialStrategy(t *testing.T) {
	t.Helper()
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.Rollout = &secondaryschedulerv1.RolloutPolicy{Strategy: secondaryschedulerv1.RolloutTrial,
			Trial: &secondaryschedulerv1.TrialPolicy{ReplayBound: ptr.To[int32](2), TimeoutSeconds: ptr.To[int32](180)}}
	})
	t.Cleanup(func() { c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.Rollout = nil }) })
	c.waitReconciled(t)
}

// operandGeneration is the operand Deployment's generation.
func (c *cluster) operandGeneration(t *testing.T) int64 {
	t.Helper()
	d, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Generation
}

func (c *cluster) applyFile(t *testing.T, path string) {
	t.Helper()
	if out, err := c.kubectl("apply", "-f", path); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", path, err, out)
	}
}

// waitTrialVerdict waits for the verdict of the trial of the configuration
// the SecondaryScheduler's inputs now give.
func (c *cluster) waitTrialVerdict(t *testing.T) *secondaryschedulerv1.TrialResult {
	t.Helper()
	var result *secondaryschedulerv1.TrialResult
	framework.WaitForWithin(context.Background(), t, trialVerdictTimeout, "a trial verdict of the new configuration", func() (bool, error) {
		_, want, err := c.render(context.Background())
		if err != nil {
			return false, err
		}
		ss, err := c.getCR(context.Background())
		if err != nil {
			return false, err
		}
		result = ss.Status.LastTrial
		return result != nil && result.ConfigHash == want.ConfigHash && result.Verdict != secondaryschedulerv1.TrialRunning, nil
	})
	t.Logf("lastTrial: %s %s (counts %+v)", result.Verdict, result.Message, result.Counts)
	return result
}

// checkTrialReport checks the report ConfigMap of the trial result names.
func (c *cluster) checkTrialReport(t *testing.T, result *secondaryschedulerv1.TrialResult) {
	t.Helper()
	if result.Report != trialcontroller.ReportName {
		t.Fatalf("lastTrial.report = %q, want %s", result.Report, trialcontroller.ReportName)
	}
	cm, err := c.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(context.Background(), result.Report, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if text := cm.Data["report.txt"]; !strings.Contains(text, "Verdict: allowed") || !strings.Contains(text, "moved") ||
		!strings.Contains(cm.Data["report.json"], `"verdict"`) {
		t.Errorf("the report ConfigMap does not hold the verdict and the moved units:\n%s", text)
	}
}

// checkNoTrialObjects checks that no trial Pod, Secret or NetworkPolicy is left.
func (c *cluster) checkNoTrialObjects(t *testing.T) {
	t.Helper()
	ctx, kube := context.Background(), c.admin.Kube
	selector := metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=secondary-scheduler-trial"}
	framework.WaitForWithin(ctx, t, 30*time.Second, "the trial's objects to be gone", func() (bool, error) {
		pods, err := kube.CoreV1().Pods(names.OperandNamespace).List(ctx, selector)
		if err != nil {
			return false, err
		}
		secrets, err := kube.CoreV1().Secrets(names.OperandNamespace).List(ctx, selector)
		if err != nil {
			return false, err
		}
		policies, err := kube.NetworkingV1().NetworkPolicies(names.OperandNamespace).List(ctx, selector)
		if err != nil {
			return false, err
		}
		return len(pods.Items)+len(secrets.Items)+len(policies.Items) == 0, nil
	})
}

// deleteHeldOperand deletes the scheduler Deployment while a change is held,
// waits for the operator to create it again with the pod template that ran,
// and returns the new Deployment's generation.
func (c *cluster) deleteHeldOperand(t *testing.T) int64 {
	t.Helper()
	ctx, deployments := context.Background(), c.admin.Kube.AppsV1().Deployments(names.OperandNamespace)
	old, err := deployments.Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := deployments.Delete(ctx, names.OperandName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var d *appsv1.Deployment
	framework.WaitFor(ctx, t, "the deleted Deployment to be created again", func() (bool, error) {
		d, err = deployments.Get(ctx, names.OperandName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil && d.UID != old.UID, err
	})
	want := old.Spec.Template.Annotations[names.TemplateHashAnnotation]
	if got := d.Spec.Template.Annotations[names.TemplateHashAnnotation]; got != want {
		t.Errorf("the Deployment came back with pod template %s, want the one that ran (%s)", got, want)
	}
	return d.Generation
}
