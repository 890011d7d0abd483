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
	"sigs.k8s.io/yaml"
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
	// lastRead is the scheduler's queue at the last look that read it.
	lastRead *Queue
	// retryWindow is how long an outcome must hold while the scheduler only
	// retries pods from backoff to be final (retryWindowOf); 0: never.
	retryWindow time.Duration
	// heldSince is when every pod last looked decided with the outcome
	// they have now; zero while some do not.
	heldSince time.Time
	now       func() time.Time
	failures  int
	lastErr   error
	// How says how the arm ended.
	How string
}

func newSettler(sb Sandbox, retryWindow time.Duration) *settler {
	m, _ := sb.(SchedulerMetrics)
	return &settler{metrics: m, retryWindow: retryWindow}
}

// defaultPodMaxBackoff is kube-scheduler's podMaxBackoffSeconds by default.
const defaultPodMaxBackoff = 10 * time.Second

// retryWindowOf is how long an arm's outcome must hold, while its scheduler
// does nothing but retry pods from backoff, for the outcome to be final: two
// of the longest backoffs its configuration sets (podMaxBackoffSeconds, or
// Coscheduling's podGroupBackoffSeconds when longer), so that every pod in
// backoff has been tried again on the sandbox as it stands. Kubernetes 1.37
// retries a native gang that cannot fit from backoff without end, never
// parking it unschedulable.
func retryWindowOf(config []byte) time.Duration {
	var c struct {
		PodMaxBackoffSeconds *int64 `json:"podMaxBackoffSeconds"`
		Profiles             []struct {
			PluginConfig []struct {
				Name string `json:"name"`
				Args struct {
					PodGroupBackoffSeconds int64 `json:"podGroupBackoffSeconds"`
				} `json:"args"`
			} `json:"pluginConfig"`
		} `json:"profiles"`
	}
	longest := defaultPodMaxBackoff
	if err := yaml.Unmarshal(config, &c); err != nil {
		return 2 * longest
	}
	if c.PodMaxBackoffSeconds != nil {
		longest = time.Duration(*c.PodMaxBackoffSeconds) * time.Second
	}
	for _, p := range c.Profiles {
		for _, pc := range p.PluginConfig {
			if pc.Name == "Coscheduling" {
				longest = max(longest, time.Duration(pc.Args.PodGroupBackoffSeconds)*time.Second)
			}
		}
	}
	return 2 * longest
}

func (s *settler) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// done is called at each look with the outcome and whether every replayed
// pod looks decided.
func (s *settler) done(ctx context.Context, outcome Outcome, allDecided bool) bool {
	same := allDecided && equalOutcomes(outcome, s.last)
	now := s.clock()
	switch {
	case !allDecided:
		s.heldSince = time.Time{}
	case !same || s.heldSince.IsZero():
		s.heldSince = now
	}
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
	s.failures, s.lastRead = 0, &q
	if !q.idle() {
		s.lastIdle = nil
		if same && q.Active == 0 && q.Binding == 0 && s.retryWindow > 0 && now.Sub(s.heldSince) >= s.retryWindow {
			s.How = fmt.Sprintf("done when its pods' outcome had held for %s (two of its longest backoffs) while its scheduler only retried pods from backoff: %s",
				s.retryWindow, q)
			return true
		}
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

// unsettled says how an arm that did not settle within timeout ended: with
// what its scheduler last said it held, when it said.
func (s *settler) unsettled(timeout time.Duration) string {
	how := fmt.Sprintf("not settled within %s", timeout)
	if s.lastRead != nil {
		how += "; its scheduler last held " + s.lastRead.String()
	}
	return how
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
