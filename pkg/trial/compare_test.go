package trial

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func replayPod(name, gang string) corev1.Pod {
	p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	if gang != "" {
		p.Labels = map[string]string{PodGroupLabel: gang}
	}
	return p
}

const affinityMessage = "0/3 nodes are available: 3 node(s) didn't match scheduler-enforced node affinity. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."

func unschedulable(msg string) Placement { return Placement{Reason: msg, Plugins: PluginsOf(msg)} }

func TestCompare(t *testing.T) {
	replay := []corev1.Pod{replayPod("same", ""), replayPod("moved", ""), replayPod("lost", ""), replayPod("found", ""),
		replayPod("never", ""), replayPod("g-0", "gang"), replayPod("g-1", "gang"), replayPod("g-2", "gang"), replayPod("g-3", "gang")}
	current := Outcome{"ns/same": {Node: "a"}, "ns/moved": {Node: "a"}, "ns/lost": {Node: "b"}, "ns/found": unschedulable("0/3 nodes are available: 3 Insufficient cpu."),
		"ns/never": unschedulable("x"), "ns/g-0": {Node: "a"}, "ns/g-1": {Node: "a"}, "ns/g-2": {Node: "b"}, "ns/g-3": {Node: "b"}}
	candidate := Outcome{"ns/same": {Node: "a"}, "ns/moved": {Node: "b"}, "ns/lost": unschedulable(affinityMessage), "ns/found": {Node: "c"},
		"ns/never": unschedulable("x"), "ns/g-0": {Node: "a"}, "ns/g-1": {Node: "a"},
		"ns/g-2": unschedulable("rejected due to timeout after waiting 10s at plugin Coscheduling"), "ns/g-3": unschedulable("rejected due to timeout after waiting 10s at plugin Coscheduling")}
	c := Compare(replay, current, candidate, current)
	want := map[string]Change{"ns/same": Same, "ns/moved": Moved, "ns/lost": NewlyUnschedulable, "ns/found": NewlySchedulable,
		"ns/never": StillUnschedulable, "ns/gang": NewlyUnschedulable}
	if len(c.Units) != len(want) {
		t.Fatalf("%d units, want %d (the 4 pods of the gang are one): %+v", len(c.Units), len(want), c.Units)
	}
	for _, u := range c.Units {
		if want[u.Name] != u.Change {
			t.Errorf("unit %s: %s, want %s", u.Name, u.Change, want[u.Name])
		}
	}
	if got := (Counts{Units: 6, Same: 1, Moved: 1, MovedByChange: 1, NewlyUnschedulable: 2, NewlySchedulable: 1, StillUnschedulable: 1}); c.Counts != got {
		t.Errorf("counts = %+v, want %+v", c.Counts, got)
	}
	gang := c.Units[len(c.Units)-1]
	if !gang.Gang || gang.Pods != 4 || gang.Plugins != "Coscheduling" {
		t.Errorf("gang unit = %+v, want 4 pods blocked by Coscheduling", gang)
	}
	spread := map[string]NodeSpread{}
	for _, s := range c.Spread {
		spread[s.Node] = s
	}
	if spread["a"] != (NodeSpread{Node: "a", Current: 4, Candidate: 3, Rerun: 4}) || spread["b"] != (NodeSpread{Node: "b", Current: 3, Candidate: 1, Rerun: 3}) ||
		spread["c"] != (NodeSpread{Node: "c", Candidate: 1}) {
		t.Errorf("spread = %+v", c.Spread)
	}
}

