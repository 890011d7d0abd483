// Package metrics defines the operator's Prometheus metrics. They are registered
// with component-base's legacyregistry, which library-go's controllercmd serves
// on the operator's /metrics endpoint.
package metrics

import (
	"context"
	"sync"
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

	configValid = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace:      namespace,
		Name:           "scheduler_config_valid",
		Help:           "1 when the merged scheduler configuration of the last sync was valid and rolled out, 0 when it was refused.",
		StabilityLevel: metrics.ALPHA,
	})

	operandReadyReplicas = metrics.NewGauge(&metrics.GaugeOpts{
		Namespace:      namespace,
		Name:           "operand_ready_replicas",
		Help:           "Ready replicas of the secondary scheduler Deployment.",
		StabilityLevel: metrics.ALPHA,
	})

	simulatorsByPhase = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace:      namespace,
		Name:           "simulators",
		Help:           "Simulators by phase (Pending, Creating, Available).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"phase"})

	registerOnce sync.Once
)

// Register registers every metric once; later calls do nothing.
func Register() {
	registerOnce.Do(func() {
		legacyregistry.MustRegister(buildInfo, syncs, syncDuration, configValid, operandReadyReplicas, simulatorsByPhase)
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

// SetConfigValid records whether the last merged configuration was valid.
func SetConfigValid(valid bool) {
	if valid {
		configValid.Set(1)
	} else {
		configValid.Set(0)
	}
}

// SetOperandReadyReplicas records the Deployment's ready replicas.
func SetOperandReadyReplicas(n int32) {
	operandReadyReplicas.Set(float64(n))
}

// SetSimulatorsByPhase records how many Simulators are in each phase.
func SetSimulatorsByPhase(counts map[string]int) {
	for _, phase := range []string{"Pending", "Creating", "Available"} {
		simulatorsByPhase.WithLabelValues(phase).Set(float64(counts[phase]))
	}
}
