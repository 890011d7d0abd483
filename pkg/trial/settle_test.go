package trial

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// schedulerPage is a metrics page as kube-scheduler 1.37 serves it, cut to
// the families the settler reads and a neighbour it must ignore.
func schedulerPage(active, backoff, unschedulable, binding, attempts int) []byte {
	return fmt.Appendf(nil, `# HELP scheduler_pending_pods [STABLE] Number of pending pods, by the queue type.
# TYPE scheduler_pending_pods gauge
scheduler_pending_pods{queue="active"} %d
scheduler_pending_pods{queue="backoff"} %d
scheduler_pending_pods{queue="gated"} 7
scheduler_pending_pods{queue="unschedulable"} %d
# HELP scheduler_goroutines [ALPHA] Number of running goroutines split by the work they do such as binding.
# TYPE scheduler_goroutines gauge
scheduler_goroutines{operation="Filter"} 3
scheduler_goroutines{operation="binding"} %d
# HELP scheduler_schedule_attempts_total [STABLE] Number of attempts to schedule pods.
# TYPE scheduler_schedule_attempts_total counter
scheduler_schedule_attempts_total{profile="p",result="scheduled"} %d
scheduler_schedule_attempts_total{profile="p",result="unschedulable"} 1
`, active, backoff, unschedulable, binding, attempts)
}

func TestParseQueue(t *testing.T) {
	q, err := ParseQueue(schedulerPage(2, 3, 4, 1, 10))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Queue{Active: 2, Backoff: 3, Unschedulable: 4, Binding: 1, Attempts: 11}); q != want {
		t.Errorf("got %+v, want %+v", q, want)
	}
	// 1.37's queue of native gangs' pods waiting for their group counts as active.
	q, err = ParseQueue([]byte("scheduler_pending_pods{queue=\"pending\"} 5\n"))
	if err != nil || q.Active != 5 || q.idle() {
		t.Errorf("a pending queue: got %+v, %v; want 5 active, not idle", q, err)
	}
	// A fresh scheduler has tried nothing: no attempts, no goroutines yet.
	q, err = ParseQueue([]byte("scheduler_pending_pods{queue=\"active\"} 0\n"))
	if err != nil || !q.idle() {
		t.Errorf("a fresh scheduler: got %+v, %v; want idle", q, err)
	}
	if _, err := ParseQueue([]byte("apiserver_request_total{code=\"200\"} 3\n")); err == nil || !strings.Contains(err.Error(), "not a kube-scheduler's") {
		t.Errorf("another component's page: got %v, want it refused as not a scheduler's", err)
	}
	if _, err := ParseQueue([]byte("scheduler_pending_pods{queue=\"active\" 0\n")); err == nil {
		t.Error("a malformed page was read")
	}
}

// pages serves one metrics page (or error) per read, the last one again
// once they run out.
type pages struct {
	pages [][]byte
	errs  []error
	reads int
}

func (p *pages) SchedulerMetrics(context.Context) ([]byte, error) {
	i := min(p.reads, len(p.pages)-1)
	p.reads++
	return p.pages[i], p.errs[i]
}

func servePages(steps ...any) *pages {
	p := &pages{}
	for _, s := range steps {
		switch s := s.(type) {
		case []byte:
			p.pages, p.errs = append(p.pages, s), append(p.errs, nil)
		case error:
			p.pages, p.errs = append(p.pages, nil), append(p.errs, s)
		}
	}
	return p
}

func TestSettler(t *testing.T) {
	ctx := context.Background()
	bound := Outcome{"ns/a": {Node: "n1"}, "ns/b": {Reason: "0/3 nodes are available"}}
	moved := Outcome{"ns/a": {Node: "n2"}, "ns/b": {Reason: "0/3 nodes are available"}}
	idle := schedulerPage(0, 0, 1, 0, 5)
	type look struct {
		outcome    Outcome
		allDecided bool
		done       bool
	}
	for _, tc := range []struct {
		name    string
		metrics SchedulerMetrics
		looks   []look
		how     string
	}{{
		name:    "idle at once: done at the second look",
		metrics: servePages(idle),
		looks:   []look{{bound, true, false}, {bound, true, true}},
		how:     "done when the scheduler had nothing left to try: 0 active, 0 in backoff, 0 binding, 1 parked unschedulable, 6 attempts",
	}, {
		// A pod inside its scheduling cycle is in no queue: the attempt
		// counter moving between two idle looks says so.
		name:    "an attempt between idle looks",
		metrics: servePages(idle, schedulerPage(0, 0, 1, 0, 6), schedulerPage(0, 0, 1, 0, 6)),
		looks:   []look{{bound, true, false}, {bound, true, false}, {bound, true, true}},
		how:     "nothing left to try",
	}, {
		// The gang's case: its pods all look decided (PodScheduled=False)
		// while the scheduler still holds them in backoff, then at Permit.
		name:    "pods that look decided while in backoff, then binding",
		metrics: servePages(schedulerPage(0, 4, 0, 0, 4), schedulerPage(0, 0, 0, 4, 8), idle, idle),
		looks:   []look{{bound, true, false}, {bound, true, false}, {bound, true, false}, {bound, true, true}},
		how:     "nothing left to try",
	}, {
		name:    "the pods changed between idle looks",
		metrics: servePages(idle),
		looks:   []look{{bound, true, false}, {moved, true, false}, {moved, true, true}},
		how:     "nothing left to try",
	}, {
		name:    "not every pod decided",
		metrics: servePages(idle),
		looks:   []look{{bound, false, false}, {bound, true, false}, {bound, true, true}},
		how:     "nothing left to try",
	}, {
		name:    "one failed read is waited out",
		metrics: servePages(idle, errors.New("connection refused"), idle),
		looks:   []look{{bound, true, false}, {bound, true, false}, {bound, true, false}, {bound, true, true}},
		how:     "nothing left to try",
	}, {
		name:    "metrics never served: the pods' word after three failed reads",
		metrics: servePages(errors.New("connection refused")),
		looks:   []look{{bound, true, false}, {bound, true, false}, {bound, true, false}, {bound, true, true}},
		how:     "taken at its pods' word: its scheduler's metrics could not be read (connection refused)",
	}, {
		name:  "a runtime that serves no metrics: the pods' word",
		looks: []look{{bound, true, false}, {bound, true, true}},
		how:   "taken at its pods' word: the runtime serves no scheduler metrics",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &settler{metrics: tc.metrics}
			for i, l := range tc.looks {
				if got := s.done(ctx, l.outcome, l.allDecided); got != l.done {
					t.Fatalf("look %d: done = %v, want %v (%s)", i, got, l.done, s.How)
				}
			}
			if !strings.Contains(s.How, tc.how) {
				t.Errorf("How = %q, want it to say %q", s.How, tc.how)
			}
		})
	}
}

