package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/bench/hostile"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The cluster BenchmarkHostile runs against, set by hack/bench-hostile.sh.
const (
	stackKubeconfigEnv = "STACK_KUBECONFIG"      // an administrator's kubeconfig
	stackOperatorEnv   = "STACK_OPERATOR_URL"    // https://ADDRESS of the operator's --listen
	stackPIDEnv        = "STACK_OPERATOR_PID"    // the operator process
	stackBinaryEnv     = "STACK_OPERATOR_BINARY" // the operator binary, which serves render and diff too
	stackCtlEnv        = "STACK_CTL_BINARY"      // secondary-scheduler-ctl, for render and diff
)

// BenchmarkHostile runs against the operator binary as a host process on the
// full local stack (hack/bench-hostile.sh starts both; the SecondaryScheduler
// exists), and measures what hostile users and inputs cost it:
//
//   - load: HOSTILE_SIMULATORS (2000) Simulators in one namespace, each with
//     HOSTILE_ANNOTATION_KIB (250) KiB of annotations, and HOSTILE_FOREIGN
//     (2000) NetworkPolicies and as many Pods in 20 other namespaces that carry
//     the labels the operator selects its own objects by. Then the heap after
//     a GC (HEAP_SAMPLES, 5, a second apart), the RSS and its peak, and the
//     SecondaryScheduler change to pod template reaction
//     (REACTION_BENCH_SAMPLES, 100) with that load in place, beside the
//     API server's own time for each reaction's two writes (the CR's and the
//     Deployment's) and the target-config controller's syncs and queue waits;
//   - oversized-specs: HOSTILE_OVERSIZED_SPECS (200) Simulators more, whose
//     podTemplate annotations hold HOSTILE_ANNOTATION_KIB KiB: the heap once
//     the operator counts them all Pending, and the Pods it created for them
//     (none); they are deleted after;
//   - configmap=CASE/controller, before the load: each hostile.Cases
//     configuration written into the user's ConfigMap, timed to the
//     SecondaryScheduler's Degraded (HOSTILE_CONFIG_SAMPLES, 10), with the
//     bytes the operator allocated and the CPU time it used meanwhile
//     (reading /metrics included), the API server's own time for the
//     ConfigMap writes and the operator's status applies, and the
//     target-config controller's syncs and queue waits;
//     configmap=CASE/apiserver for those the API server refuses;
//     configmap=CASE/controller-under-load and /apiserver-under-load: the
//     same with the load in place;
//   - configmap=CASE/render and /diff, before the load: secondary-scheduler-ctl's
//     wall time, peak RSS and CPU time (/usr/bin/time) refusing it, and the
//     memory it was charged in a cgroup limited to 64 MiB, beside those of a
//     valid input; /operator-render and /operator-diff: the same commands of
//     the operator binary, which start slower (its controllers' packages
//     initialise too); /render-under-load and /diff-under-load: ctl's again,
//     with the load in place;
//   - rbac-rule-100-items/apiserver, before the load, and
//     /apiserver-under-load: a spec.rbac rule with 100 items in each list,
//     refused by the API server (the CRD's maxItems), beside an update that
//     changes nothing;
//   - unserved/pods=N: HOSTILE_PENDING_PODS (10000) pending pods, each with a
//     schedulerName of its own, and the series of unserved_pods that follow.
//
// It prints figures and fails only when something cannot be measured, or the
// operator process is gone.
func BenchmarkHostile(b *testing.B) {
	kubeconfig := os.Getenv(stackKubeconfigEnv)
	if kubeconfig == "" {
		b.Skipf("%s is not set: hack/bench-hostile.sh runs this against the local stack", stackKubeconfigEnv)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	admin := framework.MustClients(b, cfg)
	pid, err := strconv.Atoi(os.Getenv(stackPIDEnv))
	if err != nil {
		b.Fatalf("%s: %v", stackPIDEnv, err)
	}
	op, err := newOperatorProcess(cfg, os.Getenv(stackOperatorEnv), pid)
	if err != nil {
		b.Fatal(err)
	}
	heapSamples := envInt(b, "HEAP_SAMPLES", 5)
	sims, annotationKiB := envInt(b, "HOSTILE_SIMULATORS", 2000), envInt(b, "HOSTILE_ANNOTATION_KIB", 250)
	foreign, pending := envInt(b, "HOSTILE_FOREIGN", 2000), envInt(b, "HOSTILE_PENDING_PODS", 10000)
	oversized := envInt(b, "HOSTILE_OVERSIZED_SPECS", 200)
	start := time.Now()

	b.Run("idle", func(b *testing.B) { op.report(b, heapSamples) })
	// render and diff are what an administrator runs on a machine of their
	// own: timed before the load, which keeps both cores busy with the API
	// server's work, and again under it.
	ctl := commandBinary{"", os.Getenv(stackCtlEnv)}
	timeCommands(b, "", ctl, commandBinary{"operator-", os.Getenv(stackBinaryEnv)})
	// The refusals, first on the stack alone, then again under the load,
	// where the API server's own share of each grows.
	refuseHostileConfigs(b, admin, op, heapSamples, "")
	b.Run("rbac-rule-100-items/apiserver", func(b *testing.B) { refuseLargeRule(b, admin) })
	b.Run(fmt.Sprintf("load/simulators=%d,annotations-KiB=%d,foreign=%d", sims, annotationKiB, foreign), func(b *testing.B) {
		created := time.Now()
		createHostileLoad(b, admin, sims, annotationKiB, foreign)
		waitSimulatorsHandled(b, admin, op, sims)
		b.ReportMetric(time.Since(created).Seconds(), "s-to-all-handled")
		op.report(b, heapSamples)
		simulatorSyncs := op.syncs(b, simulatorcontroller.ControllerName)
		// The two writes of each reaction, as long as the API server took
		// over them: the bench's of the CR, and the operator's of the Deployment.
		crWrites := apiServerShare(b, admin, "apiserver-cr-write", "PATCH", "secondaryschedulers", "")
		deploymentWrites := apiServerShare(b, admin, "apiserver-deployment-write", "PATCH", "deployments", "")
		targetConfig := op.targetConfigShare(b)
		profiled := op.profileDuring(b, os.Getenv("HOSTILE_PROFILE_DIR"), 20)
		report(b, "cr-change-to-template", crChangeToTemplate(b, admin, envInt(b, "REACTION_BENCH_SAMPLES", 100), op.settle(b)))
		profiled()
		crWrites()
		deploymentWrites()
		targetConfig()
		// What else the operator did meanwhile: none unless an informer resync fell in.
		b.ReportMetric(op.syncs(b, simulatorcontroller.ControllerName)-simulatorSyncs, "simulator-syncs")
		b.ReportMetric(float64(foreignLeft(b, admin)), "foreign-objects-left")
	})
	b.Run(fmt.Sprintf("oversized-specs/simulators=%d,template-KiB=%d", oversized, annotationKiB), func(b *testing.B) {
		oversizedSpecs(b, admin, op, oversized, annotationKiB, heapSamples)
	})
	refuseHostileConfigs(b, admin, op, heapSamples, "-under-load")
	timeCommands(b, "-under-load", ctl)
	b.Run("rbac-rule-100-items/apiserver-under-load", func(b *testing.B) { refuseLargeRule(b, admin) })
	b.Run(fmt.Sprintf("unserved/pods=%d", pending), func(b *testing.B) { unservedSeries(b, admin, op, pending, heapSamples) })
	b.Run("end", func(b *testing.B) {
		op.report(b, heapSamples)
		started := op.metric(b, "process_start_time_seconds")
		b.ReportMetric(float64(time.Now().Unix())-started, "operator-uptime-s")
		b.ReportMetric(time.Since(start).Seconds(), "bench-s")
	})
}

// ownLabels are labels matching simulatorcontroller.Selector, the selector
// of the objects the operator makes for Simulators: any namespace user may
// write them.
func ownLabels(b *testing.B) map[string]string {
	sel, err := labels.Parse(simulatorcontroller.Selector)
	if err != nil {
		b.Fatal(err)
	}
	reqs, _ := sel.Requirements()
	out := map[string]string{}
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Exists:
			out[r.Key()] = "not-a-simulator"
		case selection.Equals, selection.DoubleEquals, selection.In:
			out[r.Key()] = r.Values().List()[0]
		}
	}
	return out
}

