package operandrunner

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/kubernetes"
)

const (
	pollInterval = time.Second
	// Back-off after the scheduler exits, doubling up to maxBackoff as a kubelet's
	// CrashLoopBackOff does; reset once it has run for resetAfter.
	minBackoff = 2 * time.Second
	maxBackoff = 40 * time.Second
	resetAfter = time.Minute
)

// Run keeps one kube-scheduler in line with the operand until ctx ends, as a
// kubelet keeps a pod: it starts it once the Deployment and its ConfigMap exist,
// restarts it when the container's arguments or the configuration change or when
// it exits (after a back-off), and stops it when the Deployment goes away or is
// scaled to zero. started, when not nil, is called with every scheduler it starts.
func Run(ctx context.Context, o Options, started func(*Scheduler)) error {
	kube, err := kubernetes.NewForConfig(o.Admin)
	if err != nil {
		return err
	}
	var (
		s         *Scheduler
		startedAt time.Time
		notBefore time.Time
		backoff   = minBackoff
		lastErr   string
	)
	defer func() {
		if s != nil {
			s.Stop()
		}
	}()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		pod, err := ReadPod(ctx, kube)
		switch {
		case errors.Is(err, ErrRollingOut):
			// Keep what runs until the operator has written both.
		case err != nil:
			if msg := err.Error(); msg != lastErr && ctx.Err() == nil {
				o.logf("reading the operand: %v", err)
				lastErr = msg
			}
		case pod == nil:
			if s != nil {
				o.logf("the operand Deployment is gone or scaled to zero: stopping kube-scheduler")
				s.Stop()
				s = nil
			}
		default:
			lastErr = ""
			if s != nil && s.Pod.Key != pod.Key {
				o.logf("the operand's arguments or configuration changed: restarting kube-scheduler")
				s.Stop()
				s = nil
				backoff, notBefore = minBackoff, time.Time{}
			}
			if s == nil && !time.Now().Before(notBefore) {
				if s, err = Start(ctx, o, pod); err != nil {
					o.logf("starting kube-scheduler: %v", err)
					s, notBefore = nil, time.Now().Add(backoff)
				} else {
					startedAt = time.Now()
					if started != nil {
						started(s)
					}
				}
			}
		}
		var exited <-chan struct{}
		if s != nil {
			exited = s.Done()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		case <-exited:
			if time.Since(startedAt) > resetAfter {
				backoff = minBackoff
			}
			o.logf("kube-scheduler exited (%v); restarting in %s, see %s", s.ExitErr(), backoff, s.LogPath)
			s, notBefore = nil, time.Now().Add(backoff)
			backoff = min(2*backoff, maxBackoff)
		}
	}
}
