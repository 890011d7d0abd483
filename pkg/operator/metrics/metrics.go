// Package metrics defines the operator's Prometheus metrics. They are registered
// with component-base's legacyregistry, which library-go's controllercmd serves
// on the operator's /metrics endpoint.
package metrics

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
	// Every controller's queue: how long a change waits for its sync, apart
	// from how long the sync takes (workqueue_*{name=CONTROLLER}).
	_ "k8s.io/component-base/metrics/prometheus/workqueue"

	"github.com/openshift/secondary-scheduler-operator/pkg/version"
)

const namespace = "secondary_scheduler_operator"

var (
	buildInfo = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      namespace,
		Name:           "build_info",
		Help:           "A metric with a constant '1' value labeled by the operator's version, git commit and Go version.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"version", "git_commit", "go_version"})

	syncs = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      namespace,
		Name:           "controller_syncs_total",
		Help:           "Syncs of each controller, by result (success or error).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"controller", "result"})

	syncDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace:      namespace,
		Name:           "controller_sync_duration_seconds",
		Help:           "How long one sync of each controller takes.",
		Buckets:        []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5},
		StabilityLevel: metrics.ALPHA,
	}, []string{"controller"})

	// A vector without labels, so that the series can be removed while no
	// configuration is rendered (Removed, Unmanaged): absent, not a guess.
	configValid = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      namespace,
		Name:           "scheduler_config_valid",
		Help:           configValidHelp,
		StabilityLevel: metrics.ALPHA,
	}, nil)

	operandReadyReplicas = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace:      namespace,
		Name:           "operand_ready_replicas",
		Help:           "Ready replicas of the secondary scheduler Deployment.",
		StabilityLevel: metrics.ALPHA,
	})

	operandPodsOnStaleConfig = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace:      namespace,
		Name:           "operand_pods_on_stale_config",
		Help:           "Scheduler pods running a configuration other than the merged one while no rollout is in progress (after a rollback, or pods that outlived their rollout).",
		StabilityLevel: metrics.ALPHA,
	})

	unservedPods = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      namespace,
		Name:           "unserved_pods",
		Help:           unservedPodsHelp,
		StabilityLevel: metrics.ALPHA,
	}, []string{"scheduler_name"})

	simulatorsDesc = metrics.NewDesc(namespace+"_simulators", "Simulators by phase (Pending, Creating, Available).",
		[]string{"phase"}, nil, metrics.ALPHA, "")

	registerOnce sync.Once
)

// Register registers every metric once; later calls do nothing.
func Register() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(buildInfo, syncs, syncDuration, configValid, operandReadyReplicas, operandPodsOnStaleConfig, unservedPods)
		legacyregistry.MustRegister(rolloutCollectors()...)
		legacyregistry.CustomMustRegister(simulators, &heldChangeCollector{})
		initRolloutMetrics()
		v := version.Get()
		buildInfo.WithLabelValues(v.GitVersion, v.GitCommit, v.GoVersion).Set(1)
	})
}

// InstrumentSync counts and times every sync of the named controller.
func InstrumentSync(controller string, sync factory.SyncFunc) factory.SyncFunc {
	return func(ctx context.Context, syncCtx factory.SyncContext) error {
		start := time.Now()
		err := sync(ctx, syncCtx)
		syncDuration.WithLabelValues(controller).Observe(time.Since(start).Seconds())
		result := "success"
		if err != nil {
			result = "error"
		}
		syncs.WithLabelValues(controller, result).Inc()
		return err
	}
}

var unservedPodsHelp = "Pods pending longer than the grace period whose schedulerName no running secondary scheduler serves, by schedulerName: " +
	"each served schedulerName, the " + strconv.Itoa(MaxOtherSchedulerNames) + " others with the most such pods, and the rest summed as scheduler_name=\"" +
	OtherSchedulerNames + "\"."

const configValidHelp = "1 when the merged scheduler configuration of the last sync was valid and rolled out, 0 when it was refused; absent while the operator renders none (Removed, Unmanaged)."

// SetConfigValid records whether the last merged configuration was valid.
func SetConfigValid(valid bool) {
	if valid {
		configValid.WithLabelValues().Set(1)
	} else {
		configValid.WithLabelValues().Set(0)
	}
}

// SetOperandPodsOnStaleConfig records the scheduler pods on a superseded configuration.
func SetOperandPodsOnStaleConfig(n int) {
	operandPodsOnStaleConfig.Set(float64(n))
}

