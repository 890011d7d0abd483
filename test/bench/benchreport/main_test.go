package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseAndCurves(t *testing.T) {
	raw := filepath.Join(t.TempDir(), "raw")
	data := `# command: go test ./pkg/operator/render/ -bench BenchmarkRenderConfigSize
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
`
	if err := os.WriteFile(raw, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	results, notes, err := parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 7 {
		t.Fatalf("%d results, want 7: %+v", len(results), results)
	}
	if len(notes) != 1 || notes[0] != "BenchmarkIdle/pods=0: requests other than lease renewals in 60 s: watch configmaps x1" {
		t.Fatalf("notes %q", notes)
	}
	if r := results[3]; r.Name != "BenchmarkIdle/pods=0" || r.Command != "hack/bench.sh idle" || r.Metrics[1] != (Metric{"heap-B/simulator", 900}) {
		t.Fatalf("last result %+v", r)
	}
	md := markdown(Report{Results: results, Notes: notes})
	for _, want := range []string{
		"| BenchmarkRenderConfigSize/profiles=10/sidecars=0 | ns/op | 7588236 |",
		"| BenchmarkRenderConfigSize/profiles=N/sidecars=0: ns/op | 1: 704864, 10: 7588236, 50: 37441119 | linear",
		"| BenchmarkRenderConfigSize/profiles=N/sidecars=0: allocs/op |",
		"| BenchmarkOperatorReactions | deployment-restored (ms) | p50 16.8, p99 18, max 21.6 |",
		"| BenchmarkIdle/pods=N: heap-MiB | 0: 12.5, 3000: 12.6, 10000: 12.4 | flat",
		"- BenchmarkIdle/pods=0: requests other than lease renewals in 60 s: watch configmaps x1",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}

func TestShape(t *testing.T) {
	for _, c := range []struct {
		unit string
		pts  []point
		want string
	}{
		{"s", []point{{100, 1}, {1000, 10}, {2000, 21}}, "linear"},
		{"s", []point{{100, 1}, {1000, 100}, {2000, 400}}, "faster than linear"},
		{"s", []point{{100, 10}, {1000, 11}, {2000, 12}}, "slower than linear"},
		{"heap-B/simulator", []point{{100, 900}, {1000, 950}, {2000, 1000}}, "flat"},
		{"heap-B/simulator", []point{{100, 900}, {1000, 3000}, {2000, 9000}}, "rises with N"},
		{"rss-MiB", []point{{0, 90}, {3000, 91}, {10000, 88}}, "flat"},
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
