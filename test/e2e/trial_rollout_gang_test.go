package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
)

// TestTrialBlocksAGangThroughTheOperator runs spec.rollout.strategy Trial
// through the operator with examples/coscheduling served (trial Pods of
// scheduler-plugins' image, which the harness runs as scheduler-plugins'
// scheduler): a gang of 4 pods of 10 CPUs waits, and a change of the example's
// configuration that pins every pod to one node, which cannot hold the gang,
// is blocked: TrialBlocked names Coscheduling, the report ConfigMap counts
// the gang as one newly unschedulable unit of 4 pods, the Deployment keeps
// its generation, and no trial object is left. Going back to the example's
// configuration clears the condition.
func TestTrialBlocksAGangThroughTheOperator(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	dir := c.testDir(t, "trial-rollout-gang")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	c.coschedulingRolledOut(t)
	c.useTrialStrategy(t)

	nodes, err := c.admin.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) < 2 {
		t.Fatalf("the stack's nodes: %v (%d)", err, len(nodes.Items))
	}
	ns := c.createWaitingGang(t, "e2e-trial-rollout-gang")
	before := c.operandGeneration(t)

	start := time.Now()
	c.applyFile(t, writePinnedCoscheduling(t, dir, nodes.Items[0].Name))
	result := c.waitTrialVerdict(t)
	if result.Verdict != secondaryschedulerv1.TrialBlocked || result.Counts == nil || result.Counts.NewlyUnschedulable < 1 {
		t.Fatalf("lastTrial %+v (counts %+v), want Blocked with the gang newly unschedulable", result, result.Counts)
	}
	t.Logf("verdict after %s", result.FinishedAt.Sub(start).Round(100*time.Millisecond))

	report := c.trialReportJSON(t, result)
	if !strings.HasPrefix(report.Candidate.Image, operandrunner.SchedulerPluginsImage+":") {
		t.Errorf("the candidate arm ran image %s, want scheduler-plugins' (%s)", report.Candidate.Image, operandrunner.SchedulerPluginsImage)
	}
	checkBlockedGang(t, report, ns)
	checkSettled(t, report)
	c.waitCondition(t, targetconfigcontroller.TrialBlockedCondition, operatorv1.ConditionTrue, "TrialBlocked", "Coscheduling")

	if after := c.operandGeneration(t); after != before {
		t.Errorf("the Deployment went from generation %d to %d while the trial blocked the change", before, after)
	}
	c.checkNoTrialObjects(t)

	// The running configuration needs no trial: going back clears the block.
	c.applyFile(t, repoPath(t, "examples", "coscheduling", "configmap.yaml"))
	c.waitCondition(t, targetconfigcontroller.TrialBlockedCondition, operatorv1.ConditionFalse, "AsExpected", "")
	t.Logf("blocked, checked and cleared after %s", time.Since(start).Round(100*time.Millisecond))
}

// trialReportJSON decodes report.json of the report ConfigMap the result names.
func (c *cluster) trialReportJSON(t *testing.T, result *secondaryschedulerv1.TrialResult) *trial.Report {
	t.Helper()
	if result.Report != trialcontroller.ReportName {
		t.Fatalf("lastTrial.report = %q, want %s", result.Report, trialcontroller.ReportName)
	}
	cm, err := c.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(context.Background(), result.Report, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the report ConfigMap %q that lastTrial names: %v", result.Report, err)
	}
	r := &trial.Report{}
	if err := json.Unmarshal([]byte(cm.Data["report.json"]), r); err != nil {
		t.Fatalf("report.json of ConfigMap %s: %v\n%s", cm.Name, err, cm.Data["report.json"])
	}
	return r
}
