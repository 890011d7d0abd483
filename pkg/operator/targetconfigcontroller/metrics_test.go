package targetconfigcontroller

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics/metricstest"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// operatorMetric is the value of the operator's metric name (one without
// labels), and whether it has a series.
func operatorMetric(t *testing.T, name string) (float64, bool) {
	t.Helper()
	metrics.Register()
	m := metricstest.Series(t, "secondary_scheduler_operator_"+name, nil)
	return m.GetCounter().GetValue() + m.GetGauge().GetValue(), m != nil
}

// rolloutCounts are rollouts_total and rollbacks_total.
type rolloutCounts struct{ rollouts, rollbacks float64 }

func countRollouts(t *testing.T) rolloutCounts {
	t.Helper()
	outs, ok1 := operatorMetric(t, "rollouts_total")
	backs, ok2 := operatorMetric(t, "rollbacks_total")
	if !ok1 || !ok2 {
		t.Fatal("rollouts_total or rollbacks_total has no series")
	}
	return rolloutCounts{outs, backs}
}

// expectRolled checks what the syncs since before counted.
func expectRolled(t *testing.T, what string, before rolloutCounts, rollouts, rollbacks float64) {
	t.Helper()
	now := countRollouts(t)
	if d := now.rollouts - before.rollouts; d != rollouts {
		t.Errorf("%s: rollouts_total rose by %g, want %g", what, d, rollouts)
	}
	if d := now.rollbacks - before.rollbacks; d != rollbacks {
		t.Errorf("%s: rollbacks_total rose by %g, want %g", what, d, rollbacks)
	}
}

// TestCountRolloutOnce: a sync whose cache is still behind this controller's
// own write sees the template before it and applies the same one again; that
// is not a second rollout. A template applied over itself is none, and a
// rollback counts as one.
func TestCountRolloutOnce(t *testing.T) {
	deployment := func(templateHash string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Spec.Template.Annotations = map[string]string{names.TemplateHashAnnotation: templateHash}
		return d
	}
	c := &targetConfigController{}
	before := countRollouts(t)
	old, next := deployment("t1"), deployment("t2")
	c.countRollout(old, rollout.Decision{Action: rollout.RollOut, Deployment: next})
	c.countRollout(old, rollout.Decision{Action: rollout.RollOut, Deployment: next}) // the stale cache
	c.countRollout(next, rollout.Decision{Action: rollout.RollOut, Deployment: next})
	expectRolled(t, "t1 to t2, applied three times", before, 1, 0)
	c.countRollout(next, rollout.Decision{Action: rollout.Hold, Deployment: next})
	c.countRollout(next, rollout.Decision{Action: rollout.Gate})
	expectRolled(t, "held and gated", before, 1, 0)
	c.countRollout(next, rollout.Decision{Action: rollout.RollBack, Deployment: old})
	c.countRollout(next, rollout.Decision{Action: rollout.RollBack, Deployment: old})
	expectRolled(t, "rolled back to t1", before, 1, 1)
	c.countRollout(nil, rollout.Decision{Action: rollout.RollOut, Deployment: next})
	expectRolled(t, "t2 again, onto a Deployment made anew", before, 2, 1)
	// Removed, then Managed again: the same template, on a new Deployment.
	c.countRollout(nil, rollout.Decision{Action: rollout.RollOut, Deployment: next})
	expectRolled(t, "t2 once more, on a Deployment made anew after Removed", before, 3, 1)
}