// A pod an arm left undecided, or never reported, makes its unit undecided
// whatever the other arm did; undecided units are never counted as a change,
// and within the gate they make the verdict inconclusive, not allowed.
func TestCompareUndecided(t *testing.T) {
	undecided := Placement{Reason: "current: no decision within 2m0s", Undecided: true}
	replay := []corev1.Pod{replayPod("placed", ""), replayPod("slow-current", ""), replayPod("slow-candidate", ""),
		replayPod("slow-both", ""), replayPod("missing", ""), replayPod("g-0", "gang"), replayPod("g-1", "gang")}
	current := Outcome{"ns/placed": {Node: "a"}, "ns/slow-current": undecided, "ns/slow-candidate": {Node: "a"}, "ns/slow-both": undecided,
		"ns/g-0": {Node: "a"}, "ns/g-1": {Node: "a"}} // ns/missing never reported
	candidate := Outcome{"ns/placed": {Node: "a"}, "ns/slow-current": {Node: "a"}, "ns/slow-candidate": undecided, "ns/slow-both": undecided,
		"ns/missing": {Node: "a"}, "ns/g-0": {Node: "a"}, "ns/g-1": undecided}
	c := Compare(replay, current, candidate, current)
	want := Counts{Units: 6, Same: 1, Undecided: 5}
	if c.Counts != want {
		t.Errorf("counts = %+v, want %+v (a partial gang is undecided as a whole)", c.Counts, want)
	}
	for _, u := range c.Units {
		if u.Name == "ns/missing" && u.Reason != "the current arm never reported this pod" {
			t.Errorf("the unit missing from an outcome says %q, want why", u.Reason)
		}
	}
	v := Gate{}.Check(c)
	if v.Allowed || !v.Inconclusive || !strings.HasPrefix(v.Message, "inconclusive: 5 units undecided") || len(v.Reasons) == 0 {
		t.Errorf("verdict = %+v, want inconclusive, not allowed, naming the undecided", v)
	}
	// A change beyond the gate is blocked, undecided units or not: what was decided is evidence enough.
	blocking := Compare([]corev1.Pod{replayPod("lost", ""), replayPod("slow", "")}, Outcome{"ns/lost": {Node: "a"}, "ns/slow": undecided},
		Outcome{"ns/lost": unschedulable(affinityMessage), "ns/slow": {Node: "a"}}, nil)
	if v := (Gate{}).Check(blocking); v.Allowed || v.Inconclusive || !strings.HasPrefix(v.Message, "blocked: 1 newly unschedulable") {
		t.Errorf("verdict = %+v, want blocked", v)
	}
}

// A moved unit that the current configuration's second run also placed
// elsewhere is tie-break noise: counted as moved, not as moved by the change.
// A rerun that did not place the unit, or placed it where the first run did,
// leaves the move to the change (fail closed: it cannot discount it).
func TestCompareTieBreakNoise(t *testing.T) {
	replay := []corev1.Pod{replayPod("by-change", ""), replayPod("noise", ""), replayPod("noisy-same", ""),
		replayPod("rerun-undecided", ""), replayPod("rerun-unschedulable", ""), replayPod("g-0", "gang"), replayPod("g-1", "gang")}
	current := Outcome{"ns/by-change": {Node: "a"}, "ns/noise": {Node: "a"}, "ns/noisy-same": {Node: "a"},
		"ns/rerun-undecided": {Node: "a"}, "ns/rerun-unschedulable": {Node: "a"}, "ns/g-0": {Node: "a"}, "ns/g-1": {Node: "a"}}
	candidate := Outcome{"ns/by-change": {Node: "b"}, "ns/noise": {Node: "b"}, "ns/noisy-same": {Node: "a"},
		"ns/rerun-undecided": {Node: "b"}, "ns/rerun-unschedulable": {Node: "b"}, "ns/g-0": {Node: "b"}, "ns/g-1": {Node: "a"}}
	rerun := Outcome{"ns/by-change": {Node: "a"}, "ns/noise": {Node: "c"}, "ns/noisy-same": {Node: "b"},
		"ns/rerun-undecided": {Reason: "rerun: no decision within 2m0s", Undecided: true}, "ns/rerun-unschedulable": unschedulable(affinityMessage),
		"ns/g-0": {Node: "a"}, "ns/g-1": {Node: "c"}} // one pod of the gang elsewhere: the gang is noise
	c := Compare(replay, current, candidate, rerun)
	want := Counts{Units: 6, Same: 1, Moved: 5, TieBreakNoise: 2, MovedByChange: 3}
	if c.Counts != want {
		t.Errorf("counts = %+v, want %+v", c.Counts, want)
	}
	noise := map[string]bool{}
	for _, u := range c.Units {
		if u.TieBreakNoise {
			noise[u.Name] = true
		}
	}
	if len(noise) != 2 || !noise["ns/noise"] || !noise["ns/gang"] {
		t.Errorf("tie-break noise %v, want ns/noise and ns/gang (a same unit is never noise)", noise)
	}
	if p := c.Counts.MovedByChangePercent(); p != 50 {
		t.Errorf("moved by the change: %.1f%%, want 50%% (3 of 6 placed)", p)
	}
	// Without a second run nothing is noise: every move is the change's.
	if n := Compare(replay, current, candidate, nil).Counts; n.TieBreakNoise != 0 || n.MovedByChange != 5 {
		t.Errorf("without a rerun: %+v, want all 5 moves by the change", n)
	}
}

