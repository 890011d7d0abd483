package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeRaw(t *testing.T, data string) string {
	t.Helper()
	raw := filepath.Join(t.TempDir(), "raw")
	if err := os.WriteFile(raw, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return raw
}

// mustContain fails t for each of wants that md does not contain.
func mustContain(t *testing.T, md string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

func TestParseAndSeries(t *testing.T) {
	raw := writeRaw(t, `# command: go test ./pkg/operator/render/ -bench BenchmarkRenderConfigSize
goos: linux
BenchmarkRenderConfigSize/profiles=1/sidecars=0-2   1804   704864 ns/op   285394 B/op   1985 allocs/op
BenchmarkRenderConfigSize/profiles=10/sidecars=0-2   157   7588236 ns/op   1350024 B/op   13635 allocs/op
BenchmarkRenderConfigSize/profiles=50/sidecars=0-2    32   37441119 ns/op   6532333 B/op   65252 allocs/op
    some log line BenchmarkNot 1 2 x
# command: hack/bench.sh idle
BenchmarkIdle/pods=0-2 1 12.5 heap-MiB 900 heap-B/simulator
# note: BenchmarkIdle/pods=0: requests other than lease renewals in 60 s: watch configmaps x1
BenchmarkIdle/pods=3000-2 1 12.6 heap-MiB 900 heap-B/simulator
BenchmarkIdle/pods=10000-2 1 12.4 heap-MiB 900 heap-B/simulator
BenchmarkOperatorReactions-2 1 7596939873 ns/op 21.58 deployment-restored-max-ms 16.78 deployment-restored-p50-ms 18 deployment-restored-p99-ms
`)
	p, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.results) != 7 || len(p.sections) != 2 {
		t.Fatalf("%d results in %d sections, want 7 in 2: %+v", len(p.results), len(p.sections), p.results)
	}
	if len(p.notes) != 1 || p.notes[0] != (Note{Command: "hack/bench.sh idle", Text: "BenchmarkIdle/pods=0: requests other than lease renewals in 60 s: watch configmaps x1"}) {
		t.Fatalf("notes %q", p.notes)
	}
	if r := p.results[3]; r.Name != "BenchmarkIdle/pods=0" || r.Command != "hack/bench.sh idle" || r.Iterations != 1 || r.Metrics[1] != (Metric{"heap-B/simulator", 900}) {
		t.Fatalf("result %+v", r)
	}
	if r := p.results[0]; r.Iterations != 1804 {
		t.Fatalf("iterations of %+v", r)
	}
	md := markdown(build(p, Run{Commit: "abc"}, nil))
	mustContain(t, md,
		"- commit: abc\n",
		"| BenchmarkRenderConfigSize/profiles=10/sidecars=0 | ns/op | 7588236 |",
		// go test's means over many iterations: a shape is told.
		"| BenchmarkRenderConfigSize/profiles=N/sidecars=0: ns/op | 1: 704864, 10: 7588236, 50: 37441119 | linear",
		"| BenchmarkRenderConfigSize/profiles=N/sidecars=0: allocs/op |",
		"| BenchmarkOperatorReactions | deployment-restored (ms) | p50 16.8, p99 18, max 21.6 |",
		// One sample a size: listed, no shape.
		"| BenchmarkIdle/pods=N: heap-MiB | 0: 12.5, 3000: 12.6, 10000: 12.4 | one sample a size: no shape told |",
		"- BenchmarkIdle/pods=0: requests other than lease renewals in 60 s: watch configmaps x1",
	)
	if strings.Contains(md, "curve |") || strings.Contains(md, "Each curve") {
		t.Errorf("single samples called curves:\n%s", md)
	}
}

// TestSpreads: min, median and max of one quantity share a row with their
// count, and a size series of medians gets a shape.
func TestSpreads(t *testing.T) {
	raw := writeRaw(t, `# command: hack/bench-stack.sh
BenchmarkStack/sims=100 1 10.2 heap-min-MiB 10.5 heap-median-MiB 11 heap-max-MiB 5 heap-samples 95 rss-MiB
BenchmarkStack/sims=300 1 10.4 heap-min-MiB 10.6 heap-median-MiB 10.9 heap-max-MiB 5 heap-samples 96 rss-MiB
BenchmarkStack/sims=1000 1 10.9 heap-max-MiB 10.4 heap-min-MiB 10.7 heap-median-MiB 5 heap-samples 97 rss-MiB
`)
	p, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	md := markdown(build(p, Run{}, nil))
	mustContain(t, md,
		"| BenchmarkStack/sims=100 | heap (MiB) | min 10.2, median 10.5, max 11 (5 samples) |",
		"| BenchmarkStack/sims=1000 | heap (MiB) | min 10.4, median 10.7, max 10.9 (5 samples) |",
		"| BenchmarkStack/sims=N: heap (MiB) | 100: 10.5, 300: 10.6, 1000: 10.7 | flat (within x1.02) |",
		"| BenchmarkStack/sims=N: rss-MiB | 100: 95, 300: 96, 1000: 97 | one sample a size: no shape told |",
	)
	if strings.Contains(md, "heap-samples") {
		t.Errorf("the count has a row of its own:\n%s", md)
	}
}

// TestTargets: a section's title, and its targets beside the figures, met or
// not, and those without a figure listed.
func TestTargets(t *testing.T) {
	raw := writeRaw(t, `# command: hack/bench-hostile.sh
# title: Hostile inputs
# target: BenchmarkHostile/load heap-max-MiB < 64
# target: BenchmarkHostile/load cr-change-to-template-p99-ms < 100
# target: BenchmarkHostile/unserved series <= 12
# target: BenchmarkHostile/gone s < 1
BenchmarkHostile/load-2 1 20 heap-min-MiB 21 heap-median-MiB 22 heap-max-MiB 30 cr-change-to-template-p50-ms 120 cr-change-to-template-p99-ms 130 cr-change-to-template-max-ms
BenchmarkHostile/unserved-2 1 12 series
`)
	p, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	rep := build(p, Run{Commit: "abc"}, nil)
	if got := rep.Targets; len(got) != 4 || got[0].Met == nil || !*got[0].Met || *got[1].Met || !*got[2].Met || got[3].Met != nil {
		t.Fatalf("targets %+v", got)
	}
	md := markdown(rep)
	mustContain(t, md,
		"\n## Hostile inputs\n",
		"Targets: 2 of 4 met, 1 without a figure in this run.",
		"| BenchmarkHostile/load | heap (MiB) | min 20, median 21, max 22 | max < 64: met |",
		"| BenchmarkHostile/load | cr-change-to-template (ms) | p50 30, p99 120, max 130 | p99 < 100: **NOT met** |",
		"| BenchmarkHostile/unserved | series | 12 | <= 12: met |",
		"| BenchmarkHostile/gone | s | no figure | < 1 |",
	)
	wantMisses := []string{
		"BenchmarkHostile/load cr-change-to-template-p99-ms: got 120, want < 100",
		"BenchmarkHostile/gone s: no figure, want < 1",
	}
	if got := misses(rep); strings.Join(got, "\n") != strings.Join(wantMisses, "\n") {
		t.Errorf("misses %q, want %q", got, wantMisses)
	}
	// Measuring another section again judges only that one: the misses
	// above belong to a run before.
	other, err := parse(writeRaw(t, "# command: go test C\n# target: BenchmarkC s < 5\nBenchmarkC 1 3 s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := misses(build(other, Run{Commit: "def"}, &rep)); len(got) != 0 {
		t.Errorf("misses of a run that measured only BenchmarkC: %q", got)
	}
	for _, bad := range []string{"# target: x y < 1 2", "# target: x y ~ 1", "# target: x y < z"} {
		if _, err := parse(writeRaw(t, bad+"\n")); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestMerge: a run of one section replaces that section of the report
// before and keeps the others with their run, a report written before runs
// existed included.
func TestMerge(t *testing.T) {
	legacy := `{"commit": "old", "date": "2026-12-01T14:01Z", "machine": "m",
  "results": [
    {"name": "BenchmarkA", "command": "go test A", "metrics": [{"unit": "ns/op", "value": 1}]},
    {"name": "BenchmarkStack/x", "command": "hack/bench-stack.sh", "metrics": [{"unit": "heap-MiB", "value": 11}]},
    {"name": "BenchmarkHostile/load", "command": "hack/bench-hostile.sh", "metrics": [{"unit": "heap-MiB", "value": 99}]}
  ],
  "notes": ["BenchmarkA: about A", "BenchmarkStack/x: about the stack"]}`
	oldPath := filepath.Join(t.TempDir(), "old.json")
	if err := os.WriteFile(oldPath, []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	old, err := load(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Runs) != 1 || len(old.Sections) != 3 || old.Notes[1] != (Note{Command: "hack/bench-stack.sh", Text: "BenchmarkStack/x: about the stack"}) {
		t.Fatalf("legacy report read as %+v", old)
	}
	// A titled section replaces the untitled one of its command.
	p, err := parse(writeRaw(t, "# command: hack/bench-hostile.sh\n# title: Hostile inputs\nBenchmarkHostile/load 1 21 heap-median-MiB\n"+
		"# command: go test C\nBenchmarkC 1 3 s\n"))
	if err != nil {
		t.Fatal(err)
	}
	rep := build(p, Run{Commit: "new", Date: "2026-12-01T23:00Z"}, old)
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range rep.Sections {
		names = append(names, s.Command)
	}
	if strings.Join(names, ",") != "go test A,hack/bench-stack.sh,hack/bench-hostile.sh,go test C" ||
		rep.Sections[0].Run != 1 || rep.Sections[2].Run != 2 || rep.Sections[3].Run != 2 || len(rep.Runs) != 2 || rep.Commit != "new" {
		t.Fatalf("merged: %s", data)
	}
	if len(rep.Results) != 4 || rep.Results[2].Metrics[0] != (Metric{"heap-median-MiB", 21}) || len(rep.Notes) != 2 {
		t.Fatalf("merged results: %s", data)
	}
	md := markdown(rep)
	mustContain(t, md,
		"- run 1: commit old, date 2026-12-01T14:01Z, machine: m\n- run 2: commit new, date 2026-12-01T23:00Z",
		"## `go test A`\n\nRun 1 (commit old, 2026-12-01T14:01Z).",
		"## Hostile inputs\n\nRun 2 (commit new, 2026-12-01T23:00Z).",
	)
	if strings.Contains(md, "| 99 |") {
		t.Errorf("the replaced section's figure is kept:\n%s", md)
	}
	// What a run records of the machine's state goes with that run.
	loaded := markdown(build(p, Run{Commit: "new", Machine: "m2", Load: "0.42 0.3 0.2", Reference: "BenchmarkRender 2.1 ms/op"}, old))
	mustContain(t, loaded, "- run 2: commit new, date , machine: m2, load average (1, 5, 15 min) at the start: 0.42 0.3 0.2, "+
		"machine reference, timed before the run: BenchmarkRender 2.1 ms/op\n")
	single := markdown(build(p, Run{Commit: "new", Machine: "m2", Load: "0.42 0.3 0.2"}, nil))
	mustContain(t, single, "- machine: m2\n- load average (1, 5, 15 min) at the start: 0.42 0.3 0.2\n")
	// Merging into the merged report again: run 1 stays, run 2 is replaced.
	again := build(p, Run{Commit: "newer"}, &rep)
	if len(again.Runs) != 2 || again.Runs[0].Commit != "old" || again.Runs[1].Commit != "newer" {
		t.Errorf("runs after a second merge: %+v", again.Runs)
	}
}

func TestShape(t *testing.T) {
	rep := func(pts ...point) []point {
		for i := range pts {
			pts[i].repeated = true
		}
		return pts
	}
	for _, c := range []struct {
		unit string
		pts  []point
		want string
	}{
		{"ns/op", rep(point{x: 100, value: 1}, point{x: 1000, value: 10}, point{x: 2000, value: 21}), "linear"},
		{"ns/op", rep(point{x: 100, value: 1}, point{x: 1000, value: 100}, point{x: 2000, value: 400}), "faster than linear"},
		{"ns/op", rep(point{x: 100, value: 10}, point{x: 1000, value: 11}, point{x: 2000, value: 12}), "slower than linear"},
		{"heap-B/simulator", rep(point{x: 100, value: 900}, point{x: 1000, value: 950}, point{x: 2000, value: 1000}), "flat"},
		{"heap-B/simulator", rep(point{x: 100, value: 900}, point{x: 1000, value: 3000}, point{x: 2000, value: 9000}), "rises with N"},
		{"heap (MiB)", rep(point{x: 0, value: 90}, point{x: 3000, value: 91}, point{x: 10000, value: 88}), "flat"},
		{"refused (ms)", rep(point{x: 100, value: 25}, point{x: 300, value: 27}, point{x: 2000, value: 20}), "flat"},
		{"ms-one-change", []point{{x: 100, value: 25}, {x: 300, value: 27}, {x: 2000, value: 20}}, "one sample a size"},
	} {
		if got := shape(c.unit, c.pts); !strings.HasPrefix(got, c.want) {
			t.Errorf("shape(%s, %v) = %q, want %q", c.unit, c.pts, got, c.want)
		}
	}
}

// TestHandWritten: the sections after the marker survive a new report; a
// report without the marker has nothing to keep.
func TestHandWritten(t *testing.T) {
	old := markdown(Report{Commit: "old"}) + "\n" + handWrittenMarker + "\n\n## Cold CI run\n\n41 minutes.\n\n"
	kept := handWritten(old)
	if kept != "\n"+handWrittenMarker+"\n\n## Cold CI run\n\n41 minutes.\n" {
		t.Errorf("kept %q", kept)
	}
	md := markdown(Report{Commit: "new"}) + kept
	if !strings.Contains(md, "- commit: new") || strings.Contains(md, "- commit: old") || !strings.HasSuffix(md, "41 minutes.\n") {
		t.Errorf("new report:\n%s", md)
	}
	if handWritten(md) != kept {
		t.Errorf("a second run keeps %q, want %q", handWritten(md), kept)
	}
	if got := handWritten(markdown(Report{})); got != "" {
		t.Errorf("without the marker: kept %q", got)
	}
}