const (
	hostileSimulators = "hostile-simulators"
	foreignSpaces     = 20
)

func foreignNamespace(i int) string { return fmt.Sprintf("hostile-foreign-%02d", i%foreignSpaces) }

func createHostileLoad(b *testing.B, admin *framework.Clients, sims, annotationKiB, foreign int) {
	ctx := context.Background()
	kube := admin.Kube
	for _, ns := range append([]string{hostileSimulators}, func() (out []string) {
		for i := range foreignSpaces {
			out = append(out, foreignNamespace(i))
		}
		return out
	}()...) {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil &&
			!apierrors.IsAlreadyExists(err) {
			b.Fatal(err)
		}
	}
	notes := map[string]string{"example.com/notes": strings.Repeat("x", annotationKiB<<10)}
	parallel(b, sims, func(i int) error {
		_, err := admin.Operator.SimulationV1alpha1().Simulators(hostileSimulators).Create(ctx,
			&simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sim-%04d", i), Annotations: notes}}, metav1.CreateOptions{})
		return err
	})
	own := ownLabels(b)
	small := map[string]string{"example.com/notes": strings.Repeat("x", 4<<10)}
	parallel(b, foreign, func(i int) error {
		meta := metav1.ObjectMeta{Name: fmt.Sprintf("foreign-%04d", i), Namespace: foreignNamespace(i), Labels: own, Annotations: small}
		if _, err := kube.NetworkingV1().NetworkPolicies(meta.Namespace).Create(ctx, &networkingv1.NetworkPolicy{ObjectMeta: meta}, metav1.CreateOptions{}); err != nil {
			return err
		}
		// Pending for good: no node has the label.
		_, err := kube.CoreV1().Pods(meta.Namespace).Create(ctx, &corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false), NodeSelector: map[string]string{"example.com/none": "none"},
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		}}, metav1.CreateOptions{})
		return err
	})
}