// A pod missing from the current outcome is undecided, and says which arm
// never reported it.
func TestCompareMissingInCurrent(t *testing.T) {
	c := Compare([]corev1.Pod{replayPod("missing", ""), replayPod("placed", "")},
		Outcome{"ns/placed": {Node: "a"}}, Outcome{"ns/missing": {Node: "a"}, "ns/placed": {Node: "a"}}, Outcome{"ns/placed": {Node: "a"}})
	if c.Counts != (Counts{Units: 2, Same: 1, Undecided: 1}) {
		t.Errorf("counts = %+v, want 1 same and 1 undecided", c.Counts)
	}
	u := c.Units[0]
	if u.Change != Undecided || u.Reason != "the current arm never reported this pod" {
		t.Errorf("unit = %+v, want undecided because the current arm never reported it", u)
	}
	if p := c.Pods[0]; !p.Current.Undecided || p.Candidate.Node != "a" {
		t.Errorf("pod = %+v, want undecided in the current arm and bound in the candidate", p)
	}
	if len(c.Spread) != 1 || c.Spread[0] != (NodeSpread{Node: "a", Current: 1, Candidate: 2, Rerun: 1}) {
		t.Errorf("spread = %+v, want the pods each arm bound", c.Spread)
	}
}

// A gang is placed only when all its pods are: a partial gang in one arm is
// unschedulable there, with that arm's reason, whatever its bound pods did.
func TestComparePartialGang(t *testing.T) {
	const timeout = "rejected due to timeout after waiting 10s at plugin Coscheduling"
	replay := []corev1.Pod{replayPod("p-0", "partial-current"), replayPod("p-1", "partial-current"),
		replayPod("q-0", "partial-candidate"), replayPod("q-1", "partial-candidate"),
		replayPod("r-0", "partial-both"), replayPod("r-1", "partial-both")}
	current := Outcome{"ns/p-0": {Node: "a"}, "ns/p-1": unschedulable(timeout), "ns/q-0": {Node: "a"}, "ns/q-1": {Node: "a"},
		"ns/r-0": {Node: "a"}, "ns/r-1": unschedulable(timeout)}
	candidate := Outcome{"ns/p-0": {Node: "b"}, "ns/p-1": {Node: "b"}, "ns/q-0": {Node: "a"}, "ns/q-1": unschedulable(timeout),
		"ns/r-0": unschedulable(affinityMessage), "ns/r-1": {Node: "b"}}
	c := Compare(replay, current, candidate, current)
	want := map[string]Change{"ns/partial-current": NewlySchedulable, "ns/partial-candidate": NewlyUnschedulable, "ns/partial-both": StillUnschedulable}
	if len(c.Units) != 3 {
		t.Fatalf("units = %+v, want one per gang", c.Units)
	}
	for _, u := range c.Units {
		if u.Change != want[u.Name] || !u.Gang || u.Pods != 2 {
			t.Errorf("unit %s = %+v, want a gang of 2, %s", u.Name, u, want[u.Name])
		}
		if u.Change == NewlyUnschedulable && u.Plugins != "Coscheduling" {
			t.Errorf("unit %s says %q, want the candidate's Coscheduling reason", u.Name, u.Reason)
		}
		if u.Change == NewlySchedulable && u.Reason != timeout {
			t.Errorf("unit %s says %q, want the current arm's reason", u.Name, u.Reason)
		}
		if u.Change == StillUnschedulable && u.Plugins != "NodeAffinity" {
			t.Errorf("unit %s says %q, want the candidate's reason", u.Name, u.Reason)
		}
	}
}

// A pod named like a PodGroup of its namespace, but not in it, is a unit of
// its own: it neither joins the gang nor takes its change.
func TestComparePodNamedLikeItsGang(t *testing.T) {
	replay := []corev1.Pod{replayPod("gang", ""), replayPod("g-0", "gang"), replayPod("g-1", "gang")}
	current := Outcome{"ns/gang": {Node: "a"}, "ns/g-0": {Node: "a"}, "ns/g-1": {Node: "a"}}
	candidate := Outcome{"ns/gang": {Node: "a"}, "ns/g-0": {Node: "a"}, "ns/g-1": unschedulable(affinityMessage)}
	c := Compare(replay, current, candidate, current)
	if len(c.Units) != 2 {
		t.Fatalf("units = %+v, want the pod and the gang apart", c.Units)
	}
	pod, gang := c.Units[0], c.Units[1]
	if pod.Name != "ns/gang" || pod.Gang || pod.Pods != 1 || pod.Change != Same {
		t.Errorf("the pod's unit = %+v, want a pod, same", pod)
	}
	if gang.Name != "ns/gang" || !gang.Gang || gang.Pods != 2 || gang.Change != NewlyUnschedulable {
		t.Errorf("the gang's unit = %+v, want a gang of 2, newly unschedulable", gang)
	}
	if c.Counts != (Counts{Units: 2, Same: 1, NewlyUnschedulable: 1}) {
		t.Errorf("counts = %+v", c.Counts)
	}
}

