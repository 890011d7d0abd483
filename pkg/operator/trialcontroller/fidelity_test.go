package trialcontroller

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics/metricstest"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// fidelityGauge is the value of trial_fidelity_percent{measure}, nil when it has no series.
func fidelityGauge(t *testing.T, measure string) *float64 {
	t.Helper()
	metrics.Register()
	m := metricstest.Series(t, "secondary_scheduler_operator_trial_fidelity_percent", map[string]string{"measure": measure})
	if m == nil {
		return nil
	}
	return ptr.To(m.GetGauge().GetValue())
}

// The trial is run with spec.rollout.trial.minFidelityPercent as its floor
// (95 by default); its fidelity reaches status.lastTrial.fidelity, rounded
// down, with the floor, and the metric, which drops a measure the next
// trial did not measure.
func TestFidelityReachesStatusAndMetric(t *testing.T) {
	metrics.Register() // an unregistered vector records nothing
	ss := trialSpec()
	ss.Spec.Rollout.Trial = &secondaryschedulerv1.TrialPolicy{MinFidelityPercent: ptr.To[int32](90)}
	f := newFixture(t, ss)
	f.sync(t)
	if r := <-f.runs; r.Gate.MinFidelityPercent != 90 {
		t.Fatalf("the trial ran with a floor of %g, want spec.rollout.trial.minFidelityPercent 90", r.Gate.MinFidelityPercent)
	}
	c := trial.Comparison{Counts: trial.Counts{Units: 3, Same: 2, StillUnschedulable: 1},
		Fidelity: trial.Fidelity{Bound: 3, Placed: 2, Compared: 2, SameNode: 1, PlacedPercent: ptr.To(200.0 / 3), SameNodePercent: ptr.To(50.0)}}
	v := trial.Gate{MinFidelityPercent: 90}.Check(c)
	f.release <- &trial.Report{Comparison: c, Verdict: v}
	waitFor(t, "the verdict", func() bool {
		l := f.op.last()
		return l != nil && *l.Verdict == secondaryschedulerv1.TrialInconclusive
	})
	got := f.op.last().Fidelity
	if got == nil || *got.BoundReplayed != 3 || *got.Placed != 2 || *got.PlacedPercent != 66 || *got.SameNode != 1 || *got.SameNodeCompared != 2 ||
		got.SameNodePercent == nil || *got.SameNodePercent != 50 || *got.MinFidelityPercent != 90 {
		t.Fatalf("status.lastTrial.fidelity = %+v, want 2 of 3 placed (66%%), 1 of 2 on the live node (50%%), floor 90", got)
	}
	if p, s := fidelityGauge(t, "placed"), fidelityGauge(t, "same_node"); p == nil || *p < 66.6 || *p > 66.7 || s == nil || *s != 50 {
		t.Errorf("trial_fidelity_percent: placed %v, same_node %v; want 66.7 and 50", p, s)
	}
	metrics.ObserveTrialFidelity(ptr.To(100.0), nil)
	if p, s := fidelityGauge(t, "placed"), fidelityGauge(t, "same_node"); p == nil || *p != 100 || s != nil {
		t.Errorf("after a trial that measured no same-node share: placed %v, same_node %v; want 100 and no series", p, s)
	}
}

// A verdict judged again by another gate keeps its fidelity and floor: a
// change blocked on an unfaithful copy, the gate widened, is inconclusive,
// not allowed; a faithful one is allowed.
func TestRejudgeKeepsTheFidelityFloor(t *testing.T) {
	counts := secondaryschedulerv1.TrialCounts{Units: 4, Same: 1, NewlyUnschedulable: 1, StillUnschedulable: 2}
	widened := secondaryschedulerv1.TrialGate{MaxNewlyUnschedulable: 1}
	for _, tc := range []struct {
		name     string
		fidelity *secondaryschedulerv1.TrialFidelity
		want     secondaryschedulerv1.TrialVerdict
		message  string
	}{
		{"below the floor", &secondaryschedulerv1.TrialFidelity{BoundReplayed: 4, Placed: 2, PlacedPercent: 50, MinFidelityPercent: 95},
			secondaryschedulerv1.TrialInconclusive, "the current arm placed only 2 of the 4 recently bound pods replayed (50.0%, at least 95% required)"},
		{"at the floor", &secondaryschedulerv1.TrialFidelity{BoundReplayed: 4, Placed: 4, PlacedPercent: 100, MinFidelityPercent: 95},
			secondaryschedulerv1.TrialAllowed, "fidelity: the current arm placed 4 of 4"},
		{"not measured", nil, secondaryschedulerv1.TrialAllowed, "fidelity not measured"},
	} {
		last := &secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialBlocked, Gate: &secondaryschedulerv1.TrialGate{},
			Message: "blocked\nns/pod: why", Counts: counts.DeepCopy(), Fidelity: tc.fidelity}
		got := rejudge(last, widened)
		if got.Verdict != tc.want || !strings.Contains(got.Message, tc.message) || !strings.HasSuffix(got.Message, "\nns/pod: why") {
			t.Errorf("%s: %s (%s), want %s saying %q and keeping the reasons", tc.name, got.Verdict, got.Message, tc.want, tc.message)
		}
	}
}
