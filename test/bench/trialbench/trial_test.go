// Package trialbench measures a trial (pkg/trial) on a synthetic snapshot: the
// time from the start to the verdict and its parts. It prints figures and
// asserts no time.
package trialbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const schedulerName = "secondary-scheduler"

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return n
}

// Synthetic is a snapshot of nodes nodes in 3 zones, pods bound pods spread
// round-robin and replay pending pods, each pod asking for 100m-1000m CPU and
// 128-1024 MiB.
func Synthetic(nodes, pods, replay int) *trial.Snapshot {
	s := &trial.Snapshot{Namespaces: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "work"}}}}
	for i := 0; i < nodes; i++ {
		capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("128Gi"),
			corev1.ResourcePods: resource.MustParse("110")}
		s.Nodes = append(s.Nodes, corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("node-%04d", i), Labels: map[string]string{
				"kubernetes.io/hostname": fmt.Sprintf("node-%04d", i), "topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3)}},
			Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		})
	}
	pod := func(name, node string, i int) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: name, Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%20)}},
			Spec: corev1.PodSpec{SchedulerName: schedulerName, NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "app:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    *resource.NewMilliQuantity(int64(100+(i*37)%900), resource.DecimalSI),
					corev1.ResourceMemory: *resource.NewQuantity(int64(128+(i*53)%896)<<20, resource.BinarySI)}}}}}}
	}
	for i := 0; i < pods; i++ {
		// Uneven: the first nodes are fuller, so the two strategies disagree.
		p := pod(fmt.Sprintf("bound-%05d", i), s.Nodes[(i*i)%nodes].Name, i)
		if _, err := s.Pods.Add(p); err != nil {
			panic(err)
		}
	}
	for i := 0; i < replay; i++ {
		s.Replay = append(s.Replay, pod(fmt.Sprintf("replay-%04d", i), "", i))
	}
	return s
}

// BenchmarkTrial runs one trial, LeastAllocated against MostAllocated, on a
// synthetic snapshot (TRIAL_BENCH_NODES, _PODS, _REPLAY; default 500, 5,000,
// 200) and prints the time to the verdict and its parts:
//
//	go test ./test/bench/trialbench/ -run '^$' -bench BenchmarkTrial -benchtime 1x -timeout 20m
func BenchmarkTrial(b *testing.B) {
	bin := framework.Binary(b, "kube-scheduler")
	nodes, pods, replay := envInt(b, "TRIAL_BENCH_NODES", 500), envInt(b, "TRIAL_BENCH_PODS", 5000), envInt(b, "TRIAL_BENCH_REPLAY", 200)
	snap := Synthetic(nodes, pods, replay)
	fmt.Println("# target: BenchmarkTrial s-to-verdict < 60")
	for i := 0; i < b.N; i++ {
		r, err := trial.Run(context.Background(), trial.Options{Snapshot: snap, Runtime: &local.Runtime{BinDir: filepath.Dir(bin), Dir: b.TempDir()},
			Current:   trial.Arm{Name: "current", Binary: bin, Config: framework.ScoringConfig(schedulerName, "LeastAllocated")},
			Candidate: trial.Arm{Name: "candidate", Binary: bin, Config: framework.ScoringConfig(schedulerName, "MostAllocated")}})
		if err != nil {
			b.Fatal(err)
		}
		t := r.Timings
		b.ReportMetric(t.Total.Seconds(), "s-to-verdict")
		b.ReportMetric(t.Seed.Seconds(), "s-seed")
		b.ReportMetric(t.Schedule.Seconds(), "s-schedule")
		fmt.Printf("trial of %d nodes, %d bound pods, %d replayed: verdict after %s (sandbox start %s, seed %s, schedule %s, compare %s); %s\n",
			nodes, pods, replay, t.Total, t.Start, t.Seed, t.Schedule, t.Compare, r.Verdict.Message)
		if r.Current.Bound+r.Candidate.Bound != 2*replay {
			b.Errorf("bound %d and %d of %d replayed pods: the sizes do not fit the nodes; first unit: %+v", r.Current.Bound, r.Candidate.Bound, replay, r.Units[0])
		}
	}
}
