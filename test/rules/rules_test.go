// Package rules runs a real promtool on the alerts of the PrometheusRule in
// manifests/optional: `promtool check rules` on its groups, and `promtool test
// rules` on the unit tests in testdata (synthetic series in, expected alerts
// with their labels and annotations out). `make test-rules` builds promtool
// and sets PROMTOOL.
package rules

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const (
	manifest = "../../manifests/optional/0000_90_secondary-scheduler-operator_03_prometheusrule.yaml"
	// The plain rule file written from the manifest's spec.groups; the unit
	// tests name it in rule_files and are run from the directory it is in.
	ruleFile = "secondary-scheduler.rules.yaml"
)

func promtool(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("PROMTOOL")
	if bin == "" {
		// CI must not pass by skipping the only test of the alerts.
		if framework.InCI() {
			t.Fatal("PROMTOOL is not set: run `make test-rules`, which builds promtool and sets it")
		}
		t.Skip("PROMTOOL is not set: `make test-rules` builds promtool and runs these tests")
	}
	return bin
}

// ruleGroups returns spec.groups of the PrometheusRule and the names of its alerts.
func ruleGroups(t *testing.T) ([]map[string]any, []string) {
	t.Helper()
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Kind string `json:"kind"`
		Spec struct {
			Groups []map[string]any `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &rule); err != nil {
		t.Fatalf("%s: %v", manifest, err)
	}
	if rule.Kind != "PrometheusRule" || len(rule.Spec.Groups) == 0 {
		t.Fatalf("%s: not a PrometheusRule with groups", manifest)
	}
	var alerts []string
	for _, g := range rule.Spec.Groups {
		rules, _ := g["rules"].([]any)
		for _, r := range rules {
			if r, ok := r.(map[string]any); ok {
				if name, _ := r["alert"].(string); name != "" {
					alerts = append(alerts, name)
				}
			}
		}
	}
	if len(alerts) == 0 {
		t.Fatalf("%s defines no alert", manifest)
	}
	return rule.Spec.Groups, alerts
}

// unitTests is what this package reads of a promtool unit-test file.
type unitTests struct {
	RuleFiles []string `json:"rule_files"`
	Tests     []struct {
		AlertRuleTests []struct {
			Alertname string `json:"alertname"`
			ExpAlerts []any  `json:"exp_alerts"`
		} `json:"alert_rule_test"`
	} `json:"tests"`
}

// TestAlerts: the rules load, and every alert has a case where it fires and
// one where it does not; promtool checks the cases.
func TestAlerts(t *testing.T) {
	bin := promtool(t)
	groups, alerts := ruleGroups(t)
	dir := t.TempDir()
	data, err := yaml.Marshal(map[string]any{"groups": groups})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ruleFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, bin, "check", "rules", ruleFile)

	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no promtool unit tests in testdata: %v", err)
	}
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var u unitTests
		if err := yaml.Unmarshal(data, &u); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if !slices.Equal(u.RuleFiles, []string{ruleFile}) {
			t.Errorf("%s: rule_files is %v, want [%s] (the rules of %s)", f, u.RuleFiles, ruleFile, manifest)
		}
		for _, test := range u.Tests {
			for _, a := range test.AlertRuleTests {
				// promtool passes a case of an alert that does not exist when it
				// expects no alert: a renamed alert would leave such cases behind.
				if !slices.Contains(alerts, a.Alertname) {
					t.Errorf("%s tests alert %q, which %s does not define", f, a.Alertname, manifest)
				}
				if len(a.ExpAlerts) > 0 {
					fires[a.Alertname] = true
				} else {
					quiet[a.Alertname] = true
				}
			}
		}
		// Run from the rule file's directory: rule_files is relative to the test file.
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			run(t, dir, bin, "test", "rules", filepath.Base(f))
		})
	}
	for _, a := range alerts {
		if !fires[a] {
			t.Errorf("no case in testdata where %s fires", a)
		}
		if !quiet[a] {
			t.Errorf("no case in testdata where %s does not fire", a)
		}
	}
}

func run(t *testing.T, dir, bin string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("promtool %s (timeout 2m): %v\n%s", strings.Join(args, " "), err, out)
		return
	}
	t.Logf("promtool %s:\n%s", strings.Join(args, " "), out)
}
