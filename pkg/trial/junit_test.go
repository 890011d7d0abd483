package trial

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// junitReport is the report of a trial of replay's pods with these outcomes,
// judged by gate.
func junitReport(gate Gate, current, candidate Outcome) *Report {
	var replay []corev1.Pod
	for _, name := range []string{"same", "moved", "lost", "g-0", "g-1"} {
		gang := ""
		if strings.HasPrefix(name, "g-") {
			gang = "gang"
		}
		replay = append(replay, replayPod(name, gang))
	}
	c := Compare(replay, current, candidate, nil)
	return &Report{Current: ArmReport{Arm: Arm{Name: "current", Binary: "/bin/kube-scheduler"}},
		Candidate: ArmReport{Arm: Arm{Name: "candidate", Binary: "/bin/scheduler-plugins"}}, Comparison: c, Gate: gate, Verdict: gate.Check(c)}
}

// parseJUnit writes r as JUnit and parses it back with encoding/xml.
func parseJUnit(t *testing.T, write func(io.Writer) error) (JUnitSuite, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	var s JUnitSuite
	if err := xml.Unmarshal(buf.Bytes(), &s); err != nil {
		t.Fatalf("the JUnit output does not parse: %v\n%s", err, buf.String())
	}
	if s.Name != JUnitSuiteName || s.Tests != len(s.Cases) {
		t.Errorf("suite %q counts %d tests of %d testcases", s.Name, s.Tests, len(s.Cases))
	}
	return s, buf.String()
}

func problems(s JUnitSuite) (failures, errs []*JUnitProblem) {
	for _, c := range s.Cases {
		if c.Failure != nil {
			failures = append(failures, c.Failure)
		}
		if c.Error != nil {
			errs = append(errs, c.Error)
		}
	}
	return failures, errs
}

// The reason of the lost pod holds what XML must escape.
const hostileReason = `0/3 nodes are available: 3 node(s) didn't match <affinity> & "friends"` + "\x00]]>"

func TestJUnit(t *testing.T) {
	placedBoth := Outcome{"ns/same": {Node: "a"}, "ns/moved": {Node: "a"}, "ns/lost": {Node: "b"}, "ns/g-0": {Node: "a"}, "ns/g-1": {Node: "b"}}
	moves := Outcome{"ns/same": {Node: "a"}, "ns/moved": {Node: "b"}, "ns/lost": {Node: "b"}, "ns/g-0": {Node: "a"}, "ns/g-1": {Node: "b"}}
	loses := Outcome{"ns/same": {Node: "a"}, "ns/moved": {Node: "b"}, "ns/lost": unschedulable(hostileReason),
		"ns/g-0": unschedulable("rejected due to timeout after waiting 10s at plugin Coscheduling"), "ns/g-1": unschedulable("x")}
	undecided := Outcome{"ns/same": {Node: "a"}, "ns/moved": {Node: "a"}, "ns/lost": {Node: "b"}, "ns/g-0": {Node: "a"}}
	for _, tc := range []struct {
		name                string
		gate                Gate
		candidate           Outcome
		cases               int
		failures            []string
		errors              string
		bodies              []string
		allowed, conclusive bool
	}{
		{name: "allowed", candidate: moves, cases: 2, allowed: true, conclusive: true},
		{name: "allowed within a bound on moves", gate: Gate{MaxMovedPercent: ptr.To(50.0)}, candidate: moves, cases: 3, allowed: true, conclusive: true},
		{name: "blocked", candidate: loses, cases: 2, conclusive: true, failures: []string{"2 newly unschedulable (at most 0 allowed)"},
			bodies: []string{"ns/lost: " + strings.TrimSuffix(hostileReason, "\x00]]>") + "\uFFFD]]>", "ns/gang (gang of 2 pods): Coscheduling: "}},
		{name: "blocked twice", gate: Gate{MaxNewlyUnschedulable: 1, MaxMovedPercent: ptr.To(0.0)}, candidate: loses, cases: 3, conclusive: true,
			failures: []string{"2 newly unschedulable (at most 1 allowed)", "50.0% moved by the change (at most 0% allowed)"}, bodies: []string{"ns/moved: a -> b"}},
		{name: "inconclusive", candidate: undecided, cases: 2, errors: "1 units undecided, which could hide any change"},
	} {
		r := junitReport(tc.gate, placedBoth, tc.candidate)
		if r.Verdict.Allowed != tc.allowed || r.Verdict.Inconclusive == tc.conclusive {
			t.Fatalf("%s: the case is wrong: verdict %+v", tc.name, r.Verdict)
		}
		s, raw := parseJUnit(t, r.WriteJUnit)
		failures, errs := problems(s)
		if len(s.Cases) != tc.cases || s.Failures != len(tc.failures) || len(failures) != len(tc.failures) || s.Errors != len(errs) {
			t.Errorf("%s: %d testcases (%d failures, %d errors counted), want %d with %d failures:\n%s",
				tc.name, len(s.Cases), s.Failures, s.Errors, tc.cases, len(tc.failures), raw)
			continue
		}
		for i, f := range failures {
			if f.Message != tc.failures[i] {
				t.Errorf("%s: failure %d says %q, want %q", tc.name, i, f.Message, tc.failures[i])
			}
		}
		all := ""
		for _, f := range failures {
			all += f.Body + "\n"
		}
		for _, b := range tc.bodies {
			if !strings.Contains(all, b) {
				t.Errorf("%s: the failures do not list %q:\n%s", tc.name, b, all)
			}
		}
		if (tc.errors == "") != (len(errs) == 0) || (len(errs) > 0 && !strings.Contains(errs[0].Message, tc.errors)) {
			t.Errorf("%s: errors %+v, want %q", tc.name, errs, tc.errors)
		}
		if !strings.Contains(s.SystemOut, "Verdict: "+r.Verdict.Message) {
			t.Errorf("%s: the suite's output is not the text report:\n%s", tc.name, s.SystemOut)
		}
	}
}

// A trial that could not run is one testcase in error, with the whole message.
func TestJUnitError(t *testing.T) {
	err := errors.New("current sandbox: kube-apiserver exited\n<log tail> & more")
	s, _ := parseJUnit(t, func(w io.Writer) error { return WriteJUnitError(w, err) })
	_, errs := problems(s)
	if len(s.Cases) != 1 || s.Errors != 1 || len(errs) != 1 || errs[0].Message != "current sandbox: kube-apiserver exited" || errs[0].Body != err.Error() {
		t.Errorf("the suite of a trial that could not run: %+v", s)
	}
}
