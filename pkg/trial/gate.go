package trial

import (
	"fmt"
	"strings"
)

// Gate is what a trial may change before it blocks a rollout.
type Gate struct {
	// MaxNewlyUnschedulable is how many units the candidate may leave
	// unschedulable that the current scheduler places (a gang is one).
	MaxNewlyUnschedulable int `json:"maxNewlyUnschedulable"`
	// MaxMovedPercent, when set, bounds the share of units placed by both
	// arms that the candidate puts elsewhere, tie-break noise left out
	// (Counts.MovedByChange).
	MaxMovedPercent *float64 `json:"maxMovedPercent,omitempty"`
}

// Verdict is a gate's decision.
type Verdict struct {
	Allowed bool `json:"allowed"`
	// Inconclusive: within the gate, but an arm left units undecided, so
	// the counts prove nothing. Allowed is false then.
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Message      string `json:"message"`
	// Reasons are the first distinct reasons of newly unschedulable units,
	// or of the undecided ones when the verdict is inconclusive.
	Reasons []string `json:"reasons,omitempty"`
}

// maxReasons is how many reasons a verdict quotes.
const maxReasons = 3

// Exceeded names each bound the counts go past, in the words a condition
// shows ("2 newly unschedulable (at most 0 allowed)"); none when the change
// may roll out. This is the one place counts are judged.
func (g Gate) Exceeded(n Counts) []string {
	var out []string
	for _, rule := range []string{g.newlyExceeded(n), g.movedExceeded(n)} {
		if rule != "" {
			out = append(out, rule)
		}
	}
	return out
}

// newlyExceeded and movedExceeded are Exceeded's rules, one each: "" when
// the counts are within it.
func (g Gate) newlyExceeded(n Counts) string {
	if n.NewlyUnschedulable > g.MaxNewlyUnschedulable {
		return fmt.Sprintf("%d newly unschedulable (at most %d allowed)", n.NewlyUnschedulable, g.MaxNewlyUnschedulable)
	}
	return ""
}

func (g Gate) movedExceeded(n Counts) string {
	if p := n.MovedByChangePercent(); g.MaxMovedPercent != nil && p > *g.MaxMovedPercent {
		return fmt.Sprintf("%.1f%% moved by the change (at most %g%% allowed)", p, *g.MaxMovedPercent)
	}
	return ""
}

// Check judges a comparison: its counts by Exceeded, with the first reasons
// of the units it leaves unschedulable. Within the gate, a comparison with
// undecided units is inconclusive: they could hide any change, so it fails
// closed.
func (g Gate) Check(c Comparison) Verdict {
	n := c.Counts
	blocked := g.Exceeded(n)
	v := Verdict{Allowed: len(blocked) == 0 && n.Undecided == 0, Inconclusive: len(blocked) == 0 && n.Undecided > 0}
	quoted := NewlyUnschedulable
	if v.Inconclusive {
		quoted = Undecided
	}
	seen := map[string]bool{}
	for _, u := range c.Units {
		if u.Change != quoted || len(v.Reasons) == maxReasons {
			continue
		}
		r := u.Reason
		if u.Plugins != "" {
			r = u.Plugins + ": " + r
		}
		if !seen[r] {
			seen[r] = true
			v.Reasons = append(v.Reasons, r)
		}
	}
	summary := fmt.Sprintf("%d units: %d same, %d moved (%d by the change, %d tie-break noise), %d newly unschedulable, %d newly schedulable, %d unschedulable in both, %d undecided",
		n.Units, n.Same, n.Moved, n.MovedByChange, n.TieBreakNoise, n.NewlyUnschedulable, n.NewlySchedulable, n.StillUnschedulable, n.Undecided)
	switch {
	case v.Allowed:
		v.Message = "allowed: " + summary
	case v.Inconclusive:
		v.Message = fmt.Sprintf("inconclusive: %d units undecided, which could hide any change; %s", n.Undecided, summary)
	default:
		v.Message = "blocked: " + strings.Join(blocked, ", ") + "; " + summary
	}
	return v
}
