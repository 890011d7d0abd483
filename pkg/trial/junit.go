package trial

// The report as JUnit XML, for a CI system to show a blocked change as a
// failed test: one testsuite, a testcase per rule of the gate. A rule the
// counts break is a failure listing the units that break it; undecided units
// (an inconclusive verdict) and a trial that could not run are errors, since
// they say nothing of the change.

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnitSuiteName names the testsuite, and is the testcases' classname.
const JUnitSuiteName = "secondary-scheduler-trial"

// JUnitSuite is the <testsuite> element.
type JUnitSuite struct {
	XMLName    xml.Name        `xml:"testsuite"`
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties []JUnitProperty `xml:"properties>property,omitempty"`
	Cases      []JUnitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

// JUnitProperty is a <property> of the suite.
type JUnitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnitCase is a <testcase>: passed, failed or in error.
type JUnitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *JUnitProblem `xml:"failure,omitempty"`
	Error     *JUnitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

// JUnitProblem is a <failure> or an <error>: a one-line message, and the
// units behind it in the body.
type JUnitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes the report as a JUnit testsuite: a testcase for the
// bound on newly unschedulable units, one for the bound on moves when the
// gate has one, and one that every unit was decided. The text report is the
// suite's system-out.
func (r *Report) WriteJUnit(w io.Writer) error {
	n, g := r.Counts, r.Gate
	newly := JUnitCase{Name: fmt.Sprintf("at most %d newly unschedulable units", g.MaxNewlyUnschedulable)}
	judge(&newly, r.unitLines(NewlyUnschedulable), g.newlyExceeded(n), "NewlyUnschedulable")
	cases := []JUnitCase{newly}
	if g.MaxMovedPercent != nil {
		moved := JUnitCase{Name: fmt.Sprintf("at most %g%% of the units placed by both moved", *g.MaxMovedPercent)}
		judge(&moved, r.unitLines(Moved), g.movedExceeded(n), "Moved")
		cases = append(cases, moved)
	}
	decided := JUnitCase{Name: "every unit decided by both arms", SystemOut: fmt.Sprintf("%d units", n.Units)}
	if n.Undecided > 0 {
		decided.SystemOut = ""
		decided.Error = &JUnitProblem{Type: "Undecided", Body: strings.Join(r.unitLines(Undecided), "\n"),
			Message: fmt.Sprintf("%d units undecided, which could hide any change: the trial is inconclusive", n.Undecided)}
	}
	if g.MinFidelityPercent > 0 {
		cases = append(cases, r.fidelityCase())
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		return err
	}
	s := JUnitSuite{Time: seconds(r.Timings.Total.Seconds()), SystemOut: text.String(), Cases: append(cases, decided), Properties: []JUnitProperty{
		{"verdict", r.Verdict.Message}, {"current", r.Current.scheduler()}, {"candidate", r.Candidate.scheduler()},
		{"snapshot", fmt.Sprintf("%d nodes, %d bound pods, %d replayed", r.Snapshot.Nodes, r.Snapshot.Pods, r.Snapshot.Replay)},
	}}
	return writeSuite(w, s)
}

// fidelityCase, with a floor set, is in error when the current arm placed fewer of the recently
// bound pods than the gate's floor: the trial is inconclusive.
func (r *Report) fidelityCase() JUnitCase {
	f, floor := r.Fidelity, r.Gate.MinFidelityPercent
	c := JUnitCase{Name: fmt.Sprintf("the current arm places at least %g%% of the recently bound pods", floor), SystemOut: f.summary()}
	if f.below(floor) {
		var lines []string
		for _, u := range f.Unplaced {
			lines = append(lines, u.String())
		}
		c.SystemOut = ""
		c.Error = &JUnitProblem{Type: "Fidelity", Body: strings.Join(lines, "\n"),
			Message: fmt.Sprintf("%s, under %g%%: the trial is inconclusive", f.summary(), floor)}
	}
	return c
}

// judge makes c a failure when exceeded says how a bound is broken, quoting
// lines; a pass otherwise, with lines in its output.
func judge(c *JUnitCase, lines []string, exceeded, kind string) {
	if exceeded == "" {
		c.SystemOut = fmt.Sprintf("%d units", len(lines))
		if len(lines) > 0 {
			c.SystemOut += ", within the gate:\n" + strings.Join(lines, "\n")
		}
		return
	}
	c.Failure = &JUnitProblem{Message: exceeded, Type: kind, Body: strings.Join(lines, "\n")}
}

// unitLines are the units of change ch, one a line: the unit, its nodes
// when it moved, the reason otherwise.
func (r *Report) unitLines(ch Change) []string {
	nodes := map[string]string{}
	for _, p := range r.Pods {
		nodes[p.Pod] = p.Current.Node + " -> " + p.Candidate.Node
	}
	var out []string
	for _, u := range r.Units {
		if u.Change != ch {
			continue
		}
		line := u.Name
		if u.Gang {
			line += fmt.Sprintf(" (gang of %d pods)", u.Pods)
		}
		switch {
		case ch == Moved && !u.Gang:
			line += ": " + nodes[u.Name]
		case u.Plugins != "":
			line += ": " + u.Plugins + ": " + u.Reason
		case u.Reason != "":
			line += ": " + u.Reason
		}
		out = append(out, line)
	}
	return out
}

// WriteJUnitError writes a testsuite of one testcase in error: the trial
// could not run, for the reason err gives.
func WriteJUnitError(w io.Writer, err error) error {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return writeSuite(w, JUnitSuite{Time: seconds(0), Cases: []JUnitCase{{Name: "the trial runs",
		Error: &JUnitProblem{Type: "TrialFailed", Message: msg, Body: err.Error()}}}})
}

func writeSuite(w io.Writer, s JUnitSuite) error {
	s.Name = JUnitSuiteName
	for i := range s.Cases {
		s.Cases[i].ClassName = JUnitSuiteName
		s.Tests++
		if s.Cases[i].Failure != nil {
			s.Failures++
		}
		if s.Cases[i].Error != nil {
			s.Errors++
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	e := xml.NewEncoder(w)
	e.Indent("", "  ")
	if err := e.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }
