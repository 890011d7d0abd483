package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// BenchmarkOperatorMemory runs the whole operator in-process (under the RBAC it
// ships), lets it converge, and reports the Go heap after a forced GC:
//
//   - idle: a Managed SecondaryScheduler, nothing else;
//   - foreign: MEMORY_BENCH_FOREIGN (default 1000) pods of the default
//     scheduler in namespaces of their own, and a fifth as many nodes and
//     namespaces: objects the operator does not manage, whose cost should be
//     nothing (heap-B/foreign-object);
//   - simulators=N for each N of MEMORY_BENCH_SIMULATORS (default "300,1000"):
//     N Available Simulators (the benchmark plays their kubelet), and what each
//     costs over idle (heap-B/simulator). With MEMORY_BENCH_ANNOTATION_KIB=K
//     (default 0), each Simulator carries K KiB of annotations, as any user
//     who may edit a Simulator can write (the API server takes up to 256 KiB),
//     and the step is named simulators=N,annotations-KiB=K.
//
// The heap is the process's HeapAlloc after a forced GC, HEAP_SAMPLES times
// (default 5) half a second apart: min, median and max, the test's own
// clients included; operator-heap-MiB and the per-object figures are from the
// median, less the heap before the operator started. A heap
// profile of each step is written to a temporary directory, logged:
//
//	GODEBUG=memprofilerate=16384 KUBEBUILDER_ASSETS=$PWD/_output/controlplane/bin go test -mod=vendor ./test/bench/ -run '^$' -bench BenchmarkOperatorMemory -benchtime 1x -timeout 30m
//	go tool pprof -top -sample_index=inuse_space <logged profile>
func BenchmarkOperatorMemory(b *testing.B) {
	foreign := envInt(b, "MEMORY_BENCH_FOREIGN", 1000)
	annotationKiB := annotationKiB(b)
	counts, err := simulatorCounts(os.Getenv("MEMORY_BENCH_SIMULATORS"))
	if err != nil {
		b.Fatal(err)
	}
	env := framework.Shared(b)
	if runtime.MemProfileRate == defaultMemProfileRate {
		b.Log("heap profiles sample every 512 KiB: run with GODEBUG=memprofilerate=16384 for profiles that name the caches")
	}
	profiles, err := os.MkdirTemp("", "operator-memory-")
	if err != nil {
		b.Fatal(err)
	}
	fast := rest.CopyConfig(env.Config)
	fast.QPS, fast.Burst = 2000, 4000
	admin := framework.MustClients(b, fast)

	base := heapAfterGC()
	counted, counter := framework.CountRequests(env.OperatorConfig(b))
	framework.RunOperator(b, counted)
	env.CreateSecondaryScheduler(b, secondaryschedulerv1.SecondarySchedulerSpec{})
	ctx := context.Background()
	framework.WaitFor(ctx, b, "the operand Deployment", func() (bool, error) {
		_, err := admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
		return err == nil, err
	})
	settle := func(b *testing.B) {
		framework.WaitForStable(ctx, b, 3*time.Second, "the operator's writes", func() (int, error) { return counter.Writes(), nil })
	}
	samples := envInt(b, "HEAP_SAMPLES", 5)
	measure := func(b *testing.B, step string) uint64 {
		var heaps []float64
		for i := range samples {
			if i > 0 {
				time.Sleep(500 * time.Millisecond)
			}
			heaps = append(heaps, float64(heapAfterGC()))
		}
		slices.Sort(heaps)
		heap := uint64(heaps[len(heaps)/2])
		for i := range heaps {
			heaps[i] = mib(uint64(heaps[i]))
		}
		reportSpread(b, "heap", "MiB", heaps)
		b.ReportMetric(mib(heap-min(heap, base)), "operator-heap-MiB")
		path := filepath.Join(profiles, step+".pprof")
		if err := writeHeapProfile(path); err != nil {
			b.Fatal(err)
		}
		b.Logf("heap %.2f MiB (%.2f MiB before the operator started); profile: %s", mib(heap), mib(base), path)
		return heap
	}

	var idle uint64
	b.Run("idle", func(b *testing.B) {
		settle(b)
		idle = measure(b, "idle")
	})
	b.Run("foreign", func(b *testing.B) {
		created := createForeign(b, admin, foreign)
		settle(b)
		heap := measure(b, "foreign")
		b.ReportMetric((float64(heap)-float64(idle))/float64(created), "heap-B/foreign-object")
	})
	ns := env.CreateNamespace(b, "sim-memory")
	// The foreign objects are gone: the heap without Simulators again.
	settle(b)
	none := heapAfterGC()
	for _, n := range counts {
		b.Run(simulatorsStep(n, annotationKiB), func(b *testing.B) {
			runSimulators(b, admin, ns, n, annotationKiB)
			settle(b)
			heap := measure(b, fmt.Sprintf("simulators-%d", n))
			b.ReportMetric((float64(heap)-float64(none))/float64(n), "heap-B/simulator")
		})
	}
}

// annotationKiB is MEMORY_BENCH_ANNOTATION_KIB, 0 when unset.
func annotationKiB(b *testing.B) int {
	if os.Getenv("MEMORY_BENCH_ANNOTATION_KIB") == "" {
		return 0
	}
	return envInt(b, "MEMORY_BENCH_ANNOTATION_KIB", 0)
}

