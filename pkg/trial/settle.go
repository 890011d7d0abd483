package trial

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"
)

// SchedulerMetrics is a Sandbox whose scheduler serves its metrics to the
// trial: an arm is then done when the scheduler itself has nothing left to
// try, not when its pods merely look decided.
type SchedulerMetrics interface {
	// SchedulerMetrics is the scheduler's /metrics page.
	SchedulerMetrics(ctx context.Context) ([]byte, error)
}

// MaxMetricsBytes bounds one read of a scheduler's metrics page.
const MaxMetricsBytes = 16 << 20

// metricsTimeout bounds one read of a scheduler's metrics.
const metricsTimeout = 5 * time.Second

// ReadSchedulerMetrics GETs /metrics of the scheduler serving at cfg.Host,
// with cfg's TLS and credentials (the sandbox's admin: the scheduler asks
// its sandbox who may read), at most MaxMetricsBytes (and one more, which
// the reader refuses).
func ReadSchedulerMetrics(ctx context.Context, cfg *rest.Config) ([]byte, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = metricsTimeout
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, metricsTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the scheduler's /metrics answered %s", resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, MaxMetricsBytes+1))
}

// Queue is what a scheduler's metrics say of the pods it holds.
type Queue struct {
	// Active are pods in its active or backoff queues (or any queue but
	// unschedulable and gated: 1.37's pending pods of native gangs count
	// here): pods it will try again on its own.
	Active, Backoff float64
	// Binding are bind goroutines running, pods waiting at Permit included.
	Binding float64
	// Unschedulable are pods it parked until an event moves them.
	Unschedulable float64
	// Attempts are its scheduling attempts so far: a pod inside a
	// scheduling cycle is in no queue, but its attempt ends by adding one.
	Attempts float64
}

// idle: nothing the scheduler would try again without an event.
func (q Queue) idle() bool { return q.Active == 0 && q.Backoff == 0 && q.Binding == 0 }

func (q Queue) String() string {
	return fmt.Sprintf("%g active, %g in backoff, %g binding, %g parked unschedulable, %g attempts",
		q.Active, q.Backoff, q.Binding, q.Unschedulable, q.Attempts)
}

// ParseQueue reads kube-scheduler's metrics page (Prometheus text format).
// A page with none of the queue's gauges is not a scheduler's.
func ParseQueue(page []byte) (Queue, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(page))
	if err != nil {
		return Queue{}, fmt.Errorf("reading the scheduler's metrics: %w", err)
	}
	pending, ok := families["scheduler_pending_pods"]
	if !ok {
		return Queue{}, errors.New("the metrics page has no scheduler_pending_pods: not a kube-scheduler's")
	}
	var q Queue
	for _, m := range pending.GetMetric() {
		switch v := value(m); label(m, "queue") {
		case "backoff":
			q.Backoff += v
		case "unschedulable":
			q.Unschedulable += v
		case "gated":
		default:
			q.Active += v
		}
	}
	for _, m := range families["scheduler_goroutines"].GetMetric() {
		if label(m, "operation") == "binding" {
			q.Binding += value(m)
		}
	}
	for _, m := range families["scheduler_schedule_attempts_total"].GetMetric() {
		q.Attempts += value(m)
	}
	return q, nil
}

// value is a sample's value, whether the page typed it or not.
func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	}
	return m.GetUntyped().GetValue()
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// metricsTries is how many looks in a row may fail to read a scheduler's
// metrics before the arm is taken at its pods' word.
const metricsTries = 3

// settler judges when an arm is done. Its pods must all look decided at two
// looks in a row with the same outcome; where the scheduler's metrics can be
// read, both looks must also find its queues idle and no attempt made
// between them.
type settler struct {
	metrics  SchedulerMetrics // nil: the runtime serves none
	last     Outcome
	lastIdle *Queue
	failures int
	lastErr  error
	// How says how the arm ended.
	How string
}

func newSettler(sb Sandbox) *settler {
	m, _ := sb.(SchedulerMetrics)
	return &settler{metrics: m}
}

// done is called at each look with the outcome and whether every replayed
// pod looks decided.
func (s *settler) done(ctx context.Context, outcome Outcome, allDecided bool) bool {
	same := allDecided && equalOutcomes(outcome, s.last)
	s.last = outcome
	if !allDecided {
		s.lastIdle = nil
		return false
	}
	if s.metrics == nil || s.failures >= metricsTries {
		if same {
			s.How = "taken at its pods' word: the runtime serves no scheduler metrics"
			if s.metrics != nil {
				s.How = fmt.Sprintf("taken at its pods' word: its scheduler's metrics could not be read (%v)", s.lastErr)
			}
		}
		return same
	}
	q, err := s.read(ctx)
	if err != nil {
		s.failures++
		s.lastErr, s.lastIdle = err, nil
		return false
	}
	s.failures = 0
	if !q.idle() {
		s.lastIdle = nil
		return false
	}
	prev := s.lastIdle
	s.lastIdle = &q
	if same && prev != nil && prev.Attempts == q.Attempts {
		s.How = "done when the scheduler had nothing left to try: " + q.String()
		return true
	}
	return false
}

func (s *settler) read(ctx context.Context) (Queue, error) {
	page, err := s.metrics.SchedulerMetrics(ctx)
	if err != nil {
		return Queue{}, err
	}
	if len(page) > MaxMetricsBytes {
		return Queue{}, fmt.Errorf("the scheduler's metrics page is over %d bytes", MaxMetricsBytes)
	}
	return ParseQueue(page)
}
