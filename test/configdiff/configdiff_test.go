// Package configdiff keeps the operator's scheduler-config validation honest:
// every case of testdata/corpus/ goes through the operator's render step, and
// the document it renders goes to the real scheduler binaries (built by
// hack/controlplane/build.sh): upstream kube-scheduler and scheduler-plugins'
// build. For a case the operator accepts that is the ConfigMap it renders; for
// one it refuses, the merged document its problems were found in
// (render.InputError.Config: the operator's own merge, operator-owned fields
// set). The operator and each binary must agree on whether the configuration
// can run and, when both refuse it, on what for: the field path or plugin the
// refusal names (subject_test.go, docpath_test.go). The corpus lists the
// intended differences, each with its reason; one between releases names the
// upstream change.
//
// Each binary is asked exactly what a starting scheduler does: it loads the
// file, validates it and builds every profile's framework, then, because of
// --write-config-to, writes the completed configuration and exits 0 instead of
// serving. Any refusal exits non-zero with the reason. The only request either
// binary sends on the way is the event broadcaster's discovery of
// events.k8s.io/v1, which the test's API server answers 404 (runner_test.go
// fails the test on any other), so a case costs well under a second.
//
// Run with -v (make test-configdiff does) for a line per case and binary: the
// verdict, the subject both sides name, or the intended difference and its
// reason; and the summary line.
package configdiff

import (
	"fmt"
	"testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// minCases keeps the corpus from shrinking unnoticed.
const minCases = 80

func TestOperatorAgreesWithBinaries(t *testing.T) {
	bins := binaries(t)
	cases := readCorpus(t)
	r := newRunner(t)
	s := &tally{agree: map[string]int{}, intended: map[string]int{}, disagree: map[string]int{}}
	for _, c := range cases {
		op, config := renderCase(t, c)
		switch {
		case op.accepted:
			s.operatorAccepts++
		case config == nil:
			// A layer that is no document: the binaries get nothing to judge.
			s.noDocument = append(s.noDocument, c.Name)
			t.Logf("refused before any merge, not run: %q: %s", c.Name, op.reason)
			continue
		}
		for _, bin := range bins {
			got, _ := r.run(bin, config)
			if o, msg := judge(c, bin.name, op, got); !s.add(bin.name, o) {
				t.Errorf("%s\nconfig.yaml:\n%s", msg, config)
			} else {
				t.Logf("%s", msg)
			}
		}
	}
	t.Logf("configdiff: %d cases, every one rendered by the operator (accepted %d, refused %d, of which %d before any merge); "+
		"agreements: %s %d, %s %d; intended differences: %s %d, %s %d; disagreements: %d",
		len(cases), s.operatorAccepts, len(cases)-s.operatorAccepts, len(s.noDocument),
		kubeScheduler, s.agree[kubeScheduler], schedulerPlugins, s.agree[schedulerPlugins],
		kubeScheduler, s.intended[kubeScheduler], schedulerPlugins, s.intended[schedulerPlugins],
		s.disagree[kubeScheduler]+s.disagree[schedulerPlugins])
	if len(cases) < minCases || s.operatorAccepts < 20 || len(cases)-s.operatorAccepts < 40 {
		t.Errorf("the corpus must hold at least %d cases, 20 the operator accepts and 40 it refuses", minCases)
	}
	if len(s.noDocument) > 0 {
		t.Errorf("cases no binary judged, refused before the layers could be merged: %q; "+
			"a layer that is no YAML object belongs in render's unit tests", s.noDocument)
	}
}

// outcome is how one binary's verdict on a case compares with the operator's.
type outcome int

const (
	agreed outcome = iota
	intended
	disagreed
)

// judge compares the operator's verdict on case c with binary bin's. Both
// accepting agree; both refusing agree when a subject of the operator's is
// one the binary names. Anything else is a disagreement, but for the intended
// difference the case lists. msg says what was found: the subject both name,
// or what differs.
func judge(c corpusCase, bin string, op, got verdict) (outcome, string) {
	kind, why := c.difference(bin)
	common, named := commonSubject(op.subjects, got.subjects)
	agrees := op.accepted == got.accepted && (op.accepted || named)
	switch {
	case kind == "" && agrees && op.accepted:
		return agreed, fmt.Sprintf("agreed, %s: %q: both accept", bin, c.Name)
	case kind == "" && agrees:
		return agreed, fmt.Sprintf("agreed, %s: %q: both refuse, naming %s (operator: %s; %s: %s)", bin, c.Name,
			common, subjectsString(op.subjects), bin, subjectsString(got.subjects))
	case kind == "" && !op.accepted && !got.accepted:
		return disagreed, fmt.Sprintf("case %q: the operator and %s both refuse it, for different subjects: operator %s, %s %s\n  operator %s\n  %s %s",
			c.Name, bin, subjectsString(op.subjects), bin, subjectsString(got.subjects), op, bin, got)
	case kind == "":
		return disagreed, fmt.Sprintf("disagreement on case %q:\n  operator %s\n  %s %s", c.Name, op, bin, got)
	case kind == "releaseDifference" && !agrees,
		kind == "operatorStricter" && !op.accepted && got.accepted,
		kind == "binaryOnly" && !got.accepted && (op.accepted || !agrees && onlyPlugins(got.subjects)):
		return intended, fmt.Sprintf("intended difference, %s, %s: %q: %s (operator %s; %s %s)", kind, bin, c.Name, why, op, bin, got)
	}
	return disagreed, fmt.Sprintf("case %q is marked %s for %s (%s), but the operator %s and %s %s", c.Name, kind, bin, why, op, bin, got)
}

// onlyPlugins: the subjects are plugins only, none a field. A binary that
// refuses for a plugin its build lacks stops there, before what else the
// operator finds wrong.
func onlyPlugins(subjects []problem.Subject) bool {
	for _, s := range subjects {
		if s.Plugin == "" || s.Field != "" {
			return false
		}
	}
	return len(subjects) > 0
}

// tally counts, per binary, the cases it agrees on with the operator, the
// intended differences that hold and the disagreements; and the refused
// cases no binary could judge.
type tally struct {
	operatorAccepts           int
	agree, intended, disagree map[string]int
	noDocument                []string
}

// add counts o for bin and tells whether it passes.
func (s *tally) add(bin string, o outcome) bool {
	switch o {
	case agreed:
		s.agree[bin]++
	case intended:
		s.intended[bin]++
	default:
		s.disagree[bin]++
	}
	return o != disagreed
}

// difference is the intended difference the case lists for bin, if any.
func (c corpusCase) difference(bin string) (kind, why string) {
	if c.OnlyFor != "" && c.OnlyFor != bin {
		return "", ""
	}
	if c.OperatorStricter != "" {
		return "operatorStricter", c.OperatorStricter
	}
	if c.BinaryOnly != "" {
		return "binaryOnly", c.BinaryOnly
	}
	if c.ReleaseDifference != "" {
		return "releaseDifference", c.ReleaseDifference
	}
	return "", ""
}
