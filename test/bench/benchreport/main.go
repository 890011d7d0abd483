// Command benchreport turns the output of `make bench` (go test -bench output,
// each run preceded by a "# command: ..." line) into docs/benchmarks.md and a
// JSON file with the same figures. What follows the handWritten marker in the
// markdown it replaces (sections about figures make bench does not measure,
// such as the cold CI run) is kept at the end of the new one.
//
//	benchreport -in RAW -md docs/benchmarks.md -json docs/benchmarks.json \
//	  -commit SHA -date DATE -machine "2 cores, ..."
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Report is the JSON file's format.
type Report struct {
	Commit  string   `json:"commit"`
	Date    string   `json:"date"`
	Machine string   `json:"machine"`
	Results []Result `json:"results"`
	// Notes are what a benchmark observed beside its figures ("# note: " lines).
	Notes []string `json:"notes,omitempty"`
}

// Result is one benchmark (or sub-benchmark) line.
type Result struct {
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Metrics []Metric `json:"metrics"`
}

// Metric is one value of a result, in its unit.
type Metric struct {
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
}

// procsSuffix is the -GOMAXPROCS suffix go test appends to a benchmark's name.
var procsSuffix = regexp.MustCompile(`-\d+$`)

func parse(path string) ([]Result, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var results []Result
	var notes []string
	command := ""
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if c, ok := strings.CutPrefix(line, "# command: "); ok {
			command = c
			continue
		}
		if n, ok := strings.CutPrefix(line, "# note: "); ok {
			notes = append(notes, n)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(fields[1]); err != nil {
			continue
		}
		r := Result{Name: procsSuffix.ReplaceAllString(fields[0], ""), Command: command}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %q is not a number", line, fields[i])
			}
			r.Metrics = append(r.Metrics, Metric{Unit: fields[i+1], Value: v})
		}
		results = append(results, r)
	}
	return results, notes, scanner.Err()
}

// sizeParam finds each "key=N" of a sub-benchmark's name.
var sizeParam = regexp.MustCompile(`([a-z-]+)=(\d+)`)

type point struct {
	x     float64
	value float64
}

