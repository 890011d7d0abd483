package targetconfigcontroller

import (
	"context"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// trialRequest is status.trialRequest as last applied, nil when absent.
func (f *fakeOperatorClient) trialRequest() *secondaryschedulerapply.TrialRequestApplyConfiguration {
	return f.applied[len(f.applied)-1].TrialRequest
}

// trialCondition is the TrialBlocked condition last applied, if any.
func (f *fakeOperatorClient) trialCondition() (operatorv1.ConditionStatus, string, string, bool) {
	return f.lastCondition(TrialBlockedCondition)
}

// lastCondition is the condition of conditionType last applied, if any.
func (f *fakeOperatorClient) lastCondition(conditionType string) (operatorv1.ConditionStatus, string, string, bool) {
	last := f.applied[len(f.applied)-1]
	for _, c := range last.Conditions {
		if *c.Type == conditionType {
			return *c.Status, *c.Reason, *c.Message, true
		}
	}
	return "", "", "", false
}

// Under strategy Trial a new configuration waits on the running Deployment
// for a trial of exactly that change: it starts one, is held while it runs
// and when it blocks, and rolls out once it allows.
func TestSyncGatesAChangeOnItsTrial(t *testing.T) {
	ss := newSecondaryScheduler()
	ss.Spec.Rollout = &secondaryschedulerv1.RolloutPolicy{Strategy: secondaryschedulerv1.RolloutTrial}
	before := ss.DeepCopy()
	running := mustRender(t, render.Inputs{SecondaryScheduler: before, UserConfig: userConfig("profiles:\n- schedulerName: before\n")})
	ss.Spec.SchedulerConfig = "user"
	user := userConfig("profiles:\n- schedulerName: after\n")
	desired := mustRender(t, render.Inputs{SecondaryScheduler: ss, UserConfig: user})
	live := running.Deployment.DeepCopy()
	live.Generation, live.Status = 1, appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}
	f := newSyncFixture(t, ss, operandNamespace(), user, running.ConfigMap, live)
	counted := countRollouts(t)
	heldAge := func() float64 {
		t.Helper()
		age, ok := operatorMetric(t, "held_change_age_seconds")
		if !ok {
			t.Fatal("held_change_age_seconds has no series after a sync")
		}
		return age
	}
	liveHash := func() string {
		d, err := f.kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), names.OperandName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return d.Spec.Template.Annotations[names.ConfigHashAnnotation]
	}

	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if got := liveHash(); got != running.ConfigHash {
		t.Fatalf("the Deployment runs %s before any trial, want the running %s", got, running.ConfigHash)
	}
	req := f.op.trialRequest()
	if req == nil || req.Key == nil || req.Candidate == nil || req.Current == nil {
		t.Fatalf("status.trialRequest %+v, want the change to try", req)
	}
	if *req.Candidate.ConfigHash != desired.ConfigHash || *req.Current.ConfigHash != running.ConfigHash || *req.Candidate.Image != ss.Spec.SchedulerImage {
		t.Errorf("trial request %+v, want the desired configuration against the running one", req)
	}
	for _, arg := range append(req.Candidate.Args, req.Current.Args...) {
		if strings.HasPrefix(arg, "--config") || strings.HasPrefix(arg, "--tls-") {
			t.Errorf("trial args keep %q, which the trial sets or cannot mount", arg)
		}
	}
	if status, reason, _, ok := f.op.trialCondition(); !ok || status != operatorv1.ConditionFalse || reason != "TrialRunning" {
		t.Errorf("TrialBlocked %s %s (present %v), want False TrialRunning", status, reason, ok)
	}
	if status, reason, msg, _ := f.op.lastCondition(TrialProgressingCondition); status != operatorv1.ConditionTrue || reason != "TrialRunning" || msg == "" {
		t.Errorf("TrialProgressing %s %s %q while the trial runs, want True TrialRunning with what is tried", status, reason, msg)
	}
	if status, reason, _ := f.op.condition(t); status != operatorv1.ConditionFalse || reason != "HeldForTrial" {
		t.Errorf("%s %s %s, want False HeldForTrial", ConditionType, status, reason)
	}
	if age := heldAge(); age < 0 || age > 60 {
		t.Errorf("held_change_age_seconds %g right after the change was held, want about 0", age)
	}

	// The trial controller's answer, through status alone.
	ss.Status.LastTrial = &secondaryschedulerv1.TrialResult{Key: *req.Key, ConfigHash: desired.ConfigHash, Image: ss.Spec.SchedulerImage,
		Verdict: secondaryschedulerv1.TrialBlocked, Message: "blocked: 6 newly unschedulable (at most 0 allowed)",
		Counts: &secondaryschedulerv1.TrialCounts{Units: 6, NewlyUnschedulable: 6}, Gate: &secondaryschedulerv1.TrialGate{},
		// Its trial started two hours ago: the held change is that old, also
		// to an operator that has just started.
		StartedAt: metav1.NewTime(time.Now().Add(-2 * time.Hour))}
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if age := heldAge(); age < 7200 || age > 7200+60 {
		t.Errorf("held_change_age_seconds %g while blocked by a trial started 2 hours ago, want about 7200", age)
	}
	status, reason, msg, _ := f.op.trialCondition()
	if status != operatorv1.ConditionTrue || reason != "TrialBlocked" || !strings.Contains(msg, "6 newly unschedulable") {
		t.Errorf("TrialBlocked %s %s %q, want True TrialBlocked with the counts", status, reason, msg)
	}
	if status, reason, _, _ := f.op.lastCondition(TrialProgressingCondition); status != operatorv1.ConditionFalse || reason != "AsExpected" {
		t.Errorf("TrialProgressing %s %s once the trial blocked the change, want False AsExpected: nothing is on its way", status, reason)
	}
	if again := f.op.trialRequest(); again == nil || *again.Key != *req.Key || liveHash() != running.ConfigHash {
		t.Errorf("a blocked change asks for %+v and runs %s; want the same request to stand and the running configuration kept", again, liveHash())
	}

	ss.Status.LastTrial.Verdict = secondaryschedulerv1.TrialAllowed
	ss.Status.LastTrial.Counts = &secondaryschedulerv1.TrialCounts{Units: 6, Moved: 6}
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if got := liveHash(); got != desired.ConfigHash {
		t.Errorf("after the trial allowed it the Deployment runs %s, want %s", got, desired.ConfigHash)
	}
	if age := heldAge(); age != 0 {
		t.Errorf("held_change_age_seconds %g once the change rolled out, want 0", age)
	}
	expectRolled(t, "held, then allowed", counted, 1, 0)
	if status, reason, _, _ := f.op.trialCondition(); status != operatorv1.ConditionFalse || reason != "AsExpected" {
		t.Errorf("TrialBlocked %s %s after the rollout, want False AsExpected", status, reason)
	}
	if status, _, _, _ := f.op.lastCondition(TrialProgressingCondition); status != operatorv1.ConditionFalse {
		t.Errorf("TrialProgressing %s after the trial allowed the change, want False", status)
	}
	if r := f.op.trialRequest(); r != nil {
		t.Errorf("no change needs a trial any more, yet status.trialRequest is %+v", r)
	}
}

// Under Direct (the default) there is no trial and no TrialBlocked condition.
func TestSyncDirectHasNoTrial(t *testing.T) {
	f := newSyncFixture(t, newSecondaryScheduler(), operandNamespace())
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	_, _, _, blocked := f.op.trialCondition()
	_, _, _, progressing := f.op.lastCondition(TrialProgressingCondition)
	if blocked || progressing || f.op.trialRequest() != nil {
		t.Errorf("Direct: TrialBlocked present %v, TrialProgressing present %v, trial request %+v", blocked, progressing, f.op.trialRequest())
	}
}
