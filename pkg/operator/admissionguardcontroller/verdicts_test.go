package admissionguardcontroller

import (
	"testing"

	"k8s.io/client-go/tools/cache"
)

func TestVerdicts(t *testing.T) {
	v := NewVerdicts()
	if v.HasSynced() {
		t.Fatal("synced before any verdict")
	}
	if intact, why := v.Intact(); intact || why == "" {
		t.Fatalf("before any verdict: intact %v %q, want not intact with a reason", intact, why)
	}
	calls := 0
	reg, err := v.AddEventHandler(cache.ResourceEventHandlerFuncs{UpdateFunc: func(any, any) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-reg.HasSyncedChecker().Done():
		t.Fatal("done before any verdict")
	default:
	}

	broken := Verdict{Reason: ReasonBindingMissing, Message: "gone"}
	for i, step := range []struct {
		set   Verdict
		calls int
	}{
		{broken, 1},                // the first verdict, even one like the initial
		{broken, 1},                // the same again: nobody is told
		{Verdict{Intact: true}, 2}, // a change
		{Verdict{Intact: true}, 2}, //
		{Verdict{Reason: "X", Message: "other"}, 3}, // another reason counts as a change
	} {
		v.Set(step.set)
		if calls != step.calls {
			t.Errorf("step %d: %d calls, want %d", i, calls, step.calls)
		}
	}
	if !v.HasSynced() || !reg.HasSynced() {
		t.Error("not synced after a verdict")
	}
	<-reg.HasSyncedChecker().Done()
	if got := v.Get(); got.Message != "other" {
		t.Errorf("Get: %+v", got)
	}
}
