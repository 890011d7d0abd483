package main

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// sizeParam finds each "key=N" of a sub-benchmark's name.
var sizeParam = regexp.MustCompile(`([a-z-]+)=(\d+)`)

// point is one size's figure. repeated: the value sums up several samples
// (a median, a p50, or go test's mean over b.N iterations); otherwise it is
// one sample.
type point struct {
	x        float64
	value    float64
	repeated bool
}

// series groups sub-benchmarks that differ only by one numeric parameter, per
// figure, with at least three sizes: "BenchmarkX/a=1/b=2" is a point of both
// "BenchmarkX/a=N/b=2" and "BenchmarkX/a=1/b=N". The figures of a spread
// (min, median, max) or quantiles (p50, p99, max) are one figure, their
// median or p50.
func series(results []Result) map[string][]point {
	out := map[string][]point{}
	for _, r := range results {
		for _, m := range sizeParam.FindAllStringSubmatchIndex(r.Name, -1) {
			x, _ := strconv.ParseFloat(r.Name[m[4]:m[5]], 64)
			name := r.Name[:m[4]] + "N" + r.Name[m[5]:]
			for _, f := range figures(r) {
				key := fmt.Sprintf("%s: %s", name, f.name)
				out[key] = append(out[key], point{x, f.value, f.repeated})
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

type figure struct {
	name     string
	value    float64
	repeated bool
}

// figures are a result's metrics with each group of statistics as one
// figure (its median, else its p50).
func figures(r Result) []figure {
	var out []figure
	groups := map[string]map[string]float64{}
	for _, m := range r.Metrics {
		if q := statistic.FindStringSubmatch(m.Unit); q != nil {
			key := q[1] + " (" + q[3] + ")"
			if groups[key] == nil {
				groups[key] = map[string]float64{}
				out = append(out, figure{name: key})
			}
			groups[key][q[2]] = m.Value
			continue
		}
		if strings.HasSuffix(m.Unit, "-samples") && samplesOf(r, m.Unit) != "" {
			continue
		}
		out = append(out, figure{name: m.Unit, value: m.Value, repeated: strings.HasSuffix(m.Unit, "/op") && r.Iterations > 1})
	}
	for i, f := range out {
		g, ok := groups[f.name]
		if !ok {
			continue
		}
		out[i].repeated = true
		if v, ok := g["median"]; ok {
			out[i].value = v
		} else if v, ok := g["p50"]; ok {
			out[i].value = v
		} else {
			out[i].repeated = false
			out[i].value = g["max"]
		}
	}
	return out
}

// samplesOf is the group a "NAME-samples" count belongs to.
func samplesOf(r Result, unit string) string {
	base := strings.TrimSuffix(unit, "-samples")
	for _, m := range r.Metrics {
		if q := statistic.FindStringSubmatch(m.Unit); q != nil && q[1] == base {
			return q[1] + " (" + q[3] + ")"
		}
	}
	return ""
}

// shape says how a figure measured repeatedly at each size grows with N, or
// that no shape can be told from one sample a size. A per-unit figure (a
// unit such as "heap-B/simulator"), a level (memory in MiB) or a latency
// statistic should stay flat; a total (go test's "/op" units count one run
// at size N) should grow linearly, which its value per unit of N shows.
func shape(unit string, pts []point) string {
	for _, p := range pts {
		if !p.repeated {
			return "one sample a size: no shape told"
		}
	}
	perUnit := strings.Contains(unit, "/") && !strings.HasSuffix(unit, "/op") || strings.Contains(unit, "MiB") ||
		strings.HasSuffix(unit, "(ms)") || strings.HasSuffix(unit, "(s)")
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
