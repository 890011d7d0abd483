package metrics

import (
	"strings"
	"testing"

	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
)

// TestConfigValidIsAbsentWhenNothingIsRendered: 0 while refused, 1 once valid,
// and no series at all after ForgetConfigValid (Removed, Unmanaged), so that an
// alert on 0 does not fire for a configuration nobody runs.
func TestConfigValidIsAbsentWhenNothingIsRendered(t *testing.T) {
	Register()
	const name = "secondary_scheduler_operator_scheduler_config_valid"
	expect := func(value string) {
		t.Helper()
		want := ""
		if value != "" {
			want = "# HELP " + name + " [ALPHA] " + configValidHelp + "\n# TYPE " + name + " gauge\n" + name + " " + value + "\n"
		}
		if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), name); err != nil {
			t.Error(err)
		}
	}
	SetConfigValid(false)
	expect("0")
	SetConfigValid(true)
	expect("1")
	ForgetConfigValid()
	expect("")
}
