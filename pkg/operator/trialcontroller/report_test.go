package trialcontroller

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// reportOf is the report of a trial that left n pods newly unschedulable,
// each with a scheduler message of reasonBytes.
func reportOf(n, reasonBytes int) *trial.Report {
	var replay []corev1.Pod
	current, candidate := trial.Outcome{}, trial.Outcome{}
	reason := "0/5000 nodes are available: " + strings.Repeat("x", reasonBytes)
	for i := range n {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("pod-%d", i)}}
		replay = append(replay, p)
		current["ns/"+p.Name] = trial.Placement{Node: fmt.Sprintf("node-%d", i%7)}
		candidate["ns/"+p.Name] = trial.Placement{Reason: reason}
	}
	c := trial.Compare(replay, current, candidate, current)
	return &trial.Report{Comparison: c, Verdict: trial.Gate{}.Check(c)}
}

// The page goes into the report ConfigMap when it fits beside the text and
// the JSON; a page that would take the ConfigMap past its bound is left out,
// and the ConfigMap says so.
func TestReportData(t *testing.T) {
	for _, tc := range []struct {
		name       string
		report     *trial.Report
		keys       []string
		omittedWhy string
	}{
		{"small", reportOf(12, 200), []string{reportText, reportJSON, reportHTML}, ""},
		{"page too large", reportOf(480, 1500), []string{reportText, reportHTMLOmitted}, "past 900 KiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := reportData(tc.report)
			if err != nil {
				t.Fatal(err)
			}
			size := 0
			var keys []string
			for k, v := range data {
				size += len(v)
				keys = append(keys, k)
			}
			for _, k := range tc.keys {
				if data[k] == "" {
					t.Errorf("no %s; the ConfigMap holds %q", k, keys)
				}
			}
			if len(keys) != len(tc.keys) {
				t.Errorf("keys %q, want %q", keys, tc.keys)
			}
			if size > maxReportData {
				t.Errorf("the data is %d bytes, past the bound of %d", size, maxReportData)
			}
			if why := data[reportHTMLOmitted]; !strings.Contains(why, tc.omittedWhy) {
				t.Errorf("%s = %q, want it to say %q", reportHTMLOmitted, why, tc.omittedWhy)
			}
			if page := data[reportHTML]; page != "" && !strings.Contains(page, `data-figure="counts.newlyUnschedulable">12<`) {
				t.Errorf("report.html does not show the 12 newly unschedulable units")
			}
		})
	}
}
