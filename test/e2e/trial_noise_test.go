package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The A/A trial: noiseNodes equal nodes (kwok's, as the stack makes them) and
// noiseReplay equal pending pods. Every pod then has many nodes of the same
// best score, among which kube-scheduler picks at random: the worst case of
// tie-break noise.
const (
	noiseNodes  = 50
	noiseReplay = 250
	// noiseBound is the share of units a change that changes nothing may
	// still count as moved by the change: those the two current runs placed
	// alike by chance, about 1 in noiseNodes (2%, 5 of 250 units).
	noiseBound = 5.0
)

// TestTrialTieBreakNoise runs, with the local runtime and the real
// kube-scheduler, the trial of a change that changes nothing the scheduler
// decides: percentageOfNodesToScore 10 on 50 nodes, fewer than the 100 that
// kube-scheduler scores whatever the percentage. Nearly every pod moves
// between the current and the candidate run; at most noiseBound percent of
// the units may count as moved by the change, and a gate of that bound allows
// it. `go test -count=N` repeats the measurement; each run logs its figures.
func TestTrialTieBreakNoise(t *testing.T) {
	bin := framework.Binary(t, "kube-scheduler")
	current := trial.Arm{Name: "current", Binary: bin, Config: defaultProfile("")}
	candidate := trial.Arm{Name: "candidate", Binary: bin, Config: defaultProfile("percentageOfNodesToScore: 10\n")}
	start := time.Now()
	r, err := trial.Run(context.Background(), trial.Options{Snapshot: equalNodes(noiseNodes, noiseReplay),
		Runtime: local.New(filepath.Dir(bin), t.TempDir()), Current: current, Candidate: candidate,
		Timeout: 3 * time.Minute, Gate: trial.Gate{MaxMovedPercent: ptr.To(noiseBound)}})
	if err != nil {
		t.Fatalf("the trial: %v", err)
	}
	n := r.Counts
	t.Logf("A/A trial of %d pods on %d equal nodes after %s: raw moved %d (%.1f%%), moved by the change %d (%.1f%%), tie-break noise %d; %s",
		noiseReplay, noiseNodes, time.Since(start).Round(100*time.Millisecond), n.Moved, n.MovedPercent(),
		n.MovedByChange, n.MovedByChangePercent(), n.TieBreakNoise, r.Verdict.Message)
	if n.Same+n.Moved != noiseReplay {
		t.Fatalf("counts %+v: want all %d pods placed by both arms, or the figures prove nothing", n, noiseReplay)
	}
	if n.MovedPercent() < 50 {
		t.Errorf("only %.1f%% moved at all: the nodes were not equal enough to measure tie-break noise", n.MovedPercent())
	}
	if p := n.MovedByChangePercent(); p > noiseBound || !r.Verdict.Allowed {
		t.Errorf("%.1f%% counted as moved by a change that changes nothing, want at most %g%%; verdict %+v", p, noiseBound, r.Verdict)
	}
	for _, s := range r.Spread {
		if s.Current != s.Candidate || s.Current != s.Rerun {
			t.Errorf("node %s holds %d, %d and %d replayed pods in the current, candidate and rerun arms: want the same count, the nodes being equal",
				s.Node, s.Current, s.Candidate, s.Rerun)
		}
	}
}

// defaultProfile is a configuration of the default plugins for the profile
// secondary-scheduler, with extra top-level settings.
func defaultProfile(extra string) []byte {
	return []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + extra +
		"profiles:\n- schedulerName: secondary-scheduler\n")
}

// equalNodes is a snapshot of nodes kwok nodes of 32 CPUs and 128Gi, alike
// but for their names, and replay pending pods of 2 CPUs and 8Gi: the same
// share of each resource, so that each pod lowers a node's score by a whole
// step and the ties are among nodes that hold as many pods.
func equalNodes(nodes, replay int) *trial.Snapshot {
	s := &trial.Snapshot{Namespaces: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "work"}}}}
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("128Gi"),
		corev1.ResourcePods: resource.MustParse("110")}
	for i := range nodes {
		name := fmt.Sprintf("kwok-node-%d", i)
		s.Nodes = append(s.Nodes, corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "type": "kwok"},
				Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		})
	}
	requests := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}
	for i := range replay {
		s.Replay = append(s.Replay, corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: fmt.Sprintf("pending-%03d", i)},
			Spec: corev1.PodSpec{SchedulerName: "secondary-scheduler", Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: requests}}}}})
	}
	return s
}