const hostileTemplates = "hostile-templates"

// oversizedSpecs creates n Simulators, beside the load, whose podTemplate
// annotations hold templateKiB KiB: a namespace user who may create pods may
// write them, and nothing limits them as the API server limits a Pod's. Once
// the operator counts them all Pending (refused, nothing created) and its
// requests and syncs stop, it reports the heap, then deletes them.
func oversizedSpecs(b *testing.B, admin *framework.Clients, op *operatorProcess, n, templateKiB, heapSamples int) {
	ctx := context.Background()
	if _, err := admin.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hostileTemplates}},
		metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	sims := admin.Operator.SimulationV1alpha1().Simulators(hostileTemplates)
	template := &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"example.com/notes": strings.Repeat("x", templateKiB<<10)}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{}}}
	parallel(b, n, func(i int) error {
		_, err := sims.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%04d", i)},
			Spec: simv1alpha1.SimulatorSpec{PodTemplate: template}}, metav1.CreateOptions{})
		return err
	})
	waitUntil(b, 10*time.Minute, fmt.Sprintf("%d Simulators counted Pending", n), func() (bool, string) {
		samples, err := op.metrics()
		if err != nil {
			return false, err.Error()
		}
		pending, _ := sumWhere(samples, "secondary_scheduler_operator_simulators", "phase", string(simv1alpha1.SimulatorPending))
		return int(pending) >= n, fmt.Sprintf("%.0f Pending", pending)
	})
	waitQuiet(b, op)
	op.report(b, heapSamples)
	pods, err := admin.Kube.CoreV1().Pods(hostileTemplates).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(pods.Items)), "pods-created")
	if err := sims.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		b.Fatal(err)
	}
}

