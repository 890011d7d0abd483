package trial

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The text report gives both figures of moves, marks the noise among the
// units it lists, and shows the rerun's arm, each arm's fence and the spread.
func TestWriteTextTieBreakNoise(t *testing.T) {
	c := Compare([]corev1.Pod{replayPod("by-change", ""), replayPod("noise", ""), replayPod("same", "")},
		Outcome{"ns/by-change": {Node: "a"}, "ns/noise": {Node: "a"}, "ns/same": {Node: "a"}},
		Outcome{"ns/by-change": {Node: "b"}, "ns/noise": {Node: "b"}, "ns/same": {Node: "a"}},
		Outcome{"ns/by-change": {Node: "a"}, "ns/noise": {Node: "b"}, "ns/same": {Node: "a"}})
	r := &Report{Current: ArmReport{Arm: Arm{Name: "current"}, Bound: 3}, Candidate: ArmReport{Arm: Arm{Name: "candidate"}, Bound: 3},
		Rerun: ArmReport{Arm: Arm{Name: RerunArm}, Bound: 3, Fence: "the scheduler knew all 2 nodes after 5ms"}, Comparison: c, Verdict: Gate{}.Check(c)}
	var out bytes.Buffer
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"  current: 3 bound, 0 unschedulable, 0 undecided\n",
		"  rerun: 3 bound, 0 unschedulable, 0 undecided; the scheduler knew all 2 nodes after 5ms\n",
		"3 units: 1 same, 2 moved (1 by the change, 1 tie-break noise)",
		"Moved: 2 of 3 placed units (66.7%), 1 by the change (33.3%), 1 tie-break noise",
		"ns/noise      1     moved (tie-break)",
		"ns/by-change  1     moved ",
		"NODE  CURRENT  CANDIDATE  RERUN",
		"a     3        1          2",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}

// The text report gives both fidelity figures and names the pods the copy
// could not place, or says fidelity was not measured; the JSON carries the
// percents, and leaves them out when not measured.
func TestWriteTextFidelity(t *testing.T) {
	replay := []corev1.Pod{replayPod("b1", ""), replayPod("b2", ""), replayPod("p", "")}
	current := Outcome{"ns/b1": {Node: "a"}, "ns/b2": unschedulable(`persistentvolumeclaim "data" not found`), "ns/p": {Node: "b"}}
	for _, tc := range []struct {
		live      map[string]string
		text      []string
		json, not string
	}{
		{map[string]string{"ns/b1": "a", "ns/b2": "a"}, []string{
			"Fidelity: placed 50.0% (1 of 2 recently bound pods), same node 100.0% (1 of 1; 0 tie-break noise left out)\n",
			"  not placed: ns/b2 (live on a): persistentvolumeclaim \"data\" not found\n",
			"inconclusive: the current arm placed only 1 of the 2 recently bound pods replayed (50.0%, at least 95% required)",
		}, `"placedPercent": 50,`, ""},
		{nil, []string{"Fidelity: not measured (no recently bound pod replayed)\n", "allowed: "}, `"bound": 0,`, "placedPercent"},
	} {
		c := Compare(replay, current, current, current)
		c.Fidelity = MeasureFidelity(c.Pods, tc.live)
		r := &Report{Comparison: c, Verdict: Gate{MinFidelityPercent: 95}.Check(c)}
		var text, js bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.text {
			if !strings.Contains(text.String(), want) {
				t.Errorf("the report lacks %q:\n%s", want, text.String())
			}
		}
		if !strings.Contains(js.String(), tc.json) || (tc.not != "" && strings.Contains(js.String(), tc.not)) {
			t.Errorf("the JSON report should hold %q and not %q:\n%s", tc.json, tc.not, js.String())
		}
	}
}