// curves groups sub-benchmarks that differ only by one numeric parameter, per
// metric, with at least three points: "BenchmarkX/a=1/b=2" is a point of both
// "BenchmarkX/a=N/b=2" and "BenchmarkX/a=1/b=N".
func curves(results []Result) map[string][]point {
	out := map[string][]point{}
	for _, r := range results {
		for _, m := range sizeParam.FindAllStringSubmatchIndex(r.Name, -1) {
			x, _ := strconv.ParseFloat(r.Name[m[4]:m[5]], 64)
			name := r.Name[:m[4]] + "N" + r.Name[m[5]:]
			for _, metric := range r.Metrics {
				key := fmt.Sprintf("%s: %s", name, metric.Unit)
				out[key] = append(out[key], point{x, metric.Value})
			}
		}
	}
	for k, pts := range out {
		if len(pts) < 3 {
			delete(out, k)
			continue
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
	}
	return out
}

// shape says how a metric grows with N. A per-unit metric (a unit such as
// "heap-B/simulator") or a level (memory in MiB) should stay flat; a total
// (go test's "/op" units count one run at size N) should grow linearly, which
// its value per unit of N shows.
func shape(unit string, pts []point) string {
	perUnit := strings.Contains(unit, "/") && !strings.HasSuffix(unit, "/op") || strings.HasSuffix(unit, "MiB")
	ratios := make([]float64, len(pts))
	for i, p := range pts {
		ratios[i] = p.value
		if !perUnit {
			ratios[i] = p.value / p.x
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range ratios {
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	spread := hi / lo
	if lo <= 0 {
		spread = math.Inf(1)
	}
	rising := ratios[len(ratios)-1] > ratios[0]
	switch {
	case perUnit && spread <= 1.5:
		return fmt.Sprintf("flat (within x%.2f)", spread)
	case perUnit && rising:
		return fmt.Sprintf("rises with N (x%.2f)", spread)
	case perUnit:
		return fmt.Sprintf("falls with N (x%.2f)", spread)
	case spread <= 1.5:
		return fmt.Sprintf("linear (per unit of N within x%.2f)", spread)
	case rising:
		return fmt.Sprintf("faster than linear (per unit of N x%.2f)", spread)
	default:
		return fmt.Sprintf("slower than linear (per unit of N falls x%.2f)", spread)
	}
}

func markdown(rep Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\nWritten by `make bench` (hack/bench.sh), which reproduces every figure here. "+
		"Do not edit: run it again. Only the sections after the marker at the end are written by hand; make bench keeps them.\n\n"+
		"- commit: %s\n- date: %s\n- machine: %s\n", rep.Commit, rep.Date, rep.Machine)
	command := "\x00"
	for _, r := range rep.Results {
		if r.Command != command {
			command = r.Command
			fmt.Fprintf(&b, "\n## `%s`\n\n```sh\n%s\n```\n\n| benchmark | figure | value |\n|---|---|---|\n", firstWords(command), command)
		}
		for _, row := range rows(r.Metrics) {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", r.Name, row[0], row[1])
		}
	}
	cs := curves(rep.Results)
	if len(cs) > 0 {
		keys := make([]string, 0, len(cs))
		for k := range cs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("\n## How the figures grow\n\nEach curve is a figure measured at three or more sizes N. " +
			"A total is linear when its value per unit of N stays within x1.5; a per-unit figure is flat when it stays within x1.5.\n\n" +
			"| curve | N: value | shape |\n|---|---|---|\n")
		for _, k := range keys {
			pts := cs[k]
			var values []string
			for _, p := range pts {
				values = append(values, fmt.Sprintf("%s: %s", format(p.x), format(p.value)))
			}
			unit := k[strings.LastIndex(k, ": ")+2:]
			fmt.Fprintf(&b, "| %s | %s | %s |\n", k, strings.Join(values, ", "), shape(unit, pts))
		}
	}
	if len(rep.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
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

// quantile matches a unit such as "deployment-restored-p50-ms".
var quantile = regexp.MustCompile(`^(.*)-(p50|p99|max)-([a-z]+)$`)

// rows are a result's figures as (figure, value) rows: the p50, p99 and max of
// one quantity share a row.
func rows(metrics []Metric) [][2]string {
	var out [][2]string
	grouped := map[string]map[string]float64{}
	for _, m := range metrics {
		q := quantile.FindStringSubmatch(m.Unit)
		if q == nil {
			out = append(out, [2]string{m.Unit, format(m.Value)})
			continue
		}
		key := q[1] + " (" + q[3] + ")"
		if grouped[key] == nil {
			grouped[key] = map[string]float64{}
			out = append(out, [2]string{key, ""})
		}
		grouped[key][q[2]] = m.Value
	}
	for i, row := range out {
		if g, ok := grouped[row[0]]; ok {
			out[i][1] = fmt.Sprintf("p50 %s, p99 %s, max %s", format(g["p50"]), format(g["p99"]), format(g["max"]))
		}
	}
	return out
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

func main() {
	in := flag.String("in", "", "raw output of make bench")
	md := flag.String("md", "", "markdown report to write")
	js := flag.String("json", "", "JSON report to write")
	var rep Report
	flag.StringVar(&rep.Commit, "commit", "", "commit measured")
	flag.StringVar(&rep.Date, "date", "", "date of the run")
	flag.StringVar(&rep.Machine, "machine", "", "the machine")
	flag.Parse()
	results, notes, err := parse(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if len(results) == 0 {
		fmt.Fprintf(os.Stderr, "benchreport: no benchmark line in %s\n", *in)
		os.Exit(1)
	}
	rep.Results, rep.Notes = results, notes
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*js, append(data, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	old, err := os.ReadFile(*md)
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*md, []byte(markdown(rep)+handWritten(string(old))), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}
