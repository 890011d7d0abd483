package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Report is the JSON file's format.
type Report struct {
	// Commit, Date and Machine are those of the newest run.
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Machine string `json:"machine"`
	// Runs are the runs the figures come from: a report merged from a run
	// of some sections keeps the other sections of the run before.
	Runs     []Run     `json:"runs,omitempty"`
	Sections []Section `json:"sections,omitempty"`
	Results  []Result  `json:"results"`
	// Notes are what a benchmark observed beside its figures ("# note: " lines).
	Notes   []Note   `json:"notes,omitempty"`
	Targets []Target `json:"targets,omitempty"`
}

// Run is one `make bench` run (or a run of some of its sections).
type Run struct {
	ID      int    `json:"id"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Machine string `json:"machine"`
	// Load is the load average (1, 5, 15 min) when the run started: other
	// work on the machine shows in every time.
	Load string `json:"load,omitempty"`
	// Reference is a CPU-bound benchmark timed before the run, to compare
	// machines (and a busy host under a VM, which Load misses) by.
	Reference string `json:"reference,omitempty"`
}

// Section is what one command printed, from one run.
type Section struct {
	Command string `json:"command"`
	// Title names the section ("# title: " line after the command), and
	// identifies it across runs when set.
	Title string `json:"title,omitempty"`
	Run   int    `json:"run"`
}

// key identifies a section across runs.
func (s Section) key() string {
	if s.Title != "" {
		return s.Title
	}
	return s.Command
}

// Result is one benchmark (or sub-benchmark) line.
type Result struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	// Iterations is go test's b.N: a "/op" figure is the mean of that many.
	Iterations int      `json:"iterations,omitempty"`
	Metrics    []Metric `json:"metrics"`
}

// Metric is one value of a result, in its unit.
type Metric struct {
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
}

// Note is one "# note: " line.
type Note struct {
	Command string `json:"command"`
	Text    string `json:"text"`
}

// Target is one "# target: NAME UNIT OP VALUE" line: what figure UNIT of
// benchmark NAME must be. Met is unset when the run has no such figure.
type Target struct {
	Command string   `json:"command"`
	Name    string   `json:"name"`
	Unit    string   `json:"unit"`
	Op      string   `json:"op"`
	Value   float64  `json:"value"`
	Got     *float64 `json:"got,omitempty"`
	Met     *bool    `json:"met,omitempty"`
}

// procsSuffix is the -GOMAXPROCS suffix go test appends to a benchmark's name.
var procsSuffix = regexp.MustCompile(`-\d+$`)

// parsed is what one raw file holds.
type parsed struct {
	sections []Section
	results  []Result
	notes    []Note
	targets  []Target
}

func parse(path string) (*parsed, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &parsed{}
	command := ""
	section := func() *Section {
		if len(p.sections) == 0 || p.sections[len(p.sections)-1].Command != command {
			p.sections = append(p.sections, Section{Command: command})
		}
		return &p.sections[len(p.sections)-1]
	}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if c, ok := strings.CutPrefix(line, "# command: "); ok {
			command = c
			section()
			continue
		}
		if t, ok := strings.CutPrefix(line, "# title: "); ok {
			section().Title = strings.TrimSpace(t)
			continue
		}
		if n, ok := strings.CutPrefix(line, "# note: "); ok {
			section()
			p.notes = append(p.notes, Note{Command: command, Text: n})
			continue
		}
		if t, ok := strings.CutPrefix(line, "# target: "); ok {
			target, err := parseTarget(t)
			if err != nil {
				return nil, err
			}
			section()
			target.Command = command
			p.targets = append(p.targets, target)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
			continue
		}
		iterations, err := strconv.Atoi(fields[1])
		if err != nil {
			continue
		}
		section()
		r := Result{Name: procsSuffix.ReplaceAllString(fields[0], ""), Command: command, Iterations: iterations}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a number", line, fields[i])
			}
			r.Metrics = append(r.Metrics, Metric{Unit: fields[i+1], Value: v})
		}
		p.results = append(p.results, r)
	}
	return p, scanner.Err()
}

var ops = map[string]func(got, want float64) bool{
	"<":  func(g, w float64) bool { return g < w },
	"<=": func(g, w float64) bool { return g <= w },
	"=":  func(g, w float64) bool { return g == w },
	">=": func(g, w float64) bool { return g >= w },
	">":  func(g, w float64) bool { return g > w },
}

func parseTarget(s string) (Target, error) {
	f := strings.Fields(s)
	if len(f) != 4 || ops[f[2]] == nil {
		return Target{}, fmt.Errorf("# target: %s: want NAME UNIT OP VALUE, OP one of < <= = >= >", s)
	}
	v, err := strconv.ParseFloat(f[3], 64)
	if err != nil {
		return Target{}, fmt.Errorf("# target: %s: %q is not a number", s, f[3])
	}
	return Target{Name: f[0], Unit: f[1], Op: f[2], Value: v}, nil
}

// judge sets Got and Met of each target from the results of its section.
func judge(targets []Target, results []Result) {
	for i := range targets {
		t := &targets[i]
		t.Got, t.Met = nil, nil
		for _, r := range results {
			if r.Name != t.Name || r.Command != t.Command {
				continue
			}
			for _, m := range r.Metrics {
				if m.Unit == t.Unit {
					got, met := m.Value, ops[t.Op](m.Value, t.Value)
					t.Got, t.Met = &got, &met
				}
			}
		}
	}
}
