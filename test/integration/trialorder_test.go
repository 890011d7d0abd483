package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// TestTrialReplaysInOrder: every arm's real kube-scheduler takes the replayed
// pods in the order the snapshot gives them, not in the order of their keys
// (which a scheduler's first list follows) nor at random. Five nodes take one
// of ten equal pods each, so the five bound must be the first five of the
// replay order; the replay order is the reverse of the keys' order, and a
// random order would bind exactly those five once in 252 trials. The arms
// run one at a time (trial.Options.ArmsAtOnce), and no two sandboxes may run
// at once.
func TestTrialReplaysInOrder(t *testing.T) {
	const scheduler = "trial-order"
	snap := &trial.Snapshot{Namespaces: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "order"}}}}
	for i := range 5 {
		snap.Nodes = append(snap.Nodes, cpuNode(fmt.Sprintf("n%d", i)))
	}
	for i := 9; i >= 0; i-- {
		snap.Replay = append(snap.Replay, cpuPod("order", fmt.Sprintf("p%02d", i), scheduler, "3"))
	}
	var counted *countingRuntime
	r := sameConfigTrial(t, snap, scheduler, func(o *trial.Options) {
		counted = &countingRuntime{StorageRuntime: o.Runtime.(trial.StorageRuntime)}
		o.Runtime, o.ArmsAtOnce = counted, 1
	})
	for _, a := range []trial.ArmReport{r.Current, r.Candidate, r.Rerun} {
		if !strings.HasPrefix(a.Settled, "done when the scheduler had nothing left to try") {
			t.Errorf("the %s arm ended %q, want it judged by its scheduler's metrics", a.Name, a.Settled)
		}
	}
	if counted.most != 1 || counted.started != 3 {
		t.Errorf("%d sandboxes started, at most %d at once; want 3, one at a time", counted.started, counted.most)
	}
	for _, p := range r.Comparison.Pods {
		first := p.Pod >= "order/p05"
		for arm, placed := range map[string]trial.Placement{"current": p.Current, "candidate": p.Candidate, "rerun": p.Rerun} {
			if bound := placed.Node != ""; bound != first {
				t.Errorf("%s: the %s arm placed it %+v; want the first five of the replay order (p09..p05) bound and the rest unschedulable", p.Pod, arm, placed)
			}
		}
	}
	if len(r.Comparison.Pods) != len(snap.Replay) {
		t.Errorf("the comparison holds %d pods, want %d", len(r.Comparison.Pods), len(snap.Replay))
	}
}

// countingRuntime counts the sandboxes it started and the most that ran at once.
type countingRuntime struct {
	trial.StorageRuntime
	mu                     sync.Mutex
	running, most, started int
}

func (c *countingRuntime) StartStored(ctx context.Context, arm trial.Arm, objects trial.StoredObjects) (trial.StorageSandbox, error) {
	c.mu.Lock()
	c.running++
	c.started++
	c.most = max(c.most, c.running)
	c.mu.Unlock()
	sb, err := c.StorageRuntime.StartStored(ctx, arm, objects)
	if err != nil {
		c.stopped()
		return nil, err
	}
	// The local runtime's sandboxes serve their scheduler's metrics, by
	// which an arm is judged done.
	return countedSandbox{meteredSandbox: sb.(meteredSandbox), stopped: c.stopped}, nil
}

func (c *countingRuntime) stopped() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running--
}

type meteredSandbox interface {
	trial.StorageSandbox
	trial.SchedulerMetrics
}

type countedSandbox struct {
	meteredSandbox
	stopped func()
}

func (s countedSandbox) Stop(ctx context.Context) error {
	defer s.stopped()
	return s.meteredSandbox.Stop(ctx)
}