const (
	// MaxOtherSchedulerNames is how many schedulerNames the secondary scheduler
	// does not serve get a series of their own in unserved_pods: any pod's
	// creator picks its schedulerName, and a series per name would let them add
	// thousands to Prometheus.
	MaxOtherSchedulerNames = 10
	// OtherSchedulerNames is the scheduler_name of the unserved_pods series
	// that sums every schedulerName beyond MaxOtherSchedulerNames. No pod can
	// carry it: a schedulerName is a DNS subdomain, which has no "_".
	OtherSchedulerNames = "_other"
)

var (
	unservedMu sync.Mutex
	// unservedExported are the scheduler_names unserved_pods has series for.
	unservedExported = sets.New[string]()
)

// SetUnservedPods records the unserved pods by schedulerName, as
// unservedSeries bounds them; the series of names it leaves out are removed.
func SetUnservedPods(bySchedulerName map[string]int, served []string) {
	series := unservedSeries(bySchedulerName, served)
	unservedMu.Lock()
	defer unservedMu.Unlock()
	for name := range unservedExported {
		if _, ok := series[name]; !ok {
			unservedPods.DeleteLabelValues(name)
			unservedExported.Delete(name)
		}
	}
	for name, n := range series {
		unservedPods.WithLabelValues(name).Set(float64(n))
		unservedExported.Insert(name)
	}
}

// unservedSeries is the series of unserved_pods, by scheduler_name, for the
// unserved pods counted by schedulerName: every schedulerName served has one
// (0 when none of its pods is unserved); of the others, the
// MaxOtherSchedulerNames with the most pods (ties by name, so that equal
// counts do not trade places between scrapes) have one each, and the rest are
// summed in OtherSchedulerNames, present only when there is a rest. So there
// are at most len(served)+MaxOtherSchedulerNames+1 series, whoever creates
// pods.
func unservedSeries(bySchedulerName map[string]int, served []string) map[string]int {
	series := make(map[string]int, len(served)+MaxOtherSchedulerNames+1)
	for _, name := range served {
		series[name] = bySchedulerName[name]
	}
	// top are the names with a series of their own so far, most pods first.
	type count struct {
		name string
		n    int
	}
	before := func(a, b count) bool { return a.n > b.n || a.n == b.n && a.name < b.name }
	top := make([]count, 0, MaxOtherSchedulerNames+1)
	rest := 0
	for name, n := range bySchedulerName {
		if _, ok := series[name]; ok || n <= 0 {
			continue
		}
		c := count{name, n}
		i := sort.Search(len(top), func(i int) bool { return before(c, top[i]) })
		if i == MaxOtherSchedulerNames {
			rest += n
			continue
		}
		top = slices.Insert(top, i, c)
		if len(top) > MaxOtherSchedulerNames {
			rest += top[MaxOtherSchedulerNames].n
			top = top[:MaxOtherSchedulerNames]
		}
	}
	for _, c := range top {
		series[c.name] = c.n
	}
	if rest > 0 {
		series[OtherSchedulerNames] = rest
	}
	return series
}

// ForgetConfigValid removes the series: the operator renders no configuration.
func ForgetConfigValid() {
	configValid.Reset()
}

// SetOperandReadyReplicas records the Deployment's ready replicas.
func SetOperandReadyReplicas(n int32) {
	operandReadyReplicas.Set(float64(n))
}

// CountSimulatorsWith makes every scrape count Simulators by phase with
// countByPhase, which reads a cache: nothing is kept up to date between scrapes.
// The last call wins (tests run the operator more than once per process).
func CountSimulatorsWith(countByPhase func() map[string]int) {
	Register()
	simulators.count.Store(&countByPhase)
}

type simulatorCollector struct {
	metrics.BaseStableCollector
	count atomic.Pointer[func() map[string]int]
}

var simulators = &simulatorCollector{}

func (c *simulatorCollector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- simulatorsDesc }

func (c *simulatorCollector) CollectWithStability(ch chan<- metrics.Metric) {
	count := c.count.Load()
	if count == nil {
		return
	}
	counts := (*count)()
	for _, phase := range []string{"Pending", "Creating", "Available"} {
		ch <- metrics.NewLazyConstMetric(simulatorsDesc, metrics.GaugeValue, float64(counts[phase]), phase)
	}
}
