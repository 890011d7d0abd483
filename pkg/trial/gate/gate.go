// Package gate is the rule a trial's counts are judged by. The trial's own
// verdict (trial.Gate) and the rollout, which judges the counts a trial
// recorded again when spec.rollout.trial changes, both use it; it imports
// nothing of the trial, so the rollout can.
package gate

import (
	"fmt"

	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

// MovedPercent is the share of the units both arms placed that the
// candidate placed elsewhere; 0 when neither placed any.
func MovedPercent(same, moved int) float64 {
	if same+moved == 0 {
		return 0
	}
	return 100 * float64(moved) / float64(same+moved)
}

// Exceeded names each bound the counts go past, in the words a condition
// shows ("2 newly unschedulable (at most 0 allowed)"); none when the change
// may roll out. A nil maxMovedPercent bounds no moves.
func Exceeded(newlyUnschedulable, maxNewlyUnschedulable, same, moved int, maxMovedPercent *float64) []string {
	var out []string
	if newlyUnschedulable > maxNewlyUnschedulable {
		out = append(out, fmt.Sprintf("%d newly unschedulable (at most %d allowed)", newlyUnschedulable, maxNewlyUnschedulable))
	}
	if p := MovedPercent(same, moved); maxMovedPercent != nil && p > *maxMovedPercent {
		out = append(out, fmt.Sprintf("%.1f%% moved (at most %g%% allowed)", p, *maxMovedPercent))
	}
	return out
}

// Bounds are the bounds of spec.rollout.trial (nil: none set): at most
// maxNewlyUnschedulable newly unschedulable units (0 when unset), and at
// most maxMovedPercent moved (nil when unset: no bound).
func Bounds(policy *secondaryschedulerv1.TrialPolicy) (maxNewlyUnschedulable int, maxMovedPercent *float64) {
	if policy == nil {
		return 0, nil
	}
	if p := policy.MaxMovedPercent; p != nil {
		moved := float64(*p)
		maxMovedPercent = &moved
	}
	return int(ptr.Deref(policy.MaxNewlyUnschedulable, 0)), maxMovedPercent
}