// waitSimulatorsHandled waits until every Simulator has its Pod, bound to a
// node, and the operator counts them all, then until its requests and syncs
// stop for 5 s: the load in place, not still arriving. Binding a Pod
// changes nothing the Simulator's status says, so it sends no request, yet
// it is a sync.
func waitSimulatorsHandled(b *testing.B, admin *framework.Clients, op *operatorProcess, n int) {
	ctx := context.Background()
	waitUntil(b, 20*time.Minute, fmt.Sprintf("%d Simulator Pods, all bound and counted", n), func() (bool, string) {
		pods, err := admin.Kube.CoreV1().Pods(hostileSimulators).List(ctx, metav1.ListOptions{LabelSelector: simulatorcontroller.Selector})
		if err != nil {
			return false, err.Error()
		}
		bound := 0
		for i := range pods.Items {
			if pods.Items[i].Spec.NodeName != "" {
				bound++
			}
		}
		samples, err := op.metrics()
		if err != nil {
			return false, err.Error()
		}
		counted, _ := sum(samples, "secondary_scheduler_operator_simulators")
		return bound >= n && int(counted) >= n, fmt.Sprintf("%d Pods, %d bound, %.0f counted", len(pods.Items), bound, counted)
	})
	waitQuiet(b, op)
}

// waitQuiet waits until the operator's requests and syncs stop for 5 s: its
// Simulators' statuses and events follow the Pods, at its client's rate.
func waitQuiet(b *testing.B, op *operatorProcess) {
	op.waitQuiet(b, 5*time.Second, time.Second, 20*time.Minute)
}

// settle is what runs between two samples of a reaction on the stack: a
// wait until the operator's requests and syncs have stopped for a second.
// A change's rollout goes on after the sample ends (the Deployment's
// controller, kwok's Pods, and the operator's syncs and status writes on
// each of their updates) for longer than measure's 200 ms, and a sample
// that began in it would time the tail of the one before as its own.
func (p *operatorProcess) settle(b *testing.B) func() {
	return func() { p.waitQuiet(b, time.Second, 100*time.Millisecond, time.Minute) }
}

// waitQuiet waits, reading /metrics every poll, until the operator's
// requests and syncs have not moved for window.
func (p *operatorProcess) waitQuiet(b *testing.B, window, poll time.Duration, timeout time.Duration) {
	b.Helper()
	last, since := [2]float64{-1, -1}, time.Now()
	waitUntilEvery(b, timeout, poll, fmt.Sprintf("the operator's requests and syncs to stop for %s", window), func() (bool, string) {
		samples, err := p.metrics()
		if err != nil {
			return false, err.Error()
		}
		requests, _ := sum(samples, "rest_client_requests_total")
		syncs, _ := sum(samples, syncsMetric)
		if now := [2]float64{requests, syncs}; now != last {
			last, since = now, time.Now()
		}
		return time.Since(since) >= window, fmt.Sprintf("%.0f requests and %.0f syncs so far", requests, syncs)
	})
}

