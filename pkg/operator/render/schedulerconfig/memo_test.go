package schedulerconfig

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const (
	oneProfile  = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: one\n"
	twoProfiles = oneProfile + "- schedulerName: two\n"
	// refused: kube-scheduler allows 0 to 100.
	refused = oneProfile + "percentageOfNodesToScore: 101\n"
)

// TestMemoAnswersAsMerge: for a sequence of layer sets that repeat, change,
// fail and come back, the memo gives what Merge gives, and merges only when
// the layers differ from the last ones.
func TestMemoAnswersAsMerge(t *testing.T) {
	calls := 0
	mergeUncached = func(l ...Layer) (Result, error) { calls++; return Merge(l...) }
	t.Cleanup(func() { mergeUncached = Merge })

	steps := []struct {
		name   string
		layers []Layer
		merges bool
	}{
		{"first", layers(oneProfile), true},
		{"same layers", layers(oneProfile), false},
		{"another user config", layers(twoProfiles), true},
		{"back to the first", layers(oneProfile), true},
		{"overrides added", append(layers(oneProfile), overridesLayer("percentageOfNodesToScore: 50\n")), true},
		{"same two layers", append(layers(oneProfile), overridesLayer("percentageOfNodesToScore: 50\n")), false},
		{"one layer", layers(oneProfile), true},
		{"same data, profiles merged", []Layer{{Source: user("").Source, Data: []byte(oneProfile)}}, true},
		{"refused", layers(refused), true},
		{"refused again", layers(refused), false},
		// The source is in every problem: another source is another answer.
		{"same refused data, another source", []Layer{{Source: "elsewhere", Data: []byte(refused), ReplaceProfiles: true}}, true},
		{"no layers", nil, true},
		{"no layers again", nil, false},
	}
	for _, step := range steps {
		before := calls
		got, err := new(Memo).Merge(step.layers...) // a fresh memo: Merge's answer
		calls = before
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		memoGot, err := memo.Merge(step.layers...)
		if err != nil {
			t.Fatalf("%s: memo: %v", step.name, err)
		}
		if !reflect.DeepEqual(got, memoGot) {
			t.Errorf("%s: memo gave %s %q, Merge gave %s %q", step.name, describe(memoGot.Config), memoGot.Problems, describe(got.Config), got.Problems)
		}
		if merged := calls > before; merged != step.merges {
			t.Errorf("%s: merged %v, want %v", step.name, merged, step.merges)
		}
	}
	r, _ := memo.Merge(layers(refused)...)
	if len(r.Problems) == 0 || r.Problems[0].Subject.Field != "percentageOfNodesToScore" || !strings.Contains(string(r.Merged), "percentageOfNodesToScore: 101") {
		t.Errorf("refused layers: problems %q and merged document\n%s\nwant a problem about percentageOfNodesToScore, and the document that sets it", r.Problems, r.Merged)
	}
}

var memo Memo

// TestMemoKeepsItsOwnCopies: neither a caller that reuses its layer buffer
// nor one that changes the Config it was given, on a miss or a hit, changes
// what the memo answers next.
func TestMemoKeepsItsOwnCopies(t *testing.T) {
	var m Memo
	merge := func(data []byte) *Config {
		t.Helper()
		r, err := m.Merge(Layer{Source: "cm", Data: data, ReplaceProfiles: true})
		if err != nil || r.Config == nil {
			t.Fatalf("merge: %v %q", err, r.Problems)
		}
		return r.Config
	}
	spoil := func(c *Config) { c.YAML[0] = 'X'; c.SchedulerNames[0] = "spoiled" }
	want, _, _ := mergeStrings(Layer{Source: "cm", Data: []byte(oneProfile), ReplaceProfiles: true})

	buf := []byte(oneProfile)
	spoil(merge(buf)) // a miss
	for i := range 2 {
		got := merge([]byte(oneProfile)) // hits
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("hit %d after a caller changed its Config: got %s, want %s", i, describe(got), describe(want))
		}
		spoil(got)
	}

	// The caller's buffer now holds other bytes of the same length.
	copy(buf, strings.Replace(oneProfile, "schedulerName: one", "schedulerName: uno", 1))
	got := merge(buf)
	if len(got.SchedulerNames) != 1 || got.SchedulerNames[0] != "uno" {
		t.Errorf("after the caller rewrote its buffer, the memo served %q, want [uno]", got.SchedulerNames)
	}

	refusedLayer := Layer{Source: "cm", Data: []byte(refused), ReplaceProfiles: true}
	wantRefused, _ := Merge(refusedLayer)
	for i := range 3 {
		r, _ := m.Merge(refusedLayer)
		if !reflect.DeepEqual(r, wantRefused) {
			t.Fatalf("refusal %d after a caller changed its problems or document: got %q\n%s\nwant %q\n%s", i, r.Problems, r.Merged, wantRefused.Problems, wantRefused.Merged)
		}
		r.Problems[0].Message = "spoiled"
		r.Merged[0] = 'X'
	}
}

func describe(c *Config) string {
	if c == nil {
		return "no config"
	}
	return fmt.Sprintf("config %s (schedulerNames %q):\n%s", c.Hash, c.SchedulerNames, c.YAML)
}

// BenchmarkMemo: re-merging unchanged layers, as a controller does on every
// event it watches, against merging them.
//
//	go test ./pkg/operator/render/schedulerconfig/ -run '^$' -bench BenchmarkMemo -benchmem
func BenchmarkMemo(b *testing.B) {
	in := append(layers(twoProfiles), overridesLayer("percentageOfNodesToScore: 50\n"))
	b.Run("merge", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if r, err := Merge(in...); err != nil || len(r.Problems) > 0 {
				b.Fatal(err, r.Problems)
			}
		}
	})
	b.Run("memo", func(b *testing.B) {
		var m Memo
		b.ReportAllocs()
		for b.Loop() {
			if r, err := m.Merge(in...); err != nil || len(r.Problems) > 0 {
				b.Fatal(err, r.Problems)
			}
		}
	})
}
