// Package metricstest reads the operator's metrics back from the registry
// its /metrics serves (component-base's legacyregistry), for tests that check
// what a controller recorded. It does not register them: callers call
// metrics.Register first.
package metricstest

import (
	"testing"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Series is the series of the metric name with exactly labels, nil when
// there is none.
func Series(t testing.TB, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
					continue series
				}
			}
			return m
		}
	}
	return nil
}