// foreignLeft counts the foreign NetworkPolicies and Pods still there: the
// operator must leave them alone.
func foreignLeft(b *testing.B, admin *framework.Clients) int {
	ctx := context.Background()
	n := 0
	for i := range foreignSpaces {
		nps, err := admin.Kube.NetworkingV1().NetworkPolicies(foreignNamespace(i)).List(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		pods, err := admin.Kube.CoreV1().Pods(foreignNamespace(i)).List(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n += len(nps.Items) + len(pods.Items)
	}
	return n
}

// hostileConfigs are the hostile configurations, and a valid one.
func hostileConfigs() []hostile.Case {
	return append([]hostile.Case{{Name: "valid", Config: benchConfig(0).Data[names.ConfigKey], FitsConfigMap: true}}, hostile.Cases()...)
}

// refuseHostileConfigs points the SecondaryScheduler at ConfigMap
// bench-config, then measures each hostile configuration's refusal by the
// controller, or by the API server, in sub-benchmarks whose names end in
// suffix.
func refuseHostileConfigs(b *testing.B, admin *framework.Clients, op *operatorProcess, heapSamples int, suffix string) {
	ctx := context.Background()
	configMaps := admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace)
	if _, err := configMaps.Create(ctx, benchConfig(0), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	if err := admin.UpdateSecondaryScheduler(ctx, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.SchedulerConfig = "bench-config" }); err != nil {
		b.Fatal(err)
	}
	samples := envInt(b, "HOSTILE_CONFIG_SAMPLES", 10)
	for _, c := range hostileConfigs() {
		if c.Name != "valid" && c.FitsConfigMap {
			b.Run("configmap="+c.Name+"/controller"+suffix, func(b *testing.B) {
				// Each sample's bad write and its good one: the share of a refusal that was the API server's.
				writes := apiServerShare(b, admin, "apiserver-configmap-write", "PUT", "configmaps", "")
				// The operator's part: its status writes, its syncs (the good
				// configuration's rollouts included) and a change's wait for one.
				statusWrites := apiServerShare(b, admin, "apiserver-status-write", "APPLY", "secondaryschedulers", "status")
				targetConfig := op.targetConfigShare(b)
				r := badConfigToDegraded(b, admin, samples, op.settle(b), benchConfig, func(int) string { return c.Config },
					func() float64 { return op.metric(b, "go_memstats_alloc_bytes_total") / (1 << 20) }, op.cpuMillis)
				report(b, "refused", r.refused)
				report(b, "written", r.written)
				report(b, "delivered", r.delivered)
				report(b, "after-delivery", r.afterDelivery)
				writes()
				statusWrites()
				targetConfig()
				reportSpread(b, "allocated", "MiB", r.grown[0])
				reportSpread(b, "cpu", "ms", r.grown[1])
				op.report(b, heapSamples)
			})
		}
		if !c.FitsConfigMap {
			b.Run("configmap="+c.Name+"/apiserver"+suffix, func(b *testing.B) {
				cm := benchConfig(1)
				cm.Data[names.ConfigKey] = c.Config
				var times []time.Duration
				for range samples {
					t0 := time.Now()
					_, err := configMaps.Update(ctx, cm, metav1.UpdateOptions{})
					times = append(times, time.Since(t0))
					if !apierrors.IsInvalid(err) && !apierrors.IsRequestEntityTooLargeError(err) {
						b.Fatalf("the API server took a ConfigMap of %d bytes: %v", len(c.Config), err)
					}
				}
				report(b, "refused", times)
			})
		}
	}
}

// commandBinary is a binary that serves render and diff, and the prefix of
// its sub-benchmarks' names.
type commandBinary struct{ prefix, path string }

// timeCommands times render and diff of each binary on each of
// hostileConfigs, each sub-benchmark's name ending in suffix.
func timeCommands(b *testing.B, suffix string, binaries ...commandBinary) {
	samples := envInt(b, "HOSTILE_CONFIG_SAMPLES", 10)
	dir := b.TempDir()
	kubeconfig := os.Getenv(stackKubeconfigEnv)
	for _, c := range hostileConfigs() {
		input, err := hostile.RenderInput("bench-config", c.Config)
		if err != nil {
			b.Fatal(err)
		}
		file := filepath.Join(dir, c.Name+".yaml")
		if err := os.WriteFile(file, []byte(input), 0o644); err != nil {
			b.Fatal(err)
		}
		for _, command := range [][]string{{"render", "-f", file}, {"diff", "-f", file, "--kubeconfig", kubeconfig}} {
			for _, bin := range binaries {
				b.Run("configmap="+c.Name+"/"+bin.prefix+command[0]+suffix, func(b *testing.B) {
					runCommand(b, bin.path, command, samples, c.Name == "valid")
				})
			}
		}
	}
}

// commandMemoryLimit is the memory limit render and diff run under: what
// no input may make them need.
const commandMemoryLimit = 64 << 20

// runCommand runs binary twice per sample. First alone, for its wall time:
// what an administrator waits for. Then under the tools that measure its
// memory (a shell that moves it into a cgroup, /usr/bin/time), whose own
// starts add to its wall time (reported apart, as wall-measured): peak RSS and CPU time as
// /usr/bin/time reports them (getrusage of a child of its own: a child of
// this process would inherit its peak RSS when it forks); and, in a memory
// cgroup of its own limited to commandMemoryLimit, what it was charged at
// most, how often the limit was reached and whether it was killed for it.
// It fails when the binary accepts hostile input or refuses valid input. On
// a busy machine the wall time is mostly waiting.
// commandTimeout bounds one run of render or diff, a file read and checked.
const commandTimeout = 2 * time.Minute

// failOnTimeout fails b when ctx, a command's, ran out: killed, it neither
// accepted nor refused its input.
func failOnTimeout(b *testing.B, ctx context.Context, binary string, args []string) {
	b.Helper()
	if ctx.Err() != nil {
		b.Fatalf("%s %q did not exit within %s (killed)", binary, args, commandTimeout)
	}
}

func runCommand(b *testing.B, binary string, args []string, samples int, valid bool) {
	usage := filepath.Join(b.TempDir(), "usage")
	var times, measuredTimes []time.Duration
	var peaks, cpu, charged []float64
	var limitHits, oomKills int64
	for i := range samples {
		// Each command reads one file: killed after commandTimeout, so that a
		// hang (which would pass for a refusal) fails the benchmark instead.
		ctx, cancel := context.WithTimeout(b.Context(), commandTimeout)
		alone := exec.CommandContext(ctx, binary, args...)
		var aloneStderr strings.Builder
		alone.Stderr = &aloneStderr
		t0 := time.Now()
		err := alone.Run()
		times = append(times, time.Since(t0))
		failOnTimeout(b, ctx, binary, args)
		checkOutcome(b, args, alone, err, aloneStderr.String(), valid)

		argv := append([]string{"/usr/bin/time", "-f", "%M %U %S", "-o", usage, binary}, args...)
		cg, err := newMemoryCgroup(fmt.Sprintf("secondary-scheduler-bench-%d-%d", os.Getpid(), i), commandMemoryLimit)
		if err != nil && i == 0 {
			b.Logf("no memory cgroup, so no charged memory figures: %v", err)
		}
		if cg != nil {
			argv = cg.wrap(argv)
		}
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		t0 = time.Now()
		err = cmd.Run()
		measuredTimes = append(measuredTimes, time.Since(t0))
		failOnTimeout(b, ctx, binary, args)
		cancel()
		if cg != nil {
			peak, hits, kills, uerr := cg.usage()
			if rerr := cg.remove(); uerr == nil {
				uerr = rerr
			}
			if uerr != nil {
				b.Fatalf("memory cgroup %s: %v", cg.dir, uerr)
			}
			charged = append(charged, float64(peak)/(1<<20))
			limitHits += hits
			oomKills += kills
		}
		checkOutcome(b, args, cmd, err, stderr.String(), valid)
		data, err := os.ReadFile(usage)
		if err != nil {
			b.Fatal(err)
		}
		// A non-zero exit adds a line before the figures.
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		var kib, user, system float64
		if _, err := fmt.Sscanf(lines[len(lines)-1], "%g %g %g", &kib, &user, &system); err != nil {
			b.Fatalf("/usr/bin/time wrote %q: %v", data, err)
		}
		peaks = append(peaks, kib/1024)
		cpu = append(cpu, (user+system)*1000)
	}
	report(b, "wall", times)
	report(b, "wall-measured", measuredTimes)
	reportSpread(b, "rss-peak", "MiB", peaks)
	reportSpread(b, "cpu", "ms", cpu)
	if len(charged) > 0 {
		reportSpread(b, "charged-peak", "MiB", charged)
		b.ReportMetric(float64(limitHits), "limit-hits")
		b.ReportMetric(float64(oomKills), "oom-kills")
	}
}

// checkOutcome fails b when cmd, run with args, could not be run, refused
// valid input or accepted hostile input.
func checkOutcome(b *testing.B, args []string, cmd *exec.Cmd, err error, stderr string, valid bool) {
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		b.Fatal(err)
	}
	if refused := err != nil; refused == valid {
		b.Fatalf("%s: exit status %d: %s", strings.Join(args, " "), cmd.ProcessState.ExitCode(), stderr)
	}
}

