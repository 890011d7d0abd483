// Package bench holds benchmarks against a real etcd and kube-apiserver: they
// print figures and assert no times: on a shared machine, timings are noise for
// a test, figures for a reader.
package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	siminformers "github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The Service IP range is a /16: envtest's default /24 holds 256 Services, and
// every Simulator has one.
// BenchmarkHostile brings its own cluster (STACK_KUBECONFIG): none is started.
func TestMain(m *testing.M) {
	if os.Getenv(stackKubeconfigEnv) != "" {
		os.Exit(m.Run())
	}
	framework.RunMain(m, framework.Options{ExtraAPIServerArgs: map[string][]string{
		"service-cluster-ip-range": {"10.96.0.0/16"},
	}})
}

// BenchmarkSimulators creates N Simulators (SIMULATOR_BENCH_N, default 500) in one
// namespace with the simulator controller running in-process as in the operator
// (clients at ClientQPS/ClientBurst, SIMULATOR_BENCH_WORKERS workers, default
// DefaultWorkers; SIMULATOR_BENCH_QPS sets the client QPS, burst twice that),
// plays the kubelet (marks each Pod Ready as soon as it exists:
// envtest runs no kubelet), and reports the time until all Pods exist, until all
// Simulators are Available, and the controller's API requests per Simulator:
//
//	KUBEBUILDER_ASSETS=$PWD/_output/controlplane/bin go test ./test/bench/ -run '^$' -bench BenchmarkSimulators -benchtime 1x -timeout 30m
//
// SIMULATOR_BENCH_N is a comma-separated list of counts (default 500), each a
// sub-benchmark simulators=N.
func BenchmarkSimulators(b *testing.B) {
	counts, err := simulatorCounts(os.Getenv("SIMULATOR_BENCH_N"))
	if err != nil {
		b.Fatalf("SIMULATOR_BENCH_N: %v", err)
	}
	if len(counts) == 0 {
		counts = []int{500}
	}
	workers := envInt(b, "SIMULATOR_BENCH_WORKERS", simulatorcontroller.DefaultWorkers)
	qps := envInt(b, "SIMULATOR_BENCH_QPS", simulatorcontroller.ClientQPS)
	env := framework.Shared(b)
	for _, n := range counts {
		b.Run(fmt.Sprintf("simulators=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchOnce(b, env, n, workers, qps)
			}
		})
	}
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// watcher sees, through its own informers, the first Pod of each Simulator
// (handing it to the kubelet) and each Simulator's first Available status.
type watcher struct {
	n                     int64
	pods, available       atomic.Int64
	allPods, allAvailable chan struct{}
	seenPods, seenSims    sync.Map
	kubelet               chan *corev1.Pod
}

func (w *watcher) onPod(obj interface{}) {
	pod := obj.(*corev1.Pod)
	if _, dup := w.seenPods.LoadOrStore(pod.Labels[simulatorrender.SimulatorLabel], true); dup {
		return
	}
	w.kubelet <- pod
	if w.pods.Add(1) == w.n {
		close(w.allPods)
	}
}

func (w *watcher) onSimulator(obj interface{}) {
	sim := obj.(*simv1alpha1.Simulator)
	if sim.Status.Phase != simv1alpha1.SimulatorAvailable {
		return
	}
	if _, dup := w.seenSims.LoadOrStore(sim.Name, true); !dup && w.available.Add(1) == w.n {
		close(w.allAvailable)
	}
}

func ready() corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue},
	}}
}

