// Package metrics defines the operator's Prometheus metrics. They are registered
// with component-base's legacyregistry, which library-go's controllercmd serves
// on the operator's /metrics endpoint.
package metrics

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

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
		Help:           "Pods pending longer than the grace period whose schedulerName no running secondary scheduler serves, by schedulerName.",
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
		legacyregistry.CustomMustRegister(simulators)
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

// SetUnservedPods records the unserved pods by schedulerName; names not given
// have none (their series are removed).
func SetUnservedPods(bySchedulerName map[string]int) {
	unservedPods.Reset()
	for name, n := range bySchedulerName {
		unservedPods.WithLabelValues(name).Set(float64(n))
	}
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