// refuseLargeRule times the API server's refusal of a spec.rbac rule with
// 100 items in each list and, beside each, an update of the same
// SecondaryScheduler that changes nothing: the API server's floor for any
// update of it at that moment.
func refuseLargeRule(b *testing.B, admin *framework.Clients) {
	ctx := context.Background()
	crs := admin.Operator.OperatorV1().SecondarySchedulers()
	many := make([]string, 100)
	for i := range many {
		many[i] = fmt.Sprint("x", i)
	}
	var times, noop []time.Duration
	// The API server checks the resourceVersion before it validates: an
	// update that meets the operator's status write is a conflict, timed
	// neither as the floor nor as a refusal, and the pair is tried again.
	for conflicts := 0; len(times) < 20; {
		ss, err := crs.Get(ctx, secondaryschedulerv1.SingletonName, metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		_, err = crs.Update(ctx, ss.DeepCopy(), metav1.UpdateOptions{})
		took := time.Since(t0)
		if err == nil {
			ss.Spec.RBAC = &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{{APIGroups: many, Resources: many, Verbs: many, ResourceNames: many}}}
			t0 = time.Now()
			_, err = crs.Update(ctx, ss, metav1.UpdateOptions{})
			if apierrors.IsInvalid(err) {
				noop, times = append(noop, took), append(times, time.Since(t0))
				continue
			}
		}
		if conflicts++; !apierrors.IsConflict(err) || conflicts > 20 {
			b.Fatalf("an update that changes nothing, then one with the 100-item rule: want success, then a refusal as invalid: %v", err)
		}
	}
	report(b, "refused", times)
	report(b, "noop-update", noop)
}

