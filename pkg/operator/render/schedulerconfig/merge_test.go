package schedulerconfig

import (
	"strings"
	"testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// The sources render gives the user's ConfigMap and the overrides, so the
// problems read here as a user reads them.
const (
	cmSource        = "ConfigMap openshift-secondary-scheduler/my-config config.yaml: "
	overridesSource = "SecondaryScheduler cluster spec.unsupportedConfigOverrides"
)

// user is the layer of the user's ConfigMap holding cfg.
func user(cfg string) Layer {
	return Layer{Source: strings.TrimSuffix(cmSource, ": "), Data: []byte(cfg), ReplaceProfiles: true}
}

func overridesLayer(cfg string) Layer { return Layer{Source: overridesSource, Data: []byte(cfg)} }

// layers is the user's ConfigMap alone.
func layers(cfg string) []Layer { return []Layer{user(cfg)} }

// wantProblems merges layers and wants exactly the problems want, each a
// prefix of one problem, in this order; no problem at all for an empty want.
func wantProblems(t *testing.T, layers []Layer, want []string) {
	t.Helper()
	cfg, problems, err := mergeStrings(layers...)
	if err != nil {
		t.Fatalf("Merge: %v, want problems %q", err, want)
	}
	if (cfg == nil) != (len(problems) > 0) {
		t.Fatalf("Merge gave a config (%v) and problems %q", cfg != nil, problems)
	}
	if len(problems) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(problems), len(want), strings.Join(problems, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d:\n got: %s\nwant: %s...", i, problems[i], w)
		}
	}
}

// mergeStrings is Merge with the problems worded.
func mergeStrings(layers ...Layer) (*Config, []string, error) {
	r, err := Merge(layers...)
	return r.Config, problem.Strings(r.Problems), err
}
