package metrics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics/metricstest"
)

// bucket is the cumulative count of h's bucket with upper bound le; 0 for
// no histogram (no trial of its verdict yet).
func bucket(t *testing.T, h *dto.Histogram, le float64) uint64 {
	t.Helper()
	if h == nil {
		return 0
	}
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == le {
			return b.GetCumulativeCount()
		}
	}
	t.Fatalf("no bucket le=%g", le)
	return 0
}

// TestTrialsAreCountedByVerdict: every verdict has a series from the start
// (so that increase() sees the first trial of each), a trial counts under its
// verdict only, and its duration lands in its verdict's histogram, in the
// bucket of its seconds.
func TestTrialsAreCountedByVerdict(t *testing.T) {
	Register()
	const total, duration = namespace + "_trials_total", namespace + "_trial_duration_seconds"
	count := map[secondaryschedulerv1.TrialVerdict]float64{}
	for _, v := range verdicts {
		m := metricstest.Series(t, total, map[string]string{"verdict": string(v)})
		if m == nil {
			t.Fatalf("no series %s{verdict=%q} before any trial", total, v)
		}
		count[v] = m.GetCounter().GetValue()
	}
	failedBefore := metricstest.Series(t, duration, map[string]string{"verdict": "Failed"}).GetHistogram()

	ObserveTrial(secondaryschedulerv1.TrialFailed, 40*time.Second)
	ObserveTrial(secondaryschedulerv1.TrialFailed, 301*time.Second) // timed out at the default 300 s
	ObserveTrial(secondaryschedulerv1.TrialAllowed, 25*time.Second)

	want := map[secondaryschedulerv1.TrialVerdict]float64{secondaryschedulerv1.TrialFailed: 2, secondaryschedulerv1.TrialAllowed: 1, secondaryschedulerv1.TrialBlocked: 0}
	for v, n := range want {
		got, err := testutil.GetCounterMetricValue(trials.WithLabelValues(string(v)))
		if err != nil {
			t.Fatal(err)
		}
		if got-count[v] != n {
			t.Errorf("trials_total{verdict=%q} rose by %g, want %g", v, got-count[v], n)
		}
	}
	failed := metricstest.Series(t, duration, map[string]string{"verdict": "Failed"}).GetHistogram()
	if n := failed.GetSampleCount() - failedBefore.GetSampleCount(); n != 2 {
		t.Errorf("trial_duration_seconds{verdict=\"Failed\"} counted %d trials, want 2", n)
	}
	if s := failed.GetSampleSum() - failedBefore.GetSampleSum(); s != 341 {
		t.Errorf("trial_duration_seconds{verdict=\"Failed\"} sum rose by %g, want 341", s)
	}
	for _, c := range []struct {
		le   float64
		want uint64
	}{{30, 0}, {45, 1}, {300, 1}, {450, 2}} {
		if got := bucket(t, failed, c.le) - bucket(t, failedBefore, c.le); got != c.want {
			t.Errorf("Failed bucket le=%g rose by %d, want %d", c.le, got, c.want)
		}
	}
	allowed := metricstest.Series(t, duration, map[string]string{"verdict": "Allowed"}).GetHistogram()
	if bucket(t, allowed, 20) != 0 || bucket(t, allowed, 30) == 0 {
		t.Errorf("a 25 s trial is not in bucket le=30 of Allowed: %v", allowed.GetBucket())
	}
}

// TestRolloutsAndRollbacksAreCountedApart: a rollback counts in
// rollbacks_total only, a rollout in rollouts_total only.
func TestRolloutsAndRollbacksAreCountedApart(t *testing.T) {
	Register()
	value := func(name string) float64 {
		t.Helper()
		m := metricstest.Series(t, namespace+"_"+name, nil)
		if m == nil {
			t.Fatalf("no series %s", name)
		}
		return m.GetCounter().GetValue()
	}
	outs, backs := value("rollouts_total"), value("rollbacks_total")
	CountRollout(false)
	CountRollout(false)
	CountRollout(true)
	if d := value("rollouts_total") - outs; d != 2 {
		t.Errorf("rollouts_total rose by %g, want 2", d)
	}
	if d := value("rollbacks_total") - backs; d != 1 {
		t.Errorf("rollbacks_total rose by %g, want 1", d)
	}
}

// TestHeldChangeAge: the age runs from the first time the change was held,
// as status says it (the start of its first trial) or as this process saw
// it, whichever is earlier; a failed trial tried again does not bring it
// down; another change starts again; none held is 0; forgotten is absent.
func TestHeldChangeAge(t *testing.T) {
	Register()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	at := t0
	defer func(saved func() time.Time) { now = saved; ForgetHeldChange() }(now)
	now = func() time.Time { return at }
	const name = namespace + "_held_change_age_seconds"
	expect := func(what string, value string) {
		t.Helper()
		want := ""
		if value != "" {
			want = "# HELP " + name + " [ALPHA] " + heldChangeAgeHelp + "\n# TYPE " + name + " gauge\n" + name + " " + value + "\n"
		}
		if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), name); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	ForgetHeldChange()
	expect("before any report", "")

	SetHeldChange("", time.Time{})
	expect("none held", "0")

	// Held at t0, no trial yet; the trial starts a minute later.
	SetHeldChange("a", time.Time{})
	expect("just held", "0")
	at = t0.Add(time.Minute)
	SetHeldChange("a", t0.Add(time.Minute))
	at = t0.Add(10 * time.Minute)
	expect("10 minutes on, no sync since", "600")
	// The trial failed and is tried again: a later startedAt.
	SetHeldChange("a", t0.Add(7*time.Minute))
	expect("retried", "600")

	// A restart: this process never saw "a" held, status has its trial's
	// start, an hour before (a Blocked verdict stands).
	ForgetHeldChange()
	at = t0.Add(24 * time.Hour)
	SetHeldChange("a", t0.Add(time.Minute))
	expect("after a restart", fmt.Sprint((24*time.Hour - time.Minute).Seconds()))

	// Another change is held: it starts again.
	SetHeldChange("b", time.Time{})
	expect("another change", "0")
	at = at.Add(30 * time.Second)
	expect("another change, 30 s on", "30")

	SetHeldChange("", time.Time{})
	expect("rolled out", "0")
	ForgetHeldChange()
	expect("Unmanaged", "")
}
