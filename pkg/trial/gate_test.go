package trial

import (
	"strings"
	"testing"
)

func TestGateExceeded(t *testing.T) {
	at := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name                       string
		newly, maxNew, same, moved int
		maxMoved                   *float64
		want                       string
	}{
		{"within both", 0, 0, 3, 1, at(25), ""},
		{"no bound on moves", 0, 0, 0, 9, nil, ""},
		{"nothing placed moves nothing", 0, 0, 0, 0, at(0), ""},
		{"newly unschedulable", 2, 1, 0, 0, nil, "2 newly unschedulable (at most 1 allowed)"},
		{"moved", 0, 0, 1, 1, at(12.5), "50.0% moved (at most 12.5% allowed)"},
		{"both", 1, 0, 1, 3, at(50), "1 newly unschedulable (at most 0 allowed), 75.0% moved (at most 50% allowed)"},
	} {
		g := Gate{MaxNewlyUnschedulable: tc.maxNew, MaxMovedPercent: tc.maxMoved}
		if got := strings.Join(g.Exceeded(Counts{NewlyUnschedulable: tc.newly, Same: tc.same, Moved: tc.moved}), ", "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
