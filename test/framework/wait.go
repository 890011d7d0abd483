package framework

import (
	"context"
	"fmt"
	"runtime/debug"
	"testing"
	"time"
)

const (
	// DefaultTimeout bounds WaitFor: long enough for any convergence on a loaded
	// 2-core machine, short enough that a stuck test fails in seconds, not minutes.
	DefaultTimeout = 30 * time.Second
	// PollInterval is how often WaitFor and Consistently evaluate their condition.
	PollInterval = 100 * time.Millisecond
)

// WaitFor polls cond until it returns true, failing the test after DefaultTimeout
// (or when ctx ends). A returned error does not end the wait: it says why the
// condition does not hold yet, and the last one is in the failure message. cond
// runs on the test's goroutine, so it may call t.Fatal to stop at once.
func WaitFor(ctx context.Context, t testing.TB, desc string, cond func() (bool, error)) {
	t.Helper()
	WaitForWithin(ctx, t, DefaultTimeout, desc, cond)
}

// WaitForWithin is WaitFor with another timeout.
func WaitForWithin(ctx context.Context, t testing.TB, timeout time.Duration, desc string, cond func() (bool, error)) {
	t.Helper()
	if err := poll(ctx, timeout, cond); err != nil {
		t.Fatalf("waiting for %s: %v", desc, err)
	}
}

// poll is WaitFor's loop, returning its failure instead of failing a test.
func poll(ctx context.Context, timeout time.Duration, cond func() (bool, error)) error {
	start := time.Now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	var lastErr error
	polls := 0
	for {
		polls++
		ok, err := cond()
		if ok && err == nil {
			return nil
		}
		lastErr = err
		select {
		case <-tick.C:
		case <-deadline.C:
			return waitFailure(fmt.Sprintf("timed out after %s", timeout), polls, lastErr)
		case <-ctx.Done():
			return waitFailure(fmt.Sprintf("context ended after %s (%v)", time.Since(start).Round(time.Millisecond), ctx.Err()), polls, lastErr)
		}
	}
}

func waitFailure(what string, polls int, lastErr error) error {
	if lastErr != nil {
		return fmt.Errorf("%s, %d polls; last error: %w", what, polls, lastErr)
	}
	return fmt.Errorf("%s, %d polls; the condition stayed false", what, polls)
}

// WaitForStable polls value until it has returned the same value, and no
// error, for d, and returns that value: "wait until this stops changing"
// without a fixed sleep. It fails the test when that takes longer than
// DefaultTimeout plus d.
func WaitForStable[T comparable](ctx context.Context, t testing.TB, d time.Duration, desc string, value func() (T, error)) T {
	t.Helper()
	var last T
	var since time.Time
	seen := false
	err := poll(ctx, DefaultTimeout+d, func() (bool, error) {
		v, err := value()
		if err != nil {
			seen = false
			return false, err
		}
		if !seen || v != last {
			last, since, seen = v, time.Now(), true
		}
		if stable := time.Since(since); stable < d {
			return false, fmt.Errorf("%+v, unchanged for only %s of %s", v, stable.Round(time.Millisecond), d)
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s to stay unchanged for %s: %v", desc, d, err)
	}
	return last
}

// Consistently checks cond every PollInterval for d and fails the test the first
// time it returns false or an error: "nothing happens for d".
func Consistently(ctx context.Context, t testing.TB, d time.Duration, desc string, cond func() (bool, error)) {
	t.Helper()
	start := time.Now()
	end := time.NewTimer(d)
	defer end.Stop()
	tick := time.NewTicker(PollInterval)
	defer tick.Stop()
	for {
		ok, err := cond()
		if !ok || err != nil {
			if err == nil {
				err = fmt.Errorf("the condition became false")
			}
			t.Fatalf("%s: broken after %s of %s: %v", desc, time.Since(start).Round(time.Millisecond), d, err)
		}
		select {
		case <-tick.C:
		case <-end.C:
			return
		case <-ctx.Done():
			t.Fatalf("%s: context ended after %s of %s: %v", desc, time.Since(start).Round(time.Millisecond), d, ctx.Err())
		}
	}
}

// backgroundStopTimeout is how long RunInBackground waits for fn to return after
// cancelling its context.
const backgroundStopTimeout = 30 * time.Second

// RunInBackground runs fn on its own goroutine with a context that is cancelled
// when the test ends; the test's cleanup then waits for fn to return. A panic in
// fn, or fn not returning within 30 s of the cancel, is a test error. Use it to run the
// operator's controllers in-process.
func RunInBackground(t testing.TB, fn func(ctx context.Context)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			// Safe: the test cannot complete before done is closed (see Cleanup).
			if r := recover(); r != nil {
				t.Errorf("background function panicked: %v\n%s", r, debug.Stack())
				cancel()
			}
		}()
		fn(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(backgroundStopTimeout):
			t.Errorf("background function did not return within %s after its context was cancelled", backgroundStopTimeout)
		}
	})
}
