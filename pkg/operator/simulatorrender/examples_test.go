package simulatorrender

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// TestExamples: every Simulator in examples/simulators decodes strictly (no
// unknown or misspelt field), is valid and renders.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "simulators", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			var meta struct{ Kind string }
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if meta.Kind != "Simulator" {
				continue
			}
			found++
			sim := &simv1alpha1.Simulator{}
			if err := yaml.UnmarshalStrict(doc, sim); err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			sim.UID = "example"
			if _, err := renderSim(sim); err != nil {
				t.Errorf("%s: %s: %v", file, sim.Name, err)
			}
		}
		if found == 0 {
			t.Errorf("%s holds no Simulator", file)
		}
	}
}
