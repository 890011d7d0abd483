package trial

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"
)

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// WriteText writes the report for a reader: the verdict, the units that
// changed (same ones are counted, not listed), the spread and the timings.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Trial: current %s, candidate %s\n", r.Current.scheduler(), r.Candidate.scheduler())
	if r.Current.ImageID != "" || r.Candidate.ImageID != "" {
		fmt.Fprintf(tw, "Images run: current %s, candidate %s\n", orDash(r.Current.ImageID), orDash(r.Candidate.ImageID))
	}
	fmt.Fprintf(tw, "Snapshot: %d nodes, %d bound pods, %d replayed\n", r.Snapshot.Nodes, r.Snapshot.Pods, r.Snapshot.Replay)
	r.Snapshot.Sample.writeText(tw)
	for _, a := range []ArmReport{r.Current, r.Candidate, r.Rerun} {
		notes := ""
		for _, n := range []string{a.Fence, a.Settled} {
			if n != "" {
				notes += "; " + n
			}
		}
		fmt.Fprintf(tw, "  %s: %d bound, %d unschedulable, %d undecided%s\n", a.Name, a.Bound, a.Unschedulable, a.Undecided, notes)
	}
	r.Fidelity.writeText(tw)
	fmt.Fprintf(tw, "Verdict: %s\n", r.Verdict.Message)
	for _, reason := range r.Verdict.Reasons {
		fmt.Fprintf(tw, "  %s\n", reason)
	}
	n := r.Counts
	fmt.Fprintf(tw, "Moved: %d of %d placed units (%.1f%%), %d by the change (%.1f%%), %d tie-break noise (the current configuration's second run, %s, placed them differently too)\n",
		n.Moved, n.Same+n.Moved, n.MovedPercent(), n.MovedByChange, n.MovedByChangePercent(), n.TieBreakNoise, RerunArm)
	nodes := map[string][2]string{}
	for _, p := range r.Pods {
		nodes[p.Pod] = [2]string{orDash(p.Current.Node), orDash(p.Candidate.Node)}
	}
	changed := false
	for _, u := range r.Units {
		if u.Change == Same {
			continue
		}
		if !changed {
			fmt.Fprintln(tw, "\nUNIT\tPODS\tCHANGE\tCURRENT\tCANDIDATE\tREASON")
			changed = true
		}
		where := nodes[u.Name]
		if u.Gang {
			where = [2]string{"(gang)", "(gang)"}
		}
		reason := u.Reason
		if u.Plugins != "" {
			reason = u.Plugins + ": " + reason
		}
		change := string(u.Change)
		if u.TieBreakNoise {
			change += " (tie-break)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", u.Name, u.Pods, change, where[0], where[1], reason)
	}
	if !changed {
		fmt.Fprintln(tw, "\nNo unit changed.")
	}
	fmt.Fprintln(tw, "\nNODE\tCURRENT\tCANDIDATE\tRERUN\t(replayed pods bound)")
	for _, s := range r.Spread {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", s.Node, s.Current, s.Candidate, s.Rerun)
	}
	if r.SpreadLeftOut > 0 {
		fmt.Fprintf(tw, "(%d more nodes, each with a difference no larger: -o json places every pod)\n", r.SpreadLeftOut)
	}
	t := r.Timings
	fmt.Fprintf(tw, "\nTimings: snapshot %s, sandbox start %s, seed %s, schedule %s, compare %s, total %s\n",
		round(t.Snapshot), round(t.Start), round(t.Seed), round(t.Schedule), round(t.Compare), round(t.Total))
	return tw.Flush()
}

// writeText says how faithfully the copy placed the recently bound pods,
// and names those it could not place.
func (f Fidelity) writeText(w io.Writer) {
	if !f.Measured() {
		fmt.Fprintln(w, "Fidelity: not measured (no recently bound pod replayed)")
		return
	}
	sameNode := "-"
	if f.SameNodePercent != nil {
		sameNode = fmt.Sprintf("%.1f%%", *f.SameNodePercent)
	}
	fmt.Fprintf(w, "Fidelity: placed %.1f%% (%d of %d recently bound pods), same node %s (%d of %d; %d tie-break noise left out)\n",
		*f.PlacedPercent, f.Placed, f.Bound, sameNode, f.SameNode, f.Compared, f.TieBreakNoise)
	for _, u := range f.Unplaced {
		fmt.Fprintf(w, "  not placed: %s\n", u)
	}
	if more := f.Bound - f.Placed - len(f.Unplaced); more > 0 {
		fmt.Fprintf(w, "  not placed: %d more\n", more)
	}
}

// writeText says what was sampled, and names the namespaces not replayed in
// full (at most ten).
func (s Sample) writeText(w io.Writer) {
	fmt.Fprintf(w, "  sampled: %d of %d pending pods, %d recently bound", s.PendingReplayed, s.Pending, s.BoundReplayed)
	if s.LeftOut > 0 {
		fmt.Fprintf(w, "; %d pods left out (their resource claims or PodGroup could not be copied)", s.LeftOut)
	}
	fmt.Fprintln(w)
	listed := 0
	for _, n := range s.Namespaces {
		if n.PendingReplayed == n.Pending && n.LeftOut == 0 || listed == 10 {
			continue
		}
		listed++
		fmt.Fprintf(w, "    %s: %d of %d pending, %d bound", n.Namespace, n.PendingReplayed, n.Pending, n.BoundReplayed)
		if n.LeftOut > 0 {
			fmt.Fprintf(w, ", %d left out", n.LeftOut)
		}
		fmt.Fprintln(w)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func round(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(100 * time.Millisecond)
}

// scheduler names what ran the arm: its binary on this machine, else its image.
func (a Arm) scheduler() string {
	if a.Binary != "" {
		return filepath.Base(a.Binary)
	}
	return a.Image
}
