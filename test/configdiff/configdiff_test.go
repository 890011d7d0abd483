// Package configdiff keeps the operator's scheduler-config validation honest:
// every case of testdata/corpus/ goes through the operator's render step,
// and the ConfigMap it renders goes to the real scheduler binaries (built by
// hack/controlplane/build.sh): upstream kube-scheduler and scheduler-plugins'
// build. The operator and each binary must agree on whether the configuration
// can run, but for the intended differences the corpus lists with a reason.
//
// Each binary is asked exactly what a starting scheduler does: it loads the
// file, validates it and builds every profile's framework, then, because of
// --write-config-to, writes the completed configuration and exits 0 instead of
// serving. Any refusal exits non-zero with the reason. The only request either
// binary sends on the way is the event broadcaster's discovery of
// events.k8s.io/v1, which the test's API server answers 404 (runner_test.go
// fails the test on any other), so a case costs well under a second.
//
// Run with -v for the summary line and the intended differences.
package configdiff

import (
	"testing"
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
		if op.accepted {
			s.operatorAccepts++
		} else {
			config = layeredByHand(t, c)
		}
		for _, bin := range bins {
			got, _ := r.run(bin, config)
			s.add(t, c, bin.name, op, got, config)
		}
	}
	t.Logf("configdiff: %d cases, every one rendered by the operator (accepted %d, refused %d); agreements: %s %d, %s %d; intended differences: %s %d, %s %d; disagreements: %d",
		len(cases), s.operatorAccepts, len(cases)-s.operatorAccepts,
		kubeScheduler, s.agree[kubeScheduler], schedulerPlugins, s.agree[schedulerPlugins],
		kubeScheduler, s.intended[kubeScheduler], schedulerPlugins, s.intended[schedulerPlugins],
		s.disagree[kubeScheduler]+s.disagree[schedulerPlugins])
	if len(cases) < minCases || s.operatorAccepts < 20 || len(cases)-s.operatorAccepts < 40 {
		t.Errorf("the corpus must hold at least %d cases, 20 the operator accepts and 40 it refuses", minCases)
	}
}

// tally counts, per binary, the cases it agrees on with the operator, the
// intended differences that hold and the disagreements.
type tally struct {
	operatorAccepts           int
	agree, intended, disagree map[string]int
}

func (s *tally) add(t *testing.T, c corpusCase, bin string, op, got verdict, config []byte) {
	t.Helper()
	kind, why := c.difference(bin)
	switch {
	case kind == "" && op.accepted == got.accepted:
		s.agree[bin]++
	case kind == "operatorStricter" && !op.accepted && got.accepted,
		kind == "binaryOnly" && op.accepted && !got.accepted:
		s.intended[bin]++
		t.Logf("intended difference, %s, %s: %q: %s", kind, bin, c.Name, why)
	case kind == "":
		s.disagree[bin]++
		t.Errorf("disagreement on case %q:\n  operator %s\n  %s %s\nconfig.yaml:\n%s", c.Name, op, bin, got, config)
	default:
		s.disagree[bin]++
		t.Errorf("case %q is marked %s for %s (%s), but the operator %s and %s %s", c.Name, kind, bin, why, op, bin, got)
	}
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
	return "", ""
}