func benchOnce(b *testing.B, env *framework.Env, n, workers, qps int) {
	// Cancelling stops the test's informers and kubelet (before the namespace is
	// deleted, at cleanup).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := env.CreateNamespace(b, "sim-bench")
	fast := rest.CopyConfig(env.Config)
	fast.QPS, fast.Burst = 2000, 4000
	admin := framework.MustClients(b, fast)

	w := &watcher{n: int64(n), allPods: make(chan struct{}), allAvailable: make(chan struct{}), kubelet: make(chan *corev1.Pod, n)}
	podInformers := informers.NewSharedInformerFactoryWithOptions(admin.Kube, 0, informers.WithNamespace(ns))
	_, _ = podInformers.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: w.onPod})
	simWatch := siminformers.NewSharedInformerFactoryWithOptions(admin.Operator, 0, siminformers.WithNamespace(ns))
	_, _ = simWatch.Simulation().V1alpha1().Simulators().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: w.onSimulator, UpdateFunc: func(_, obj interface{}) { w.onSimulator(obj) }})
	podInformers.Start(ctx.Done())
	simWatch.Start(ctx.Done())
	podInformers.WaitForCacheSync(ctx.Done())
	simWatch.WaitForCacheSync(ctx.Done())
	for i := 0; i < 8; i++ {
		go func() {
			for {
				select {
				case pod := <-w.kubelet:
					pod = pod.DeepCopy()
					pod.Status = ready()
					if _, err := admin.Kube.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil && ctx.Err() == nil {
						b.Errorf("marking %s ready: %v", pod.Name, err)
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}

	counter, recorder := framework.RunSimulatorController(b, env.Config, ns, workers, qps)
	time.Sleep(time.Second) // the controller's informers synced
	counter.Reset()

	b.ResetTimer()
	start := time.Now()
	names := make(chan string, n)
	for i := 0; i < n; i++ {
		names <- fmt.Sprintf("sim-%04d", i)
	}
	close(names)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				sim := &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}
				if _, err := admin.Operator.SimulationV1alpha1().Simulators(ns).Create(ctx, sim, metav1.CreateOptions{}); err != nil {
					b.Errorf("creating %s: %v", name, err)
				}
			}
		}()
	}
	wg.Wait()
	created := time.Since(start)
	timeout := time.After(20 * time.Minute)
	select {
	case <-w.allPods:
	case <-timeout:
		b.Fatalf("only %d of %d Pods after 20 minutes", w.pods.Load(), n)
	}
	podsAt := time.Since(start)
	select {
	case <-w.allAvailable:
	case <-timeout:
		b.Fatalf("only %d of %d Simulators Available after 20 minutes", w.available.Load(), n)
	}
	availableAt := time.Since(start)
	b.StopTimer()

	change := timeOneChange(ctx, b, admin, ns, "sim-0000")

	counts := counter.Counts()
	total := 0
	for _, c := range counts {
		total += c
	}
	events := len(recorder.Events())
	counter.Reset()
	time.Sleep(3 * time.Second)
	idle := counter.Counts()

	perSim := float64(total) / float64(n)
	b.ReportMetric(podsAt.Seconds(), "s-all-pods")
	b.ReportMetric(availableAt.Seconds(), "s-all-available")
	b.ReportMetric(perSim, "requests/simulator")
	b.ReportMetric(float64(change.Microseconds())/1000, "ms-one-change")
	b.Logf("N=%d workers=%d client QPS/burst=%d/%d: %d Simulators created in %s; all Pods exist after %s; all Available after %s",
		n, workers, qps, 2*qps, n, created.Round(time.Millisecond),
		podsAt.Round(time.Millisecond), availableAt.Round(time.Millisecond))
	b.Logf("controller requests until all Available: %d (%.2f per Simulator), by verb %v; %d events (%.2f per Simulator; in-memory recorder, not sent)",
		total, perSim, counts, events, float64(events)/float64(n))
	b.Logf("controller requests in the 3 s after: %v", idle)
}

// timeOneChange changes one Simulator's image while all the others exist, and
// times until its new Pod is created, seen through a watch opened before the
// change.
func timeOneChange(ctx context.Context, b *testing.B, admin *framework.Clients, ns, name string) time.Duration {
	b.Helper()
	pods := admin.Kube.CoreV1().Pods(ns)
	selector := simulatorrender.SimulatorLabel + "=" + name
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		b.Fatal(err)
	}
	w, err := pods.Watch(ctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: list.ResourceVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	const image = "example.com/simulator:changed"
	sim, err := admin.Operator.SimulationV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	sim.Spec.Image = image
	start := time.Now()
	if _, err := admin.Operator.SimulationV1alpha1().Simulators(ns).Update(ctx, sim, metav1.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	timeout := time.After(time.Minute)
	for {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				b.Fatal("the watch of the changed Simulator's Pods ended")
			}
			if pod, isPod := e.Object.(*corev1.Pod); isPod && e.Type == watch.Added && pod.Spec.Containers[0].Image == image {
				return time.Since(start)
			}
		case <-timeout:
			b.Fatalf("no new Pod for %s a minute after its change", name)
		}
	}
}
