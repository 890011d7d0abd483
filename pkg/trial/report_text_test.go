package trial

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The text report gives both figures of moves, marks the noise among the
// units it lists, and shows the rerun's arm and spread.
func TestWriteTextTieBreakNoise(t *testing.T) {
	c := Compare([]corev1.Pod{replayPod("by-change", ""), replayPod("noise", ""), replayPod("same", "")},
		Outcome{"ns/by-change": {Node: "a"}, "ns/noise": {Node: "a"}, "ns/same": {Node: "a"}},
		Outcome{"ns/by-change": {Node: "b"}, "ns/noise": {Node: "b"}, "ns/same": {Node: "a"}},
		Outcome{"ns/by-change": {Node: "a"}, "ns/noise": {Node: "b"}, "ns/same": {Node: "a"}})
	r := &Report{Current: ArmReport{Arm: Arm{Name: "current"}, Bound: 3}, Candidate: ArmReport{Arm: Arm{Name: "candidate"}, Bound: 3},
		Rerun: ArmReport{Arm: Arm{Name: RerunArm}, Bound: 3}, Comparison: c, Verdict: Gate{}.Check(c)}
	var out bytes.Buffer
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"  rerun: 3 bound, 0 unschedulable, 0 undecided\n",
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
