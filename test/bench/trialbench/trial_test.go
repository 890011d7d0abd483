// Package trialbench measures a trial (pkg/trial) on a synthetic snapshot: the
// time from the start to the verdict and its parts. It prints figures and
// asserts no time.
package trialbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const schedulerName = "secondary-scheduler"

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

// benchSizes are the trial's sizes: nodes, bound pods, replayed pods.
type benchSize struct{ nodes, pods, replay int }

// defaultSizes are what a bench run measures unless TRIAL_BENCH_SIZES names others.
const defaultSizes = "500/5000/200,2000/30000/500,5000/100000/1000"

func sizes(b *testing.B) []benchSize {
	spec := os.Getenv("TRIAL_BENCH_SIZES")
	if spec == "" {
		spec = defaultSizes
	}
	var out []benchSize
	for _, f := range strings.Split(spec, ",") {
		var s benchSize
		if _, err := fmt.Sscanf(strings.TrimSpace(f), "%d/%d/%d", &s.nodes, &s.pods, &s.replay); err != nil {
			b.Fatalf("TRIAL_BENCH_SIZES: %q is not NODES/PODS/REPLAY: %v", f, err)
		}
		out = append(out, s)
	}
	return out
}

// BenchmarkTrial runs one trial per size and seeding, LeastAllocated against
// MostAllocated, on a synthetic snapshot read from a file (as `trial
// --snapshot FILE` reads it), and prints the time from the start to the
// verdict and its parts, each sandbox's peak RSS (etcd, kube-apiserver, scheduler) and
// the heap this process added (after a GC) for the snapshot and, at most,
// during the trial. TRIAL_BENCH_SIZES is a comma-separated list of
// NODES/PODS/REPLAY (default defaultSizes), TRIAL_BENCH_SEEDING one of
// storage (the objects written into the sandbox's etcd, the default) and
// api (created through its API, as a runtime without storage seeding does),
// TRIAL_BENCH_ARMS_AT_ONCE how many arms run at once (trial.Options.ArmsAtOnce,
// default all three; 1 gives each arm the machine to itself, as the operator's
// trial Pods on nodes of their own have, and s-slowest-arm is then what an
// arm alone takes):
//
//	go test ./test/bench/trialbench/ -run '^$' -bench BenchmarkTrial -benchtime 1x -timeout 60m
func BenchmarkTrial(b *testing.B) {
	bin := framework.Binary(b, "kube-scheduler")
	seedings := strings.Split(os.Getenv("TRIAL_BENCH_SEEDING"), ",")
	if seedings[0] == "" {
		seedings = []string{"storage"}
	}
	atOnce := 0
	if v := os.Getenv("TRIAL_BENCH_ARMS_AT_ONCE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 3 {
			b.Fatalf("TRIAL_BENCH_ARMS_AT_ONCE: %q is not 1, 2 or 3", v)
		}
		atOnce = n
	}
	for _, seeding := range seedings {
		if seeding != "storage" && seeding != "api" {
			b.Fatalf("TRIAL_BENCH_SEEDING: %q is neither storage nor api", seeding)
		}
		for _, size := range sizes(b) {
			name := fmt.Sprintf("seeding=%s/pods=%d", seeding, size.pods)
			printTargets("BenchmarkTrial/"+name, size, seeding, atOnce)
			b.Run(name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					runTrial(b, bin, size, seeding, atOnce)
				}
			})
		}
	}
}

// printTargets prints the targets of one run: every trial within the
// operator's default timeout; with storage seeding, the verdict within 10 s
// at 500 nodes and within 60 s at 5,000 (of an arm alone when the arms run
// one at a time: what trial Pods on nodes of their own take), and the heap
// added under 64 MiB at 100,000 pods.
func printTargets(name string, size benchSize, seeding string, atOnce int) {
	fmt.Printf("# target: %s s-to-verdict < %d\n", name, int(trialTimeout.Seconds()))
	if seeding != "storage" {
		return
	}
	metric := "s-to-verdict"
	if atOnce == 1 {
		metric = "s-slowest-arm"
	}
	switch size.nodes {
	case 500:
		fmt.Printf("# target: %s %s < 10\n", name, metric)
	case 5000:
		fmt.Printf("# target: %s %s < 60\n", name, metric)
	}
	if size.pods >= 100000 {
		fmt.Printf("# target: %s MiB-heap-trial < 64\n", name)
	}
}

// apiOnly hides a runtime's storage seeding (trial.StorageRuntime): its
// sandboxes are seeded through their API, as a runtime without it is.
type apiOnly struct{ trial.Runtime }

// trialTimeout is the operator's default trial timeout, from start to verdict.
const trialTimeout = 300 * time.Second