// An undecided pod makes its unit undecided, in one arm or in both: never
// "unschedulable in both", even when the other arm reported it unschedulable.
func TestCompareUndecidedIsNeverUnschedulable(t *testing.T) {
	slow := func(arm string) Placement {
		return Placement{Reason: arm + ": no decision within 2m0s", Undecided: true}
	}
	replay := []corev1.Pod{replayPod("current", ""), replayPod("candidate", ""), replayPod("both", ""), replayPod("g-0", "gang"), replayPod("g-1", "gang")}
	current := Outcome{"ns/current": slow("current"), "ns/candidate": unschedulable(affinityMessage), "ns/both": slow("current"),
		"ns/g-0": unschedulable(affinityMessage), "ns/g-1": slow("current")}
	candidate := Outcome{"ns/current": unschedulable(affinityMessage), "ns/candidate": slow("candidate"), "ns/both": slow("candidate"),
		"ns/g-0": slow("candidate"), "ns/g-1": unschedulable(affinityMessage)}
	c := Compare(replay, current, candidate, current)
	if c.Counts != (Counts{Units: 4, Undecided: 4}) {
		t.Errorf("counts = %+v, want 4 undecided and none unschedulable in both", c.Counts)
	}
	for _, u := range c.Units {
		if u.Change != Undecided || !strings.Contains(u.Reason, "no decision within") || u.Plugins != "" {
			t.Errorf("unit %s = %+v, want undecided with the arm's reason and no plugin", u.Name, u)
		}
	}
	if v := (Gate{}).Check(c); v.Allowed || !v.Inconclusive {
		t.Errorf("verdict = %+v, want inconclusive", v)
	}
}

func TestGate(t *testing.T) {
	c := Compare([]corev1.Pod{replayPod("a", ""), replayPod("b", ""), replayPod("c", "")},
		Outcome{"ns/a": {Node: "n1"}, "ns/b": {Node: "n1"}, "ns/c": {Node: "n1"}},
		Outcome{"ns/a": {Node: "n2"}, "ns/b": unschedulable(affinityMessage), "ns/c": {Node: "n1"}}, nil)
	for _, tc := range []struct {
		name      string
		gate      Gate
		allowed   bool
		inMessage string
	}{
		{"default blocks one newly unschedulable", Gate{}, false, "1 newly unschedulable (at most 0 allowed)"},
		{"one allowed", Gate{MaxNewlyUnschedulable: 1}, true, "allowed: 3 units: 1 same, 1 moved (1 by the change, 0 tie-break noise), 1 newly unschedulable"},
		{"moved over the bound", Gate{MaxNewlyUnschedulable: 1, MaxMovedPercent: ptr.To(49.0)}, false, "50.0% moved by the change (at most 49% allowed)"},
		{"moved within the bound", Gate{MaxNewlyUnschedulable: 1, MaxMovedPercent: ptr.To(50.0)}, true, "allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.gate.Check(c)
			if v.Allowed != tc.allowed || !strings.Contains(v.Message, tc.inMessage) {
				t.Errorf("verdict = %+v, want allowed=%v with %q", v, tc.allowed, tc.inMessage)
			}
			if len(v.Reasons) != 1 || !strings.HasPrefix(v.Reasons[0], "NodeAffinity: 0/3 nodes") {
				t.Errorf("reasons = %q, want the NodeAffinity message", v.Reasons)
			}
		})
	}
}

func TestPluginsOf(t *testing.T) {
	for msg, want := range map[string]string{
		affinityMessage: "NodeAffinity",
		"0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {a: b}.":                            "NodeResourcesFit, TaintToleration",
		"rejected due to timeout after waiting 10s at plugin Coscheduling":                                                "Coscheduling",
		`running PreFilter plugin "VolumeBinding": error`:                                                                 "VolumeBinding",
		"0/3 nodes are available: podGroup ns/gang failed recently.":                                                      "Coscheduling",
		"0/1 nodes are available: 1 optimistic rejection in PostFilter.":                                                  "Coscheduling",
		"0/3 nodes are available: 1 node(s) didn't match scheduler-enforced node affinity, 2 cannot allocate all claims.": "DynamicResources, NodeAffinity",
		"pod group is unschedulable, minCount (3) cannot be satisfied: 2 scheduled, 0 remaining":                          "GangScheduling",
		`waiting for pods's pod group "train" to appear in scheduling queue`:                                              "GangScheduling",
		"something new": "",
	} {
		if got := PluginsOf(msg); got != want {
			t.Errorf("PluginsOf(%q) = %q, want %q", msg, got, want)
		}
	}
}

