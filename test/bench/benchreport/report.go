package main

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func markdown(rep Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\nWritten by `make bench` (hack/bench.sh), which reproduces every figure here. "+
		"Do not edit: run it again. Only the sections after the marker at the end are written by hand; make bench keeps them.\n\n")
	runs := map[int]Run{}
	for _, r := range rep.Runs {
		runs[r.ID] = r
	}
	if len(rep.Runs) > 1 {
		b.WriteString("The figures come from more than one run (`hack/bench.sh SECTION...` measures some sections again " +
			"and keeps the others); each section names its run.\n\n")
		for _, r := range rep.Runs {
			fmt.Fprintf(&b, "- run %d: commit %s, date %s, machine: %s\n", r.ID, r.Commit, r.Date, strings.Join(append([]string{r.Machine}, runConditions(r)...), ", "))
		}
	} else {
		fmt.Fprintf(&b, "- commit: %s\n- date: %s\n- machine: %s\n", rep.Commit, rep.Date, rep.Machine)
		for _, r := range rep.Runs {
			for _, c := range runConditions(r) {
				fmt.Fprintf(&b, "- %s\n", c)
			}
		}
	}
	for _, s := range rep.Sections {
		writeSection(&b, rep, s, runs[s.Run], len(rep.Runs) > 1)
	}
	writeSeries(&b, rep.Results)
	return b.String()
}

