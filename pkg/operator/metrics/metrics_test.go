package metrics

import (
	"fmt"
	"maps"
	"slices"
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

// TestUnservedPodsSeriesAreBounded: 10,000 pending pods, each with a
// schedulerName of its own that nothing serves, make at most served +
// MaxOtherSchedulerNames + 1 series; the "_other" series carries the pods the
// named series do not; served names always have a series, 0 included.
func TestUnservedPodsSeriesAreBounded(t *testing.T) {
	Register()
	served := []string{"secondary-scheduler", "gang"}
	counts := map[string]int{"secondary-scheduler": 3} // its scheduler is down
	const pods = 10_000
	for i := range pods {
		counts[fmt.Sprintf("typo-%05d", i)] = 1
	}
	counts["busy"] = 7 // the most pods: a series of its own

	SetUnservedPods(counts, served)
	want := map[string]int{"secondary-scheduler": 3, "gang": 0, "busy": 7,
		OtherSchedulerNames: pods - (MaxOtherSchedulerNames - 1)}
	for i := range MaxOtherSchedulerNames - 1 { // ties by name: typo-00000 .. typo-00008
		want[fmt.Sprintf("typo-%05d", i)] = 1
	}
	if len(want) > len(served)+MaxOtherSchedulerNames+1 {
		t.Fatalf("the test wants %d series", len(want))
	}
	expectUnserved(t, want)

	// Fewer names: "_other" and the names gone lose their series, served stay.
	SetUnservedPods(map[string]int{"typo-00042": 2}, served)
	expectUnserved(t, map[string]int{"secondary-scheduler": 0, "gang": 0, "typo-00042": 2})
	SetUnservedPods(nil, nil)
	expectUnserved(t, nil)
}

// TestUnservedSeriesAreStable: the same counts give the same names, whatever
// the map's order, and a name ties with another by name, not by chance.
func TestUnservedSeriesAreStable(t *testing.T) {
	counts := map[string]int{}
	for i := range 50 {
		counts[fmt.Sprintf("n%02d", i)] = 1 + i%3 // many ties
	}
	first := unservedSeries(counts, nil)
	for range 20 {
		if again := unservedSeries(counts, nil); !maps.Equal(first, again) {
			t.Fatalf("%v then %v", first, again)
		}
	}
	var named []string
	for name := range first {
		if name != OtherSchedulerNames {
			named = append(named, name)
		}
	}
	slices.Sort(named)
	// The 3s are n02, n05, ... n47 (16 of them): the first 10 by name.
	want := []string{"n02", "n05", "n08", "n11", "n14", "n17", "n20", "n23", "n26", "n29"}
	if !slices.Equal(named, want) {
		t.Errorf("named %v, want %v", named, want)
	}
	if sum := first[OtherSchedulerNames]; sum != 6*3+17*2+17*1 {
		t.Errorf("%s = %d", OtherSchedulerNames, sum)
	}
}

// expectUnserved compares unserved_pods in the registry with want, by
// scheduler_name: exactly those series.
func expectUnserved(t *testing.T, want map[string]int) {
	t.Helper()
	const name = namespace + "_unserved_pods"
	text := ""
	if len(want) > 0 {
		text = "# HELP " + name + " [ALPHA] " + unservedPodsHelp + "\n# TYPE " + name + " gauge\n"
		for _, scheduler := range slices.Sorted(maps.Keys(want)) {
			text += fmt.Sprintf("%s{scheduler_name=%q} %d\n", name, scheduler, want[scheduler])
		}
	}
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(text), name); err != nil {
		t.Error(err)
	}
}
