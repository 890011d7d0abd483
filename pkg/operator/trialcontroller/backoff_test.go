package trialcontroller

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

func TestRetryDelayBacksOff(t *testing.T) {
	for attempts, want := range map[int32]time.Duration{
		0: 5 * time.Minute, 1: 5 * time.Minute, 2: 10 * time.Minute, 3: 20 * time.Minute, 4: 40 * time.Minute,
		5: time.Hour, 6: time.Hour, 1000: time.Hour,
	} {
		if got := RetryDelay(attempts); got != want {
			t.Errorf("RetryDelay(%d) = %s, want %s", attempts, got, want)
		}
	}
}

// A trial that fails again waits longer; a request answered once stops the
// count; a trial of another request starts it afresh; the wait is read from
// status, so that a restarted operator keeps it.
func TestFailedTrialsBackOff(t *testing.T) {
	now := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	failed := func(key string, attempts int32, ago time.Duration) *secondaryschedulerv1.TrialResult {
		at := metav1.NewTime(now.Add(-ago))
		return &secondaryschedulerv1.TrialResult{Key: key, Verdict: secondaryschedulerv1.TrialFailed, FailedAttempts: attempts, FinishedAt: &at}
	}
	req := &secondaryschedulerv1.TrialRequest{Key: "k1"}
	for _, tc := range []struct {
		name string
		last *secondaryschedulerv1.TrialResult
		want answer
	}{
		{"first failure, 4 minutes ago", failed("k1", 1, 4*time.Minute), retryLater},
		{"first failure, 6 minutes ago", failed("k1", 1, 6*time.Minute), runAgain},
		{"third failure, 15 minutes ago", failed("k1", 3, 15*time.Minute), retryLater},
		{"third failure, 21 minutes ago", failed("k1", 3, 21*time.Minute), runAgain},
		{"tenth failure, 59 minutes ago", failed("k1", 10, 59*time.Minute), retryLater},
		{"tenth failure, 61 minutes ago", failed("k1", 10, 61*time.Minute), runAgain},
		{"recorded before attempts were counted", failed("k1", 0, 4*time.Minute), retryLater},
	} {
		if got := decideAnswered(tc.last, req, nil, now); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		last *secondaryschedulerv1.TrialResult
		want int32
	}{
		{"none", nil, 0},
		{"failed twice", failed("k1", 2, time.Hour), 2},
		{"interrupted after two failures", &secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialRunning, FailedAttempts: 2}, 2},
		{"another request's failures", failed("k0", 2, time.Hour), 0},
		{"blocked: a verdict", &secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialBlocked, FailedAttempts: 2}, 0},
	} {
		if got := priorFailures(tc.last, "k1"); got != tc.want {
			t.Errorf("priorFailures, %s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// A result that failed counts one more attempt and says when it is tried
// again, even when its reasons fill the message; a verdict ends the count.
func TestBackOffSaysWhen(t *testing.T) {
	finished := time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)
	r := &secondaryschedulerv1.TrialResult{Verdict: secondaryschedulerv1.TrialInconclusive, FailedAttempts: 2, Message: strings.Repeat("undecided ", 1000)}
	backOff(r, finished)
	if r.FailedAttempts != 3 || len(r.Message) > maxMessage ||
		!strings.HasSuffix(r.Message, "It is tried again at 10:20:00Z, 20m0s after this trial (attempt 3 in a row without a verdict; "+
			"the wait doubles from 5m0s up to 1h0m0s), or at once when an input changes.") {
		t.Errorf("attempts %d, message (%d bytes) ending %q", r.FailedAttempts, len(r.Message), r.Message[max(0, len(r.Message)-200):])
	}
	allowed := &secondaryschedulerv1.TrialResult{Verdict: secondaryschedulerv1.TrialAllowed, FailedAttempts: 3, Message: "allowed"}
	if backOff(allowed, finished); allowed.FailedAttempts != 0 || allowed.Message != "allowed" {
		t.Errorf("an allowed verdict: attempts %d, message %q; want the count ended", allowed.FailedAttempts, allowed.Message)
	}
}

// The controller carries the count from status through a trial that fails
// again: an operator restarted between the two keeps backing off.
func TestFailedTrialCountsItsAttempt(t *testing.T) {
	ss := trialSpec()
	long := metav1.NewTime(time.Now().Add(-2 * time.Hour))
	ss.Status.LastTrial = &secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialFailed, FailedAttempts: 2, FinishedAt: &long}
	f, _ := failOnSwappedBaseline(t, ss)
	l := f.op.last()
	if l.FailedAttempts == nil || *l.FailedAttempts != 3 || !strings.Contains(*l.Message, "20m0s after this trial (attempt 3 in a row") {
		t.Errorf("failedAttempts %v, message %q; want the third attempt, retried 20 minutes later", l.FailedAttempts, *l.Message)
	}
}
