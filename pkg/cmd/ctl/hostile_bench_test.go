package ctl

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshift/secondary-scheduler-operator/test/bench/hostile"
)

// BenchmarkRenderRefusesHostileInput prints what `render` spends, reading the
// file included, to refuse each hostile configuration (hostile.Cases): time
// and bytes allocated per refusal, an upper bound of the memory it holds.
// `diff` reads its input the same way (readInputs, then render.Render).
func BenchmarkRenderRefusesHostileInput(b *testing.B) {
	for _, c := range hostile.Cases() {
		b.Run("config="+c.Name, func(b *testing.B) {
			input, err := hostile.RenderInput("hostile", c.Config)
			if err != nil {
				b.Fatal(err)
			}
			file := filepath.Join(b.TempDir(), "input.yaml")
			if err := os.WriteFile(file, []byte(input), 0o644); err != nil {
				b.Fatal(err)
			}
			o := &renderOptions{files: []string{file}}
			b.ReportAllocs()
			for b.Loop() {
				if err := o.run(nil, io.Discard); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