func runTrial(b *testing.B, bin string, size benchSize, seeding string, atOnce int) {
	file := filepath.Join(b.TempDir(), "snapshot.json.gz")
	if err := writeSynthetic(file, size); err != nil {
		b.Fatal(err)
	}
	base := heapAfterGC()
	start := time.Now()
	snap, err := readSnapshot(file)
	if err != nil {
		b.Fatal(err)
	}
	snapshotTime, snapshotHeap := time.Since(start), heapAfterGC()-base
	var (
		mu        sync.Mutex
		peaks     = map[string]sandboxPeaks{}
		trialHeap uint64
	)
	inspect := func(arm string, cfg *rest.Config) error {
		p, err := peaksOf(cfg.Host)
		mu.Lock()
		defer mu.Unlock()
		peaks[arm] = p
		trialHeap = max(trialHeap, heapAfterGC()-base)
		return err
	}
	var rt trial.Runtime = &local.Runtime{BinDir: filepath.Dir(bin), Dir: b.TempDir()}
	if seeding == "api" {
		rt = apiOnly{rt}
	}
	r, err := trial.Run(context.Background(), trial.Options{Snapshot: snap, Runtime: rt,
		Current:   trial.Arm{Name: "current", Binary: bin, Config: framework.ScoringConfig(schedulerName, "LeastAllocated")},
		Candidate: trial.Arm{Name: "candidate", Binary: bin, Config: framework.ScoringConfig(schedulerName, "MostAllocated")},
		Inspect:   inspect, ArmsAtOnce: atOnce})
	if err != nil {
		b.Fatal(err)
	}
	for _, a := range []trial.ArmReport{r.Current, r.Candidate, r.Rerun} {
		b.Logf("%s: start %s, seed %s (%s), schedule %s (%s)", a.Name, a.Start.Round(time.Millisecond), a.Seed.Round(time.Millisecond), a.Fence,
			a.Schedule.Round(time.Millisecond), a.Settled)
	}
	report(b, size, r, snapshotTime, snapshotHeap, trialHeap, peaks)
}

func report(b *testing.B, size benchSize, r *trial.Report, snapshotTime time.Duration, snapshotHeap, trialHeap uint64, peaks map[string]sandboxPeaks) {
	t := r.Timings
	total := snapshotTime + t.Total
	b.ReportMetric(total.Seconds(), "s-to-verdict")
	b.ReportMetric(snapshotTime.Seconds(), "s-snapshot")
	b.ReportMetric(t.Start.Seconds(), "s-start")
	b.ReportMetric(t.Seed.Seconds(), "s-seed")
	b.ReportMetric(t.Schedule.Seconds(), "s-schedule")
	b.ReportMetric(t.Compare.Seconds(), "s-compare")
	var slowest time.Duration
	for _, a := range []trial.ArmReport{r.Current, r.Candidate, r.Rerun} {
		slowest = max(slowest, a.Start+a.Seed+a.Schedule)
	}
	b.ReportMetric(slowest.Seconds(), "s-slowest-arm")
	var etcd, apiserver, scheduler int64
	for _, p := range peaks {
		etcd, apiserver, scheduler = max(etcd, p.etcd), max(apiserver, p.apiserver), max(scheduler, p.scheduler)
	}
	b.ReportMetric(mib(etcd), "MiB-etcd-peak")
	b.ReportMetric(mib(apiserver), "MiB-apiserver-peak")
	b.ReportMetric(mib(scheduler), "MiB-scheduler-peak")
	b.ReportMetric(mib(int64(snapshotHeap)), "MiB-heap-snapshot")
	b.ReportMetric(mib(int64(trialHeap)), "MiB-heap-trial")
	fmt.Printf("# note: pods=%d is %d nodes, %d bound pods, %d replayed: verdict after %s (snapshot read %s, sandbox start %s, seed %s, schedule %s, compare %s); "+
		"peak RSS per sandbox: %s; heap added: %.1f MiB by the snapshot, %.1f MiB at most during the trial (after a GC); %s\n",
		size.pods, size.nodes, size.pods, size.replay, total.Round(time.Millisecond), snapshotTime.Round(time.Millisecond), t.Start.Round(time.Millisecond),
		t.Seed.Round(time.Millisecond), t.Schedule.Round(time.Millisecond), t.Compare.Round(time.Millisecond), peakText(peaks),
		mib(int64(snapshotHeap)), mib(int64(trialHeap)), r.Verdict.Message)
	if r.Current.Bound+r.Candidate.Bound != 2*size.replay {
		b.Errorf("bound %d and %d of %d replayed pods: the sizes do not fit the nodes; first unit: %+v", r.Current.Bound, r.Candidate.Bound, size.replay, r.Units[0])
	}
}

func peakText(peaks map[string]sandboxPeaks) string {
	var parts []string
	for _, arm := range []string{"current", "candidate", "rerun"} {
		p := peaks[arm]
		parts = append(parts, fmt.Sprintf("%s etcd %.0f MiB, kube-apiserver %.0f MiB, scheduler %.0f MiB", arm, mib(p.etcd), mib(p.apiserver), mib(p.scheduler)))
	}
	return strings.Join(parts, "; ")
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// heapAfterGC is the live heap once the garbage is collected.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// writeSynthetic writes Synthetic(size) to file as the snapshot command would.
func writeSynthetic(file string, size benchSize) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	snap := Synthetic(size.nodes, size.pods, size.replay)
	if err := trial.WriteSnapshotFile(f, &trial.SnapshotFile{SchedulerNames: []string{schedulerName},
		Replay: trial.ReplayBounds{Pending: size.replay}, Snapshot: snap}); err != nil {
		return err
	}
	return f.Close()
}

func readSnapshot(file string) (*trial.Snapshot, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sf, err := trial.ReadSnapshotFile(f)
	if err != nil {
		return nil, err
	}
	return sf.Snapshot, nil
}
