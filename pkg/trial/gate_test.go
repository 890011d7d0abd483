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
		{"moved", 0, 0, 1, 1, at(12.5), "50.0% moved by the change (at most 12.5% allowed)"},
		{"both", 1, 0, 1, 3, at(50), "1 newly unschedulable (at most 0 allowed), 75.0% moved by the change (at most 50% allowed)"},
	} {
		g := Gate{MaxNewlyUnschedulable: tc.maxNew, MaxMovedPercent: tc.maxMoved}
		n := Counts{NewlyUnschedulable: tc.newly, Same: tc.same, Moved: tc.moved, MovedByChange: tc.moved}
		if got := strings.Join(g.Exceeded(n), ", "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Tie-break noise moves, but the gate judges only the moves the change made:
// 3 of 4 placed units moved, 2 of them by chance (the current configuration's
// two runs placed them differently too).
func TestGateLeavesOutTieBreakNoise(t *testing.T) {
	n := Counts{Units: 4, Same: 1, Moved: 3, TieBreakNoise: 2, MovedByChange: 1}
	g := Gate{MaxMovedPercent: func(v float64) *float64 { return &v }(25)}
	if got := g.Exceeded(n); len(got) != 0 {
		t.Errorf("exceeded %q, want within 25%% (1 of 4 moved by the change, 75%% moved in all)", got)
	}
	n.TieBreakNoise, n.MovedByChange = 1, 2
	if got := strings.Join(g.Exceeded(n), ", "); got != "50.0% moved by the change (at most 25% allowed)" {
		t.Errorf("exceeded %q, want 50.0%% moved by the change", got)
	}
}