// An undecided pod is never folded into "unschedulable in both": left
// undecided by one arm while the other reports it unschedulable, or by both,
// its unit is undecided, and the text and verdict say so.
func TestCompareUndecidedIsNotUnschedulable(t *testing.T) {
	slow := func(arm string) Placement {
		return Placement{Reason: arm + ": no decision within 2m0s", Undecided: true}
	}
	noRoom := unschedulable("0/3 nodes are available: 3 Insufficient cpu.")
	replay := []corev1.Pod{replayPod("current-slow", ""), replayPod("candidate-slow", ""), replayPod("both-slow", ""), replayPod("both-no-room", "")}
	current := Outcome{"ns/current-slow": slow("current"), "ns/candidate-slow": noRoom, "ns/both-slow": slow("current"), "ns/both-no-room": noRoom}
	candidate := Outcome{"ns/current-slow": noRoom, "ns/candidate-slow": slow("candidate"), "ns/both-slow": slow("candidate"), "ns/both-no-room": noRoom}
	c := Compare(replay, current, candidate, current)
	want := map[string]Change{"ns/current-slow": Undecided, "ns/candidate-slow": Undecided, "ns/both-slow": Undecided, "ns/both-no-room": StillUnschedulable}
	for _, u := range c.Units {
		if u.Change != want[u.Name] {
			t.Errorf("unit %s: %s, want %s", u.Name, u.Change, want[u.Name])
		}
	}
	if c.Counts != (Counts{Units: 4, StillUnschedulable: 1, Undecided: 3}) {
		t.Errorf("counts = %+v, want 1 unschedulable in both and 3 undecided", c.Counts)
	}
	v := Gate{}.Check(c)
	if !v.Inconclusive || !strings.Contains(v.Message, "1 unschedulable in both, 3 undecided") ||
		len(v.Reasons) != 2 || v.Reasons[0] != "current: no decision within 2m0s" || v.Reasons[1] != "candidate: no decision within 2m0s" {
		t.Errorf("verdict = %+v, want inconclusive with 3 undecided and the arms' reasons", v)
	}
	var rep ArmReport
	rep.count(current, len(replay))
	if rep.Undecided != 2 || rep.Unschedulable != 2 {
		t.Errorf("the current arm counts %+v, want 2 undecided and 2 unschedulable", rep)
	}
}

// inPodGroup is a replayed pod in a PodGroup of Kubernetes' own.
func inPodGroup(name, group string) corev1.Pod {
	p := replayPod(name, "")
	p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
	return p
}

// The pods naming one PodGroup of Kubernetes' own (scheduling.k8s.io) are one
// unit, a gang, as those of a scheduler-plugins PodGroup are; a pod merely
// named like the group is not one of them.
func TestCompareNativeGang(t *testing.T) {
	replay := []corev1.Pod{inPodGroup("w-0", "train"), inPodGroup("w-1", "train"), inPodGroup("w-2", "train"), replayPod("train", "")}
	current := Outcome{"ns/w-0": {Node: "a"}, "ns/w-1": {Node: "a"}, "ns/w-2": {Node: "b"}, "ns/train": {Node: "a"}}
	candidate := Outcome{"ns/w-0": {Node: "a"}, "ns/w-1": {Node: "a"}, "ns/w-2": unschedulable("0/3 nodes are available: 3 Insufficient cpu."),
		"ns/train": {Node: "a"}}
	c := Compare(replay, current, candidate, current)
	if len(c.Units) != 2 {
		t.Fatalf("%d units, want 2 (the gang's 3 pods, and the pod named like it): %+v", len(c.Units), c.Units)
	}
	gang, pod := c.Units[0], c.Units[1]
	if gang.Name != "ns/train" || !gang.Gang || gang.Pods != 3 || gang.Change != NewlyUnschedulable {
		t.Errorf("gang unit = %+v, want ns/train, a gang of 3 pods, newly unschedulable", gang)
	}
	if pod.Name != "ns/train" || pod.Gang || pod.Pods != 1 || pod.Change != Same {
		t.Errorf("pod unit = %+v, want the pod ns/train alone, same", pod)
	}
	for _, r := range c.Pods {
		if want := map[bool]string{true: "ns/train", false: ""}[r.Pod != "ns/train"]; r.Gang != want {
			t.Errorf("pod %s: gang %q, want %q", r.Pod, r.Gang, want)
		}
	}
	if noisy := noisyUnits(c.Pods); len(noisy) != 2 {
		t.Errorf("fidelity keys %v, want the same 2 units as Compare", noisy)
	}
}
