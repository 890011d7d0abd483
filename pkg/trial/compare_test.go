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
	c := Compare(replay, current, candidate)
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
	if got := (Counts{Units: 6, Same: 1, Moved: 1, NewlyUnschedulable: 2, NewlySchedulable: 1, StillUnschedulable: 1}); c.Counts != got {
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
	if spread["a"] != (NodeSpread{"a", 4, 3}) || spread["b"] != (NodeSpread{"b", 3, 1}) || spread["c"] != (NodeSpread{"c", 0, 1}) {
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
	c := Compare(replay, current, candidate)
	want := Counts{Units: 6, Same: 1, Undecided: 5}
	if c.Counts != want {
		t.Errorf("counts = %+v, want %+v (a partial gang is undecided as a whole)", c.Counts, want)
	}
	for _, u := range c.Units {
		if u.Name == "ns/missing" && !strings.Contains(u.Reason, "never reported") {
			t.Errorf("the unit missing from an outcome says %q, want why", u.Reason)
		}
	}
	v := Gate{}.Check(c)
	if v.Allowed || !v.Inconclusive || !strings.HasPrefix(v.Message, "inconclusive: 5 units undecided") || len(v.Reasons) == 0 {
		t.Errorf("verdict = %+v, want inconclusive, not allowed, naming the undecided", v)
	}
	// A change beyond the gate is blocked, undecided units or not: what was decided is evidence enough.
	blocking := Compare([]corev1.Pod{replayPod("lost", ""), replayPod("slow", "")}, Outcome{"ns/lost": {Node: "a"}, "ns/slow": undecided},
		Outcome{"ns/lost": unschedulable(affinityMessage), "ns/slow": {Node: "a"}})
	if v := (Gate{}).Check(blocking); v.Allowed || v.Inconclusive || !strings.HasPrefix(v.Message, "blocked: 1 newly unschedulable") {
		t.Errorf("verdict = %+v, want blocked", v)
	}
}

func TestGate(t *testing.T) {
	c := Compare([]corev1.Pod{replayPod("a", ""), replayPod("b", ""), replayPod("c", "")},
		Outcome{"ns/a": {Node: "n1"}, "ns/b": {Node: "n1"}, "ns/c": {Node: "n1"}},
		Outcome{"ns/a": {Node: "n2"}, "ns/b": unschedulable(affinityMessage), "ns/c": {Node: "n1"}})
	for _, tc := range []struct {
		name      string
		gate      Gate
		allowed   bool
		inMessage string
	}{
		{"default blocks one newly unschedulable", Gate{}, false, "1 newly unschedulable (at most 0 allowed)"},
		{"one allowed", Gate{MaxNewlyUnschedulable: 1}, true, "allowed: 3 units: 1 same, 1 moved, 1 newly unschedulable"},
		{"moved over the bound", Gate{MaxNewlyUnschedulable: 1, MaxMovedPercent: ptr.To(49.0)}, false, "50.0% moved (at most 49% allowed)"},
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
		"0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {a: b}.": "NodeResourcesFit, TaintToleration",
		"rejected due to timeout after waiting 10s at plugin Coscheduling":                     "Coscheduling",
		`running PreFilter plugin "VolumeBinding": error`:                                      "VolumeBinding",
		"0/3 nodes are available: podGroup ns/gang failed recently.":                           "Coscheduling",
		"0/1 nodes are available: 1 optimistic rejection in PostFilter.":                       "Coscheduling",
		"something new": "",
	} {
		if got := PluginsOf(msg); got != want {
			t.Errorf("PluginsOf(%q) = %q, want %q", msg, got, want)
		}
	}
}
