package integration

import (
	"fmt"
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
// random order would bind exactly those five once in 252 trials.
func TestTrialReplaysInOrder(t *testing.T) {
	const scheduler = "trial-order"
	snap := &trial.Snapshot{Namespaces: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "order"}}}}
	for i := range 5 {
		snap.Nodes = append(snap.Nodes, cpuNode(fmt.Sprintf("n%d", i)))
	}
	for i := 9; i >= 0; i-- {
		snap.Replay = append(snap.Replay, cpuPod("order", fmt.Sprintf("p%02d", i), scheduler, "3"))
	}
	r := sameConfigTrial(t, snap, scheduler)
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
