package trialcontroller

import (
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	clocktesting "k8s.io/utils/clock/testing"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics/metricstest"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// byVerdict is the series of the operator's metric name with label verdict.
func byVerdict(t *testing.T, name string, verdict secondaryschedulerv1.TrialVerdict) *dto.Metric {
	t.Helper()
	metrics.Register()
	return metricstest.Series(t, "secondary_scheduler_operator_"+name, map[string]string{"verdict": string(verdict)})
}

// TestATrialIsCountedByItsVerdict: a trial that reaches a verdict counts
// once under it, with the time from its start to the verdict; a trial
// cancelled by a newer request has no verdict and counts nowhere.
func TestATrialIsCountedByItsVerdict(t *testing.T) {
	counts := func() map[secondaryschedulerv1.TrialVerdict]float64 {
		out := map[secondaryschedulerv1.TrialVerdict]float64{}
		for _, v := range []secondaryschedulerv1.TrialVerdict{secondaryschedulerv1.TrialAllowed, secondaryschedulerv1.TrialBlocked, secondaryschedulerv1.TrialFailed} {
			out[v] = byVerdict(t, "trials_total", v).GetCounter().GetValue()
		}
		return out
	}
	duration := func() (uint64, float64) {
		h := byVerdict(t, "trial_duration_seconds", secondaryschedulerv1.TrialBlocked).GetHistogram()
		return h.GetSampleCount(), h.GetSampleSum()
	}
	before := counts()
	n0, sum0 := duration()

	f := newFixture(t, trialSpec())
	clock := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	f.c.clock = clock
	f.sync(t)
	<-f.runs
	clock.SetTime(time.Unix(1042, 0))
	f.release <- &trial.Report{Comparison: trial.Comparison{Counts: trial.Counts{Units: 3, NewlyUnschedulable: 3}},
		Verdict: trial.Verdict{Message: "blocked: 3 newly unschedulable"}}
	waitFor(t, "the verdict", func() bool {
		l := f.op.last()
		return l != nil && *l.Verdict == secondaryschedulerv1.TrialBlocked
	})
	after := counts()
	for v, want := range map[secondaryschedulerv1.TrialVerdict]float64{secondaryschedulerv1.TrialBlocked: 1} {
		if d := after[v] - before[v]; d != want {
			t.Errorf("trials_total{verdict=%q} rose by %g, want %g", v, d, want)
		}
	}
	for _, v := range []secondaryschedulerv1.TrialVerdict{secondaryschedulerv1.TrialAllowed, secondaryschedulerv1.TrialFailed} {
		if after[v] != before[v] {
			t.Errorf("trials_total{verdict=%q} rose by %g for a Blocked trial", v, after[v]-before[v])
		}
	}
	if n, sum := duration(); n-n0 != 1 || sum-sum0 != 42 {
		t.Errorf("trial_duration_seconds{verdict=\"Blocked\"} rose by %d trials, %g s; want 1 trial of 42 s", n-n0, sum-sum0)
	}

	// A newer request cancels the next trial: no verdict, nothing counted.
	waitFor(t, "the first trial to end", func() bool { return f.c.running() == nil })
	ss := trialSpec()
	ss.Status.TrialRequest.Key = "k2"
	f.op.mu.Lock()
	f.op.ss = ss
	f.op.mu.Unlock()
	f.sync(t)
	<-f.runs
	a := f.c.running()
	ss = trialSpec()
	ss.Status.TrialRequest = nil
	f.op.mu.Lock()
	f.op.ss = ss
	f.op.mu.Unlock()
	f.sync(t)
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the trial was not cancelled")
	}
	if final := counts(); final[secondaryschedulerv1.TrialBlocked] != after[secondaryschedulerv1.TrialBlocked] ||
		final[secondaryschedulerv1.TrialAllowed] != after[secondaryschedulerv1.TrialAllowed] || final[secondaryschedulerv1.TrialFailed] != after[secondaryschedulerv1.TrialFailed] {
		t.Errorf("a cancelled trial was counted: %v, then %v", after, final)
	}
}
