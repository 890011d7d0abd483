package trial

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// fidelityOf compares replay with the candidate placing as the current arm
// does, and measures the fidelity against live.
func fidelityOf(replay []corev1.Pod, current, rerun Outcome, live map[string]string) Comparison {
	c := Compare(replay, current, current, rerun)
	c.Fidelity = MeasureFidelity(c.Pods, live)
	return c
}

func TestMeasureFidelity(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	replay := []corev1.Pod{replayPod("b1", ""), replayPod("b2", ""), replayPod("b3", ""), replayPod("b4", ""), replayPod("pending", "")}
	live := map[string]string{"ns/b1": "a", "ns/b2": "a", "ns/b3": "b", "ns/b4": "b"}
	placed := Outcome{"ns/b1": {Node: "a"}, "ns/b2": {Node: "a"}, "ns/b3": {Node: "b"}, "ns/b4": {Node: "c"}, "ns/pending": unschedulable("x")}
	for _, tc := range []struct {
		name           string
		current, rerun Outcome
		live           map[string]string
		want           Fidelity
	}{
		{"all placed; the pending pod is not counted", placed, nil, live,
			Fidelity{Bound: 4, Placed: 4, Compared: 4, SameNode: 3, PlacedPercent: pct(100), SameNodePercent: pct(75)}},
		{"one unplaced is named with its reason",
			Outcome{"ns/b1": {Node: "a"}, "ns/b2": unschedulable(affinityMessage), "ns/b3": {Node: "b"}, "ns/b4": {Node: "b"}, "ns/pending": {Node: "a"}},
			nil, live,
			Fidelity{Bound: 4, Placed: 3, Compared: 3, SameNode: 3, PlacedPercent: pct(75), SameNodePercent: pct(100),
				Unplaced: []UnplacedPod{{Pod: "ns/b2", LiveNode: "a", Reason: affinityMessage, Plugins: "NodeAffinity"}}}},
		{"a pod the current and rerun arms placed apart is tie-break noise, out of the same-node share", placed,
			Outcome{"ns/b1": {Node: "a"}, "ns/b2": {Node: "a"}, "ns/b3": {Node: "b"}, "ns/b4": {Node: "b"}}, live,
			Fidelity{Bound: 4, Placed: 4, Compared: 3, SameNode: 3, TieBreakNoise: 1, PlacedPercent: pct(100), SameNodePercent: pct(100)}},
		{"no bound pod replayed: not measured", placed, nil, nil, Fidelity{}},
		{"an undecided bound pod is not placed",
			Outcome{"ns/b1": {Node: "a"}, "ns/b2": {Node: "a"}, "ns/b3": {Node: "b"}}, nil, live,
			Fidelity{Bound: 4, Placed: 3, Compared: 3, SameNode: 3, PlacedPercent: pct(75), SameNodePercent: pct(100),
				Unplaced: []UnplacedPod{{Pod: "ns/b4", LiveNode: "b", Reason: "the current arm never reported this pod"}}}},
	} {
		if tc.rerun == nil {
			tc.rerun = tc.current // the two runs agree
		}
		// DeepEqual compares the percents' values, not their pointers.
		if got := fidelityOf(replay, tc.current, tc.rerun, tc.live).Fidelity; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v (%v, %v)\nwant %+v (%v, %v)", tc.name, got, deref(got.PlacedPercent), deref(got.SameNodePercent),
				tc.want, deref(tc.want.PlacedPercent), deref(tc.want.SameNodePercent))
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// Every unplaced pod counts; the first maxUnplaced are named, the rest counted.
func TestFidelityNamesTheFirstUnplaced(t *testing.T) {
	var replay []corev1.Pod
	current, live := Outcome{}, map[string]string{}
	for i := range 25 {
		name := fmt.Sprintf("b%02d", i)
		replay = append(replay, replayPod(name, ""))
		live["ns/"+name] = "a"
		current["ns/"+name] = unschedulable(`persistentvolumeclaim "data" not found`)
	}
	f := fidelityOf(replay, current, current, live).Fidelity
	if f.Bound != 25 || f.Placed != 0 || len(f.Unplaced) != maxUnplaced || f.SameNodePercent != nil {
		t.Fatalf("fidelity %+v: want 25 bound, none placed, %d named, no same-node share", f, maxUnplaced)
	}
	if text := f.unplacedText(); !strings.HasPrefix(text, `ns/b00 (live on a): persistentvolumeclaim "data" not found; ns/b01`) ||
		!strings.HasSuffix(text, "ns/b09 (live on a): persistentvolumeclaim \"data\" not found; and 15 more") {
		t.Errorf("unplaced: %s", text)
	}
}

// The floor: below it a trial within the gate is inconclusive, naming the
// pods the copy could not place; at it, allowed; unmeasured, never below;
// beyond the gate, blocked whatever the fidelity.
func TestGateMinFidelity(t *testing.T) {
	replay := []corev1.Pod{replayPod("b1", ""), replayPod("b2", ""), replayPod("b3", ""), replayPod("b4", "")}
	live := map[string]string{"ns/b1": "a", "ns/b2": "a", "ns/b3": "a", "ns/b4": "a"}
	noClaim := unschedulable(`0/3 nodes are available: persistentvolumeclaim "data" not found.`)
	oneLost := Outcome{"ns/b1": {Node: "a"}, "ns/b2": {Node: "a"}, "ns/b3": {Node: "a"}, "ns/b4": noClaim}
	for _, tc := range []struct {
		name              string
		floor             float64
		live              map[string]string
		candidate         Outcome
		allowed, inconcl  bool
		message, firstWhy string
	}{
		{"below the floor", 95, live, oneLost, false, true,
			`inconclusive: the current arm placed only 3 of the 4 recently bound pods replayed (75.0%, at least 95% required): ` +
				`the copy of the cluster does not hold what the live scheduler placed them with; not placed: ns/b4 (live on a): 0/3 nodes are available: persistentvolumeclaim "data" not found.; 4 units:`,
			`ns/b4 (live on a): 0/3 nodes are available: persistentvolumeclaim "data" not found.`},
		{"at the floor", 75, live, oneLost, true, false, "allowed: 4 units: 3 same", ""},
		{"no floor", 0, live, oneLost, true, false, "allowed: ", ""},
		{"not measured is not below", 95, nil, oneLost, true, false, "fidelity not measured (no recently bound pod replayed)", ""},
		{"blocked beyond the gate whatever the fidelity", 95, live,
			Outcome{"ns/b1": noClaim, "ns/b2": {Node: "a"}, "ns/b3": {Node: "a"}, "ns/b4": noClaim}, false, false,
			"blocked: 1 newly unschedulable (at most 0 allowed);", ""},
	} {
		c := Compare(replay, oneLost, tc.candidate, oneLost)
		c.Fidelity = MeasureFidelity(c.Pods, tc.live)
		v := Gate{MinFidelityPercent: tc.floor}.Check(c)
		if v.Allowed != tc.allowed || v.Inconclusive != tc.inconcl || !strings.Contains(v.Message, tc.message) {
			t.Errorf("%s: %+v, want allowed %v, inconclusive %v, a message with %q", tc.name, v, tc.allowed, tc.inconcl, tc.message)
		}
		if tc.firstWhy != "" && (len(v.Reasons) == 0 || v.Reasons[0] != tc.firstWhy) {
			t.Errorf("%s: reasons %q, want first %q", tc.name, v.Reasons, tc.firstWhy)
		}
	}
}

// Undecided units and an unfaithful copy are both said.
func TestGateMinFidelityAndUndecided(t *testing.T) {
	replay := []corev1.Pod{replayPod("b1", ""), replayPod("pending", "")}
	c := Compare(replay, Outcome{"ns/b1": unschedulable("no room")}, Outcome{"ns/b1": unschedulable("no room")}, nil)
	c.Fidelity = MeasureFidelity(c.Pods, map[string]string{"ns/b1": "a"})
	v := Gate{MinFidelityPercent: 95}.Check(c)
	if !v.Inconclusive || !strings.Contains(v.Message, "placed only 0 of the 1 recently bound pods") || !strings.Contains(v.Message, "1 units undecided") {
		t.Errorf("verdict %+v: want inconclusive for both reasons", v)
	}
	if len(v.Reasons) != 2 || v.Reasons[0] != "ns/b1 (live on a): no room" || !strings.Contains(v.Reasons[1], "never reported") {
		t.Errorf("reasons %q: want the unplaced pod, then the undecided unit's reason", v.Reasons)
	}
}
