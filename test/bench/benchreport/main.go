// Command benchreport turns the output of `make bench` (go test -bench output,
// each run preceded by a "# command: ..." line, optionally followed by
// "# title: ...", and "# note: ..." and "# target: NAME UNIT OP VALUE" lines
// anywhere in it) into docs/benchmarks.md and a JSON file with the same
// figures. What follows the handWritten marker in the markdown it replaces
// (sections about figures make bench does not measure, such as the cold CI
// run) is kept at the end of the new one. With -merge, the sections of the
// JSON report given that this output does not measure again are kept, each
// with the run it comes from.
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
	flag.Parse()
	if err := write(*in, *md, *js, *merge, run); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func write(in, md, js, merge string, run Run) error {
	p, err := parse(in)
	if err != nil {
		return err
	}
	if len(p.results) == 0 {
		return fmt.Errorf("no benchmark line in %s", in)
	}
	var old *Report
	if merge != "" {
		if old, err = load(merge); err != nil {
			return fmt.Errorf("-merge %s: %w", merge, err)
		}
	}
	rep := build(p, run, old)
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(js, append(data, '\n'), 0o644); err != nil {
		return err
	}
	previous, err := os.ReadFile(md)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.WriteFile(md, []byte(markdown(rep)+handWritten(string(previous))), 0o644)
}