// Kubernetes 1.37 retries a native gang that cannot fit from backoff without
// end: an outcome that holds for the retry window while the scheduler does
// nothing but retry from backoff is final; one that changes, or anything
// active or binding, starts the window again.
func TestSettlerRetryWindow(t *testing.T) {
	ctx := context.Background()
	parked := Outcome{"ns/g-0": {Reason: "minCount (3) cannot be satisfied"}, "ns/g-1": {Reason: "minCount (3) cannot be satisfied"}}
	other := Outcome{"ns/g-0": {Node: "n1"}, "ns/g-1": {Reason: "minCount (3) cannot be satisfied"}}
	retrying := func(attempts int) []byte { return schedulerPage(0, 2, 0, 0, attempts) }
	type look struct {
		at      time.Duration
		outcome Outcome
		page    []byte
		done    bool
	}
	for _, tc := range []struct {
		name  string
		looks []look
	}{{
		name: "held for the window: done",
		looks: []look{{0, parked, retrying(2), false}, {10 * time.Second, parked, retrying(4), false},
			{19 * time.Second, parked, retrying(5), false}, {20 * time.Second, parked, retrying(6), true}},
	}, {
		name: "the outcome changed inside the window: it starts again",
		looks: []look{{0, parked, retrying(2), false}, {15 * time.Second, other, retrying(4), false},
			{30 * time.Second, other, retrying(6), false}, {35 * time.Second, other, retrying(7), true}},
	}, {
		name: "a pod active or binding at the end of the window: not done",
		looks: []look{{0, parked, retrying(2), false}, {20 * time.Second, parked, schedulerPage(1, 1, 0, 0, 6), false},
			{21 * time.Second, parked, schedulerPage(0, 0, 0, 2, 6), false}, {22 * time.Second, parked, retrying(7), true}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Unix(1000, 0)
			var at time.Duration
			var steps []any
			for _, l := range tc.looks {
				steps = append(steps, l.page)
			}
			s := &settler{metrics: servePages(steps...), retryWindow: 20 * time.Second, now: func() time.Time { return start.Add(at) }}
			for i, l := range tc.looks {
				at = l.at
				if got := s.done(ctx, l.outcome, true); got != l.done {
					t.Fatalf("look %d at %s: done = %v, want %v (%s)", i, l.at, got, l.done, s.How)
				}
			}
			if want := "done when its pods' outcome had held for 20s (two of its longest backoffs) while its scheduler only retried pods from backoff: 0 active, 2 in backoff"; !strings.HasPrefix(s.How, want) {
				t.Errorf("How = %q, want %q...", s.How, want)
			}
		})
	}
	s := &settler{metrics: servePages(retrying(2)), now: func() time.Time { return time.Unix(1000, 0) }}
	for i := range 3 {
		if s.done(ctx, parked, true) {
			t.Fatalf("look %d: done without a retry window", i)
		}
	}
	if got := s.unsettled(time.Minute); got != "not settled within 1m0s; its scheduler last held 0 active, 2 in backoff, 0 binding, 0 parked unschedulable, 3 attempts" {
		t.Errorf("unsettled = %q", got)
	}
}

func TestRetryWindowOf(t *testing.T) {
	for config, want := range map[string]time.Duration{
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n": 20 * time.Second,
		"podMaxBackoffSeconds: 30\n": time.Minute,
		"profiles:\n- pluginConfig:\n  - name: Coscheduling\n    args: {podGroupBackoffSeconds: 45}\n": 90 * time.Second,
		"profiles:\n- pluginConfig:\n  - name: Coscheduling\n    args: {podGroupBackoffSeconds: 5}\n":  20 * time.Second,
		"not: [yaml": 20 * time.Second,
	} {
		if got := retryWindowOf([]byte(config)); got != want {
			t.Errorf("retryWindowOf(%q) = %s, want %s", config, got, want)
		}
	}
}
