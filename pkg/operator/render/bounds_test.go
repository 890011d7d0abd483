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

func TestAliasBombIsRefusedCheaply(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Render(withConfig(aliasBomb()))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "expands to more than 100000 values through YAML aliases") {
		t.Fatalf("Render: %v, want the alias expansion refused", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("refusing the alias bomb allocated %d MiB; it must cost little", alloc>>20)
	}
}

func TestLayerBounds(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"too big", "# " + strings.Repeat("x", maxLayerBytes) + "\n", "bytes; at most 1048576 are read"},
		{"many plain values are fine until the bound", "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: X\n    args: {v: [" +
			strings.TrimSuffix(strings.Repeat("1,", maxLayerValues), ",") + "]}\n", "expands to more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Render(withConfig(tc.config))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Render: %v, want %q", err, tc.want)
			}
		})
	}
	// A modest use of aliases stays allowed.
	if _, err := Render(withConfig("profiles:\n- schedulerName: a\n  plugins: &p {score: {disabled: [{name: ImageLocality}]}}\n- schedulerName: b\n  plugins: *p\n")); err != nil {
		t.Errorf("a configuration sharing plugins through an alias: %v", err)
	}
}

// BenchmarkAliasBomb prints what refusing the bomb costs.
func BenchmarkAliasBomb(b *testing.B) {
	in := withConfig(aliasBomb())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(in); err == nil {
			b.Fatal("accepted")
		}
	}
}
