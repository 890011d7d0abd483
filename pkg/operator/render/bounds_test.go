package render

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// aliasBomb is a ConfigMap-sized layer of nested aliases: each level lists the
// one below ten times, so nine levels expand to 10^9 values.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	return b.String()
}

// longStringAliased is the shape measured at 2.1 GiB before: one string of
// 900 KB, aliased 500 times, in under 1 MiB of text.
func longStringAliased() string {
	var b strings.Builder
	b.WriteString("s: &s " + strings.Repeat("x", 900<<10) + "\nl: [")
	for i := 0; i < 500; i++ {
		b.WriteString("*s,")
	}
	b.WriteString("]\n")
	return b.String()
}

func TestAliasesAreRefusedCheaply(t *testing.T) {
	for name, config := range map[string]string{"nested aliases": aliasBomb(), "a long string aliased": longStringAliased()} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Render(withConfig(config))
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), cmSource+"line 1: YAML anchors and aliases (&name, *name) are not accepted") {
				t.Fatalf("Render: %v, want the anchor refused with its line", err)
			}
			// The node tree of a 1 MiB document, a few times over: nothing expands.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("refusing it allocated %d MiB; it must cost in proportion to the text", alloc>>20)
			}
		})
	}
}

// BenchmarkRefusingAliases prints what refusing each hostile layer costs
// (time and bytes per refusal).
func BenchmarkRefusingAliases(b *testing.B) {
	for name, config := range map[string]string{"nested": aliasBomb(), "long-string": longStringAliased()} {
		b.Run(name, func(b *testing.B) {
			in := withConfig(config)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(in); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