func writeSection(b *strings.Builder, rep Report, s Section, run Run, manyRuns bool) {
	title := "`" + firstWords(s.Command) + "`"
	if s.Title != "" {
		title = s.Title
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	if manyRuns {
		fmt.Fprintf(b, "Run %d (commit %.12s, %s).\n\n", run.ID, run.Commit, run.Date)
	}
	fmt.Fprintf(b, "```sh\n%s\n```\n\n", s.Command)
	var targets []Target
	for _, t := range rep.Targets {
		if t.Command == s.Command {
			targets = append(targets, t)
		}
	}
	if len(targets) > 0 {
		met, missing := 0, 0
		for _, t := range targets {
			switch {
			case t.Met == nil:
				missing++
			case *t.Met:
				met++
			}
		}
		fmt.Fprintf(b, "Targets: %d of %d met", met, len(targets))
		if missing > 0 {
			fmt.Fprintf(b, ", %d without a figure in this run", missing)
		}
		b.WriteString(".\n\n| benchmark | figure | value | target |\n|---|---|---|---|\n")
	} else {
		b.WriteString("| benchmark | figure | value |\n|---|---|---|\n")
	}
	for _, r := range rep.Results {
		if r.Command != s.Command {
			continue
		}
		for _, row := range rows(r.Metrics) {
			if len(targets) == 0 {
				fmt.Fprintf(b, "| %s | %s | %s |\n", r.Name, row.figure, row.value)
				continue
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", r.Name, row.figure, row.value, targetCell(targets, r.Name, row.units))
		}
	}
	for _, t := range targets {
		if t.Met == nil {
			fmt.Fprintf(b, "| %s | %s | no figure | %s %s |\n", t.Name, t.Unit, t.Op, format(t.Value))
		}
	}
	var notes []string
	for _, n := range rep.Notes {
		if n.Command == s.Command {
			notes = append(notes, n.Text)
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n\n")
		for _, n := range notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
	}
}

// runConditions is what a run recorded of the machine's state; none for a
// run from before it was recorded.
func runConditions(r Run) []string {
	var out []string
	if r.Load != "" {
		out = append(out, "load average (1, 5, 15 min) at the start: "+r.Load)
	}
	if r.Reference != "" {
		out = append(out, "machine reference, timed before the run: "+r.Reference)
	}
	return out
}

// targetCell says, for a row of benchmark name made of units, each target on
// them and whether it is met.
func targetCell(targets []Target, name string, units []string) string {
	var out []string
	for _, t := range targets {
		if t.Name != name || t.Met == nil {
			continue
		}
		for _, u := range units {
			if u != t.Unit {
				continue
			}
			what := ""
			if q := statistic.FindStringSubmatch(u); q != nil && len(units) > 1 {
				what = q[2] + " "
			}
			verdict := "met"
			if !*t.Met {
				verdict = "**NOT met**"
			}
			out = append(out, fmt.Sprintf("%s%s %s: %s", what, t.Op, format(t.Value), verdict))
		}
	}
	return strings.Join(out, "; ")
}

func writeSeries(b *strings.Builder, results []Result) {
	cs := series(results)
	if len(cs) == 0 {
		return
	}
	keys := make([]string, 0, len(cs))
	for k := range cs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("\n## Figures by size\n\nEach row is one figure measured at three or more sizes N. " +
		"A shape is told only where each size's figure sums up repeated samples (the median of a spread, a p50, " +
		"or go test's mean over many iterations): a figure measured once a size is listed, not called a curve. " +
		"A total is linear when its value per unit of N stays within x1.5; a per-unit figure, a level or a latency " +
		"is flat when it stays within x1.5.\n\n" +
		"| figure | N: value | shape |\n|---|---|---|\n")
	for _, k := range keys {
		pts := cs[k]
		var values []string
		for _, p := range pts {
			values = append(values, fmt.Sprintf("%s: %s", format(p.x), format(p.value)))
		}
		unit := k[strings.LastIndex(k, ": ")+2:]
		fmt.Fprintf(b, "| %s | %s | %s |\n", k, strings.Join(values, ", "), shape(unit, pts))
	}
}

// handWrittenMarker starts the part of the markdown written by hand.
const handWrittenMarker = "<!-- Written by hand from here on; make bench keeps it. -->"

// handWritten returns what follows the marker in old, the marker included,
// after a blank line; "" without the marker.
func handWritten(old string) string {
	i := strings.Index(old, handWrittenMarker)
	if i < 0 {
		return ""
	}
	return "\n" + strings.TrimRight(old[i:], "\n") + "\n"
}

// statistic matches a unit such as "deployment-restored-p50-ms" or
// "heap-median-MiB": one statistic of a quantity measured many times.
var statistic = regexp.MustCompile(`^(.*)-(min|median|p50|p99|max)-([A-Za-z]+)$`)

// statistics in the order a row lists them.
var statistics = []string{"min", "p50", "median", "p99", "max"}

type row struct {
	figure, value string
	units         []string // the metrics the row shows
}

// rows are a result's figures: the statistics of one quantity (min, median
// and max; p50, p99 and max) share a row, with their count when a
// "QUANTITY-samples" figure gives it.
func rows(metrics []Metric) []row {
	var out []row
	grouped := map[string]map[string]float64{}
	bases := map[string]string{}
	for _, m := range metrics {
		q := statistic.FindStringSubmatch(m.Unit)
		if q == nil {
			out = append(out, row{figure: m.Unit, value: format(m.Value), units: []string{m.Unit}})
			continue
		}
		key := q[1] + " (" + q[3] + ")"
		if grouped[key] == nil {
			grouped[key] = map[string]float64{}
			bases[q[1]] = key
			out = append(out, row{figure: key})
		}
		grouped[key][q[2]] = m.Value
		for i := range out {
			if out[i].figure == key {
				out[i].units = append(out[i].units, m.Unit)
			}
		}
	}
	samples := map[string]string{}
	for _, r := range out {
		if base, ok := strings.CutSuffix(r.figure, "-samples"); ok && bases[base] != "" {
			samples[bases[base]] = r.value
		}
	}
	var kept []row
	for _, r := range out {
		if base, ok := strings.CutSuffix(r.figure, "-samples"); ok && bases[base] != "" {
			continue
		}
		if g, ok := grouped[r.figure]; ok {
			var parts []string
			for _, s := range statistics {
				if v, ok := g[s]; ok {
					parts = append(parts, s+" "+format(v))
				}
			}
			r.value = strings.Join(parts, ", ")
			if n := samples[r.figure]; n != "" {
				r.value += " (" + n + " samples)"
			}
		}
		kept = append(kept, r)
	}
	return kept
}

func firstWords(command string) string {
	for _, f := range strings.Fields(command) {
		if strings.HasPrefix(f, "Benchmark") || strings.HasPrefix(f, "'Benchmark") {
			return strings.Trim(f, "'")
		}
	}
	if len(command) > 60 {
		return command[:60] + "..."
	}
	return command
}

func format(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}