// unservedSeries creates n pending pods, each with a schedulerName of its
// own, waits until the operator counts them all, and reports the series of
// unserved_pods beside their bound (the served schedulerNames, one here, the
// others with the most pods, and "_other").
func unservedSeries(b *testing.B, admin *framework.Clients, op *operatorProcess, n, heapSamples int) {
	ctx := context.Background()
	ns := "hostile-unserved"
	if _, err := admin.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	created := time.Now()
	parallel(b, n, func(i int) error {
		_, err := admin.Kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p-%05d", i)}, Spec: corev1.PodSpec{
			SchedulerName: fmt.Sprintf("typo-%05d", i), AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		}}, metav1.CreateOptions{})
		return err
	})
	const name = "secondary_scheduler_operator_unserved_pods"
	var series int
	waitUntil(b, 15*time.Minute, fmt.Sprintf("unserved_pods counting %d pods", n), func() (bool, string) {
		samples, err := op.metrics()
		if err != nil {
			return false, err.Error()
		}
		var counted float64
		counted, series = sum(samples, name)
		return int(counted) >= n, fmt.Sprintf("%.0f pods in %d series", counted, series)
	})
	b.ReportMetric(time.Since(created).Seconds(), "s-to-all-counted")
	b.ReportMetric(float64(series), "series")
	b.ReportMetric(float64(1+metrics.MaxOtherSchedulerNames+1), "series-bound")
	op.report(b, heapSamples)
}
