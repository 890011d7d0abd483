package metrics

// The metrics of rollouts and of the trials that gate them
// (spec.rollout.strategy Trial).

import (
	"sync"
	"time"

	"k8s.io/component-base/metrics"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

// verdicts are the verdicts a trial ends with: trials_total has a series for
// each from the start, so that increase() sees the first trial of each.
var verdicts = []secondaryschedulerv1.TrialVerdict{secondaryschedulerv1.TrialAllowed, secondaryschedulerv1.TrialBlocked, secondaryschedulerv1.TrialFailed, secondaryschedulerv1.TrialInconclusive}

var (
	trials = metrics.NewCounterVec(&metrics.CounterOpts{
		Namespace:      namespace,
		Name:           "trials_total",
		Help:           "Trials that reached a verdict, by verdict (Allowed, Blocked, Failed). A trial cancelled by a newer change has none.",
		StabilityLevel: metrics.ALPHA,
	}, []string{"verdict"})

	trialDuration = metrics.NewHistogramVec(&metrics.HistogramOpts{
		Namespace: namespace,
		Name:      "trial_duration_seconds",
		Help:      "How long a trial takes, from its start to its verdict, by verdict.",
		// A trial takes tens of seconds; spec.rollout.trial.timeoutSeconds
		// bounds it (300 by default, at most 3600).
		Buckets:        []float64{5, 10, 20, 30, 45, 60, 90, 120, 180, 240, 300, 450, 600, 900, 1800, 3600},
		StabilityLevel: metrics.ALPHA,
	}, []string{"verdict"})

	trialFidelity = metrics.NewGaugeVec(&metrics.GaugeOpts{
		Namespace: namespace,
		Name:      "trial_fidelity_percent",
		Help: "The last trial's fidelity, by measure: placed, the share of the recently bound pods replayed that the current " +
			"configuration placed on the trial's copy of the cluster; same_node, the share of those placed outside tie-break noise " +
			"that it put on the live scheduler's node. Absent for a measure the last trial did not measure (no bound pod replayed).",
		StabilityLevel: metrics.ALPHA,
	}, []string{"measure"})

	rollouts = metrics.NewCounter(&metrics.CounterOpts{
		Namespace:      namespace,
		Name:           "rollouts_total",
		Help:           "Scheduler pod templates the operator rolled out: a new template applied to the Deployment (a rollback is not counted here).",
		StabilityLevel: metrics.ALPHA,
	})

	rollbacks = metrics.NewCounter(&metrics.CounterOpts{
		Namespace:      namespace,
		Name:           "rollbacks_total",
		Help:           "Rollbacks: the Deployment set back to the last configuration that ran, because the new one's pods failed.",
		StabilityLevel: metrics.ALPHA,
	})

	heldChangeAgeDesc = metrics.NewDesc(namespace+"_held_change_age_seconds", heldChangeAgeHelp, nil, nil, metrics.ALPHA, "")
)

const heldChangeAgeHelp = "Seconds since the change a trial gate holds (status.trialRequest) was first held; 0 when none is held; " +
	"absent while the operator manages no SecondaryScheduler (Unmanaged, deleted) or before its first report."

// rolloutCollectors are registered by Register.
func rolloutCollectors() []metrics.Registerable {
	return []metrics.Registerable{trials, trialDuration, trialFidelity, rollouts, rollbacks}
}

// initRolloutMetrics gives trials_total its series before any trial ends.
func initRolloutMetrics() {
	for _, v := range verdicts {
		trials.WithLabelValues(string(v)).Add(0)
	}
}

// ObserveTrial counts a trial that reached verdict and took d.
func ObserveTrial(verdict secondaryschedulerv1.TrialVerdict, d time.Duration) {
	trials.WithLabelValues(string(verdict)).Inc()
	trialDuration.WithLabelValues(string(verdict)).Observe(d.Seconds())
}

// ObserveTrialFidelity records the fidelity of the trial that just reached a
// verdict: each measure in percent, nil for one it did not measure (its
// series goes, so that no older trial's figure stands for it).
func ObserveTrialFidelity(placed, sameNode *float64) {
	for measure, p := range map[string]*float64{"placed": placed, "same_node": sameNode} {
		if p == nil {
			trialFidelity.DeleteLabelValues(measure)
			continue
		}
		trialFidelity.WithLabelValues(measure).Set(*p)
	}
}

// CountRollout counts a pod template applied to the scheduler Deployment: a
// rollback when rollback is set, else a rollout.
func CountRollout(rollback bool) {
	if rollback {
		rollbacks.Inc()
	} else {
		rollouts.Inc()
	}
}

// SetHeldChange records the change a trial gate holds, by its key (empty:
// none is held), with the start of the latest trial of that key (zero when
// none has started).
//
// When the change was first held comes from status, so that an operator
// restart does not reset it: status.lastTrial.startedAt of the held key, the
// start of the trial the hold began with. A trial that failed is tried again
// (trialcontroller.RetryFailedTrialAfter) with a new startedAt, so this
// process also remembers the earliest time it saw the key held, and keeps the
// earlier of the two. Only a restart while failed trials are retried brings
// the age down, to the start of the last retry: alert
// SecondarySchedulerTrialsFailing covers that case.
func SetHeldChange(key string, trialStarted time.Time) {
	held.set(key, trialStarted, now())
}

// ForgetHeldChange removes the held change's age: the operator manages no
// SecondaryScheduler.
func ForgetHeldChange() {
	held.forget()
}

// now is the clock of held_change_age_seconds; tests set it.
var now = time.Now

// heldChange is the change a trial gate holds, as the last report said.
type heldChange struct {
	mu sync.Mutex
	// known: a report came since the start or the last forget.
	known bool
	key   string
	since time.Time
}

var held = &heldChange{}

func (h *heldChange) set(key string, trialStarted, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.known || key != h.key {
		h.known, h.key, h.since = true, key, at
	}
	if !trialStarted.IsZero() && trialStarted.Before(h.since) {
		h.since = trialStarted
	}
}

func (h *heldChange) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.known, h.key, h.since = false, "", time.Time{}
}

// age is the held change's age at at, and whether there is anything to report.
func (h *heldChange) age(at time.Time) (float64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !h.known:
		return 0, false
	case h.key == "":
		return 0, true
	}
	return max(at.Sub(h.since).Seconds(), 0), true
}

// heldChangeCollector computes the age at every scrape, so that it grows
// between the syncs that report the held change.
type heldChangeCollector struct {
	metrics.BaseStableCollector
}

func (*heldChangeCollector) DescribeWithStability(ch chan<- *metrics.Desc) { ch <- heldChangeAgeDesc }

func (*heldChangeCollector) CollectWithStability(ch chan<- metrics.Metric) {
	if age, ok := held.age(now()); ok {
		ch <- metrics.NewLazyConstMetric(heldChangeAgeDesc, metrics.GaugeValue, age)
	}
}
