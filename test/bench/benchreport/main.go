// Command benchreport turns the output of `make bench` (go test -bench output,
// each run preceded by a "# command: ..." line, optionally followed by
// "# title: ...", and "# note: ..." and "# target: NAME UNIT OP VALUE" lines
// anywhere in it) into docs/benchmarks.md and a JSON file with the same
// figures. What follows the handWritten marker in the markdown it replaces
// (sections about figures make bench does not measure, such as the cold CI
// run) is kept at the end of the new one. With -merge, the sections of the
// JSON report given that this output does not measure again are kept, each
// with the run it comes from. It exits 1 after writing both when a target of
// a section this run measured is missed or has no figure, and lists them.
//
//	benchreport -in RAW -md docs/benchmarks.md -json docs/benchmarks.json \
//	  -commit SHA -date DATE -machine "2 cores, ..." [-merge docs/benchmarks.json]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	in := flag.String("in", "", "raw output of make bench")
	md := flag.String("md", "", "markdown report to write")
	js := flag.String("json", "", "JSON report to write")
	merge := flag.String("merge", "", "a JSON report whose sections this run does not measure are kept")
	var run Run
	flag.StringVar(&run.Commit, "commit", "", "commit measured")
	flag.StringVar(&run.Date, "date", "", "date of the run")
	flag.StringVar(&run.Machine, "machine", "", "the machine")
	flag.StringVar(&run.Load, "load", "", "load average (1, 5, 15 min) when the run started")
	flag.StringVar(&run.Reference, "reference", "", "a CPU-bound benchmark's figure timed before the run, to compare machines by")
	flag.Parse()
	rep, err := write(*in, *md, *js, *merge, run)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if m := misses(rep); len(m) > 0 {
		fmt.Fprintf(os.Stderr, "benchreport: %d targets of this run missed (the report is written, with them marked):\n", len(m))
		for _, line := range m {
			fmt.Fprintln(os.Stderr, "  "+line)
		}
		os.Exit(1)
	}
}

func write(in, md, js, merge string, run Run) (Report, error) {
	p, err := parse(in)
	if err != nil {
		return Report{}, err
	}
	if len(p.results) == 0 {
		return Report{}, fmt.Errorf("no benchmark line in %s", in)
	}
	var old *Report
	if merge != "" {
		if old, err = load(merge); err != nil {
			return Report{}, fmt.Errorf("-merge %s: %w", merge, err)
		}
	}
	rep := build(p, run, old)
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return Report{}, err
	}
	if err := os.WriteFile(js, append(data, '\n'), 0o644); err != nil {
		return Report{}, err
	}
	previous, err := os.ReadFile(md)
	if err != nil && !os.IsNotExist(err) {
		return Report{}, err
	}
	return rep, os.WriteFile(md, []byte(markdown(rep)+handWritten(string(previous))), 0o644)
}

// misses lists each target of a section the newest run measured that it
// missed or has no figure for, as "NAME UNIT: got VALUE, want OP TARGET".
// Sections kept from an earlier run are not judged again.
func misses(rep Report) []string {
	newest := rep.Runs[len(rep.Runs)-1].ID
	measured := map[string]bool{}
	for _, s := range rep.Sections {
		if s.Run == newest {
			measured[s.Command] = true
		}
	}
	var out []string
	for _, t := range rep.Targets {
		switch {
		case !measured[t.Command] || t.Met != nil && *t.Met:
		case t.Met == nil:
			out = append(out, fmt.Sprintf("%s %s: no figure, want %s %s", t.Name, t.Unit, t.Op, format(t.Value)))
		default:
			out = append(out, fmt.Sprintf("%s %s: got %s, want %s %s", t.Name, t.Unit, format(*t.Got), t.Op, format(t.Value)))
		}
	}
	return out
}
