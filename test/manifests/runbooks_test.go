package manifests

import (
	"os"
	"strings"
	"testing"
)

const (
	operatorDoc     = "../../docs/operator.md"
	runbooksHeading = "## Runbooks"
)

// TestEveryAlertHasARunbook: every alert of the PrometheusRule in manifests/
// has a subsection under runbooksHeading in docs/operator.md, and every
// subsection there is an alert's.
func TestEveryAlertHasARunbook(t *testing.T) {
	type prometheusRule struct {
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert string `json:"alert"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	alerts := map[string]bool{}
	for _, obj := range manifestObjects(t) {
		if obj["kind"] != "PrometheusRule" {
			continue
		}
		for _, g := range decode[prometheusRule](t, obj).Spec.Groups {
			for _, r := range g.Rules {
				if r.Alert != "" {
					alerts[r.Alert] = true
				}
			}
		}
	}
	if len(alerts) == 0 {
		t.Fatal("no alert in manifests/: the PrometheusRule was not read")
	}

	data, err := os.ReadFile(operatorDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n"+runbooksHeading+"\n")
	if !ok {
		t.Fatalf("%s has no %q section", operatorDoc, runbooksHeading)
	}
	if next := strings.Index(section, "\n## "); next >= 0 {
		section = section[:next]
	}
	runbooks := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if name, ok := strings.CutPrefix(line, "### "); ok {
			runbooks[strings.TrimSpace(name)] = true
		}
	}
	for _, a := range missingFrom(alerts, runbooks) {
		t.Errorf("alert %s has no runbook: add a \"### %s\" subsection to %q in %s", a, a, runbooksHeading, operatorDoc)
	}
	for _, r := range missingFrom(runbooks, alerts) {
		t.Errorf("%s has a runbook for %s, which no PrometheusRule in manifests/ defines", operatorDoc, r)
	}
}
