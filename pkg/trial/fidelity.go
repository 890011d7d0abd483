package trial

// Fidelity: how faithfully a trial's copy of the cluster reproduces what the
// live scheduler did. The recently bound pods of the replay set were placed by
// the live scheduler with the configuration the current arm runs; the current
// arm, on the copy, should place every one of them, and most on the same node.

import (
	"fmt"
	"strings"
)

// Fidelity is the current arm's outcome for the recently bound pods it
// replayed, held against the nodes the live scheduler bound them to.
type Fidelity struct {
	// Bound are the recently bound pods replayed, whose live node is known.
	// With none, fidelity is not measured: the percents are unset.
	Bound int `json:"bound"`
	// Placed are those the current arm placed at all.
	Placed int `json:"placed"`
	// Compared are the placed ones outside tie-break noise (a unit the
	// current and rerun arms placed differently moved by chance, so it says
	// nothing of the copy), SameNode those of them on their live node.
	Compared      int `json:"compared"`
	SameNode      int `json:"sameNode"`
	TieBreakNoise int `json:"tieBreakNoise"`
	// PlacedPercent is Placed of Bound, SameNodePercent SameNode of Compared;
	// unset when there is nothing to divide.
	PlacedPercent   *float64 `json:"placedPercent,omitempty"`
	SameNodePercent *float64 `json:"sameNodePercent,omitempty"`
	// Unplaced are the first maxUnplaced bound pods the current arm did not
	// place, with its reason; Bound-Placed is how many there are.
	Unplaced []UnplacedPod `json:"unplaced,omitempty"`
}

// UnplacedPod is a recently bound pod the copy could not place.
type UnplacedPod struct {
	Pod      string `json:"pod"`
	LiveNode string `json:"liveNode"`
	// Reason is the current arm's: its scheduler's message, or why the pod
	// was left undecided.
	Reason  string `json:"reason,omitempty"`
	Plugins string `json:"plugins,omitempty"`
}

// maxUnplaced is how many unplaced pods a fidelity names.
const maxUnplaced = 10

// Measured says whether any recently bound pod was replayed.
func (f Fidelity) Measured() bool { return f.Bound > 0 }

// MeasureFidelity holds the current arm's placements of pods against live,
// the nodes the live scheduler bound the recently bound ones to ("namespace/
// name" to node). Pods live does not name (the pending ones) are not counted.
func MeasureFidelity(pods []PodResult, live map[string]string) Fidelity {
	var f Fidelity
	noisy := noisyUnits(pods)
	for _, p := range pods {
		node, ok := live[p.Pod]
		if !ok {
			continue
		}
		f.Bound++
		switch {
		case p.Current.Node == "":
			if len(f.Unplaced) < maxUnplaced {
				f.Unplaced = append(f.Unplaced, UnplacedPod{Pod: p.Pod, LiveNode: node, Reason: p.Current.Reason, Plugins: p.Current.Plugins})
			}
		case noisy[unitID(p)]:
			f.Placed++
			f.TieBreakNoise++
		default:
			f.Placed++
			f.Compared++
			if p.Current.Node == node {
				f.SameNode++
			}
		}
	}
	f.PlacedPercent, f.SameNodePercent = percent(f.Placed, f.Bound), percent(f.SameNode, f.Compared)
	return f
}

func percent(n, of int) *float64 {
	if of == 0 {
		return nil
	}
	p := 100 * float64(n) / float64(of)
	return &p
}

// noisyUnits are the units the current and rerun arms both placed whole, on
// different nodes: Compare's tie-break noise, whatever the candidate did.
func noisyUnits(pods []PodResult) map[string]bool {
	states := map[string]*unitState{}
	for _, p := range pods {
		id := unitID(p)
		if states[id] == nil {
			states[id] = &unitState{currentBound: true, candidateBound: true, rerunBound: true}
		}
		states[id].add(p)
	}
	out := map[string]bool{}
	for id, s := range states {
		out[id] = s.noise()
	}
	return out
}

// unitID is the unit of a replayed pod, as Compare keys it.
func unitID(p PodResult) string {
	if p.Gang != "" {
		return "gang/" + p.Gang
	}
	return "pod/" + p.Pod
}

// below says whether fewer than min percent of the bound pods were placed;
// never when fidelity was not measured.
func (f Fidelity) below(min float64) bool {
	return f.Measured() && 100*float64(f.Placed) < min*float64(f.Bound)
}

// summary is fidelity in the words of a verdict.
func (f Fidelity) summary() string {
	if !f.Measured() {
		return "fidelity not measured (no recently bound pod replayed)"
	}
	s := fmt.Sprintf("fidelity: the current arm placed %d of %d recently bound pods (%.1f%%)", f.Placed, f.Bound, *f.PlacedPercent)
	if f.SameNodePercent != nil {
		s += fmt.Sprintf(", %.1f%% of them on the live scheduler's node", *f.SameNodePercent)
	}
	if f.TieBreakNoise > 0 {
		s += fmt.Sprintf(" (%d tie-break noise left out)", f.TieBreakNoise)
	}
	return s
}

// unplacedText names the unplaced pods, with their reasons: the first
// maxUnplaced, and how many more there are.
func (f Fidelity) unplacedText() string {
	var names []string
	for _, u := range f.Unplaced {
		names = append(names, u.String())
	}
	if more := f.Bound - f.Placed - len(f.Unplaced); more > 0 {
		names = append(names, fmt.Sprintf("and %d more", more))
	}
	return strings.Join(names, "; ")
}

func (u UnplacedPod) String() string {
	reason := u.Reason
	if u.Plugins != "" {
		reason = u.Plugins + ": " + reason
	}
	if reason == "" {
		reason = "no reason recorded"
	}
	return fmt.Sprintf("%s (live on %s): %s", u.Pod, u.LiveNode, reason)
}
