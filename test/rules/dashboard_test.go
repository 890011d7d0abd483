package rules

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

const (
	dashboardManifest = "../../manifests/optional/0000_90_secondary-scheduler-operator_04_dashboard.yaml"
	// The series the dashboard's queries run on, with the interval of their
	// samples and the time the queries are evaluated at. Not in testdata/
	// itself: those files are promtool unit tests of the alerts.
	dashboardSeries = "testdata/dashboard/input-series.yaml"
	// What the console reads: ConfigMaps of this namespace with this label.
	dashboardNamespace = "openshift-config-managed"
	dashboardLabel     = "console.openshift.io/dashboard"
)

// panel is what this test reads of a Grafana panel.
type panel struct {
	Title   string `json:"title"`
	Type    string `json:"type"`
	Targets []struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	} `json:"targets"`
	// Panels are a row's, in Grafana's newer layout (type "row").
	Panels []panel `json:"panels"`
}

// dashboardPanels reads the dashboard ConfigMap, checks that the console
// shows it, and returns every panel, those of rows included.
func dashboardPanels(t *testing.T) []panel {
	t.Helper()
	data, err := os.ReadFile(dashboardManifest)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(data, &cm); err != nil {
		t.Fatalf("%s: %v", dashboardManifest, err)
	}
	if cm.Kind != "ConfigMap" || cm.Namespace != dashboardNamespace || cm.Labels[dashboardLabel] != "true" {
		t.Fatalf("%s: %s %s/%s labelled %v; the console shows ConfigMaps of %s labelled %s: \"true\"",
			dashboardManifest, cm.Kind, cm.Namespace, cm.Name, cm.Labels, dashboardNamespace, dashboardLabel)
	}
	if len(cm.Data) != 1 {
		t.Fatalf("%s: %d data keys, want one dashboard", dashboardManifest, len(cm.Data))
	}
	var dashboard struct {
		Title string `json:"title"`
		// Rows are Grafana's older layout, which the console reads too.
		Rows []struct {
			Title  string  `json:"title"`
			Panels []panel `json:"panels"`
		} `json:"rows"`
		Panels []panel `json:"panels"`
	}
	for key, text := range cm.Data {
		if !strings.HasSuffix(key, ".json") {
			t.Errorf("%s: key %q does not end in .json", dashboardManifest, key)
		}
		if err := json.Unmarshal([]byte(text), &dashboard); err != nil {
			t.Fatalf("%s: key %s: %v", dashboardManifest, key, err)
		}
	}
	if dashboard.Title == "" {
		t.Errorf("%s: the dashboard has no title", dashboardManifest)
	}
	var panels []panel
	var collect func([]panel)
	collect = func(ps []panel) {
		for _, p := range ps {
			panels = append(panels, p)
			collect(p.Panels)
		}
	}
	for _, r := range dashboard.Rows {
		collect(r.Panels)
	}
	collect(dashboard.Panels)
	return panels
}

// TestDashboard: every panel of the console dashboard has queries, and
// promtool evaluates each query on the series of testdata/dashboard: it must
// parse and return at least one series whose value is a number (a histogram
// quantile of no observations is NaN, and shows nothing). So a misspelt
// metric or label, a grouping that loses le, or a selector matching no
// series the scrapes store fails here.
func TestDashboard(t *testing.T) {
	panels := dashboardPanels(t)
	titles := map[string]bool{}
	var queried []panel
	for _, p := range panels {
		if p.Type == "row" || p.Type == "text" {
			continue
		}
		if p.Title == "" || titles[p.Title] {
			t.Errorf("%s: a panel titled %q: want a title, and one per panel", dashboardManifest, p.Title)
		}
		titles[p.Title] = true
		if len(p.Targets) == 0 {
			t.Errorf("%s: panel %q has no query", dashboardManifest, p.Title)
		}
		for _, target := range p.Targets {
			if strings.TrimSpace(target.Expr) == "" {
				t.Errorf("%s: panel %q, query %s is empty", dashboardManifest, p.Title, target.RefID)
			}
		}
		queried = append(queried, p)
	}
	if len(queried) == 0 {
		t.Fatalf("%s: no panel with a query", dashboardManifest)
	}

	bin := promtool(t)
	var series struct {
		Interval    string `json:"interval"`
		EvalTime    string `json:"eval_time"`
		InputSeries []any  `json:"input_series"`
	}
	data, err := os.ReadFile(dashboardSeries)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, &series); err != nil || len(series.InputSeries) == 0 || series.EvalTime == "" {
		t.Fatalf("%s: want interval, eval_time and input_series: %v", dashboardSeries, err)
	}
	dir := t.TempDir()
	for i, p := range queried {
		t.Run(p.Title, func(t *testing.T) {
			var exprs []map[string]any
			for _, target := range p.Targets {
				// q == q drops NaN samples; count(...) > bool 0 is 1 with at
				// least one sample left, nothing without.
				exprs = append(exprs, map[string]any{
					"expr":        fmt.Sprintf("count((%s) == (%s)) > bool 0", target.Expr, target.Expr),
					"eval_time":   series.EvalTime,
					"exp_samples": []map[string]any{{"labels": "{}", "value": 1}},
				})
			}
			test, err := yaml.Marshal(map[string]any{
				"rule_files": []string{},
				"tests": []map[string]any{{
					"interval":         series.Interval,
					"input_series":     series.InputSeries,
					"promql_expr_test": exprs,
				}},
			})
			if err != nil {
				t.Fatal(err)
			}
			file := fmt.Sprintf("dashboard-panel-%02d.yaml", i)
			if err := os.WriteFile(filepath.Join(dir, file), test, 0o644); err != nil {
				t.Fatal(err)
			}
			run(t, dir, bin, "test", "rules", file)
		})
	}
}
