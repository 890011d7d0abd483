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
	// MinFidelityPercent is the least share of the recently bound pods
	// replayed that the current arm must place (Fidelity.PlacedPercent):
	// below it the copy of the cluster is not faithful enough for the counts
	// to mean anything, and the verdict is inconclusive. 0 sets no floor; an
	// unmeasured fidelity (no bound pod replayed) is never below it.
	MinFidelityPercent float64 `json:"minFidelityPercent"`
}

// Verdict is a gate's decision.
type Verdict struct {
	Allowed bool `json:"allowed"`
	// Inconclusive: within the gate, but an arm left units undecided, or
	// the current arm placed fewer of the recently bound pods than
	// MinFidelityPercent, so the counts prove nothing. Allowed is false then.
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Message      string `json:"message"`
	// Reasons are the first distinct reasons of newly unschedulable units,
	// or, when the verdict is inconclusive, the bound pods the current arm
	// could not place (below the floor) and the undecided units' reasons.
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
// undecided units, or whose current arm placed fewer of the recently bound
// pods than MinFidelityPercent, is inconclusive: they could hide any change,
// and so could a copy of the cluster that does not place what the live
// scheduler placed. It fails closed.
func (g Gate) Check(c Comparison) Verdict {
	n, f := c.Counts, c.Fidelity
	blocked := g.Exceeded(n)
	unfaithful := f.below(g.MinFidelityPercent)
	v := Verdict{Allowed: len(blocked) == 0 && n.Undecided == 0 && !unfaithful}
	v.Inconclusive = len(blocked) == 0 && !v.Allowed
	if v.Inconclusive && unfaithful {
		for _, u := range f.Unplaced {
			if len(v.Reasons) < maxReasons {
				v.Reasons = append(v.Reasons, u.String())
			}
		}
	}
	quoted := NewlyUnschedulable
	if v.Inconclusive {
		quoted = Undecided
	}
	v.Reasons = appendReasons(v.Reasons, c.Units, quoted)
	summary := fmt.Sprintf("%d units: %d same, %d moved (%d by the change, %d tie-break noise), %d newly unschedulable, %d newly schedulable, %d unschedulable in both, %d undecided; %s",
		n.Units, n.Same, n.Moved, n.MovedByChange, n.TieBreakNoise, n.NewlyUnschedulable, n.NewlySchedulable, n.StillUnschedulable, n.Undecided, f.summary())
	switch {
	case v.Allowed:
		v.Message = "allowed: " + summary
	case v.Inconclusive:
		v.Message = "inconclusive: " + strings.Join(g.inconclusiveBecause(c), "; ") + "; " + summary
	default:
		v.Message = "blocked: " + strings.Join(blocked, ", ") + "; " + summary
	}
	return v
}

// inconclusiveBecause says why a comparison within the gate proves nothing.
func (g Gate) inconclusiveBecause(c Comparison) []string {
	var out []string
	if f := c.Fidelity; f.below(g.MinFidelityPercent) {
		why := fmt.Sprintf("the current arm placed only %d of the %d recently bound pods replayed (%.1f%%, at least %g%% required): "+
			"the copy of the cluster does not hold what the live scheduler placed them with", f.Placed, f.Bound, *f.PlacedPercent, g.MinFidelityPercent)
		if names := f.unplacedText(); names != "" {
			why += "; not placed: " + names
		}
		out = append(out, why)
	}
	if c.Counts.Undecided > 0 {
		out = append(out, fmt.Sprintf("%d units undecided, which could hide any change", c.Counts.Undecided))
	}
	return out
}

// appendReasons adds to reasons the first distinct reasons of the units of
// change quoted, up to maxReasons in all.
func appendReasons(reasons []string, units []Unit, quoted Change) []string {
	seen := map[string]bool{}
	for _, u := range units {
		if u.Change != quoted || len(reasons) >= maxReasons {
			continue
		}
		r := u.Reason
		if u.Plugins != "" {
			r = u.Plugins + ": " + r
		}
		if !seen[r] {
			seen[r] = true
			reasons = append(reasons, r)
		}
	}
	return reasons
}