// simulatorsStep names the step of n Simulators with annotationKiB KiB of annotations each.
func simulatorsStep(n, annotationKiB int) string {
	if annotationKiB == 0 {
		return fmt.Sprintf("simulators=%d", n)
	}
	return fmt.Sprintf("simulators=%d,annotations-KiB=%d", n, annotationKiB)
}

// defaultMemProfileRate is the runtime's; the rate can only be set right from
// the start of the process (GODEBUG), else the profile scales early samples wrongly.
const defaultMemProfileRate = 512 * 1024

func simulatorCounts(s string) ([]int, error) {
	if s == "" {
		return []int{300, 1000}, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || (len(out) > 0 && n <= out[len(out)-1]) {
			return nil, fmt.Errorf("MEMORY_BENCH_SIMULATORS=%q: want increasing positive integers, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func heapAfterGC() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// createForeign creates n pending pods of the default scheduler, n/5 nodes and
// n/5 namespaces (the pods spread over them), none of them the operator's,
// and returns how many objects it made. They are deleted when b ends.
func createForeign(b *testing.B, admin *framework.Clients, n int) int {
	ctx := context.Background()
	kube := admin.Kube
	spaces := max(n/5, 1)
	name := func(i int) string { return fmt.Sprintf("foreign-%04d", i) }
	// Not Env.CreateNamespace: its cleanup lists every resource of every
	// namespace, thousands of requests here; these hold only pods.
	b.Cleanup(func() {
		parallel(b, spaces, func(i int) error {
			grace := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
			errs := []error{
				kube.CoreV1().Nodes().Delete(ctx, name(i), metav1.DeleteOptions{}),
				kube.CoreV1().Pods(name(i)).DeleteCollection(ctx, grace, metav1.ListOptions{}),
				kube.CoreV1().Namespaces().Delete(ctx, name(i), metav1.DeleteOptions{}),
			}
			if _, err := kube.CoreV1().Namespaces().Finalize(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name(i)}}, metav1.UpdateOptions{}); err != nil {
				errs = append(errs, err)
			}
			for _, err := range errs {
				if err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
			return nil
		})
	})
	parallel(b, spaces, func(i int) error {
		_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name(i)}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		_, err = kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name(i),
			Labels: map[string]string{corev1.LabelHostname: name(i)}}}, metav1.CreateOptions{})
		return err
	})
	parallel(b, n, func(i int) error {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name(i), Namespace: name(i % spaces),
				Labels: map[string]string{"app": "foreign"}, Annotations: map[string]string{"note": strings.Repeat("x", 200)}},
			Spec: corev1.PodSpec{
				AutomountServiceAccountToken: ptr.To(false),
				Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
					Env: []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}}},
			},
		}
		_, err := kube.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		return err
	})
	return n + 2*spaces
}

// runSimulators makes n Simulators exist in ns, each with annotationKiB KiB
// of annotations, marks each one's Pod Ready as a kubelet would (envtest runs
// none), and waits until the operator counts all of them Available.
func runSimulators(b *testing.B, admin *framework.Clients, ns string, n, annotationKiB int) {
	ctx := context.Background()
	sims := admin.Operator.SimulationV1alpha1().Simulators(ns)
	var annotations map[string]string
	if annotationKiB > 0 {
		annotations = map[string]string{"example.com/notes": strings.Repeat("x", annotationKiB<<10)}
	}
	parallel(b, n, func(i int) error {
		_, err := sims.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sim-%04d", i), Annotations: annotations}},
			metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	framework.WaitForWithin(ctx, b, 20*time.Minute, fmt.Sprintf("%d Simulators Available", n), func() (bool, error) {
		if err := markPodsReady(ctx, admin, ns); err != nil {
			return false, err
		}
		// The operator's own count (its metric, from its cache): listing the
		// Simulators here would decode all their annotations in this process.
		available, err := availableSimulators()
		if err != nil {
			return false, err
		}
		if available < n {
			return false, fmt.Errorf("%d of %d Available", available, n)
		}
		return true, nil
	})
}

// availableSimulators is the operator's secondary_scheduler_operator_simulators{phase="Available"}.
func availableSimulators() (int, error) {
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		return 0, err
	}
	for _, f := range families {
		if f.GetName() != "secondary_scheduler_operator_simulators" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "phase" && l.GetValue() == "Available" {
					return int(m.GetGauge().GetValue()), nil
				}
			}
		}
	}
	return 0, fmt.Errorf("no secondary_scheduler_operator_simulators{phase=\"Available\"}")
}

func markPodsReady(ctx context.Context, admin *framework.Clients, ns string) error {
	pods, err := admin.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: simulatorrender.SimulatorLabel})
	if err != nil {
		return err
	}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range pods.Items {
		pod := &pods.Items[i]
		if framework.PodReady(pod) {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			pod.Status = ready()
			if _, err := admin.Kube.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// parallel runs do(0..n-1) on 16 goroutines and fails b with the first error.
func parallel(b *testing.B, n int, do func(i int) error) {
	b.Helper()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		b.Fatal(first)
	}
}
