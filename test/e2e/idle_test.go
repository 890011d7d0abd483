package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// allowedWhileIdle: a converged operator renews its lease and keeps its
// watches open (the API server ends each after a few minutes; the informer
// opens the next); anything else is work that a cluster at rest does not need.
func allowedWhileIdle(ev auditv1.Event) bool {
	return isLease(ev) || (ev.Verb == "watch" && !isInitialList(ev))
}

// TestIdleOperatorOnlyRenewsItsLease: once the operator has converged, the
// API server receives from it nothing but lease renewals and watches: no GET,
// no list, no write, as the API server's audit log counts them.
func TestIdleOperatorOnlyRenewsItsLease(t *testing.T) {
	c := needCluster(t)
	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)

	// Converged means: the last request beyond the allowed ones is 5 s old.
	c.waitOperatorQuiet(t, time.Now(), 5*time.Second)

	const window = 30 * time.Second
	idle := time.Now()
	time.Sleep(window)
	events := c.operatorRequests(t, idle)
	var beyond []auditv1.Event
	for _, ev := range events {
		if !allowedWhileIdle(ev) {
			beyond = append(beyond, ev)
		}
	}
	t.Logf("IDLE in %s the API server received from the operator: %s", window, requestsByKind(events))
	if len(beyond) != 0 {
		t.Fatalf("the converged operator sent %d requests beyond lease renewals and watches: %s", len(beyond), requestsByKind(beyond))
	}
	// With a lease renewed every 2 s here, an empty count would mean the
	// audit log missed the operator, and the check above proved nothing.
	leases := 0
	for _, ev := range events {
		if isLease(ev) {
			leases++
		}
	}
	if leases == 0 {
		t.Fatalf("the audit log holds no lease renewal of the operator in %s: it does not record the operator's requests", window)
	}
}

// waitOperatorQuiet waits until the operator's last request beyond lease
// renewals and watches, since since, is quiet old, as the API server's audit
// log shows.
func (c *cluster) waitOperatorQuiet(t *testing.T, since time.Time, quiet time.Duration) {
	t.Helper()
	framework.WaitFor(context.Background(), t, fmt.Sprintf("%s without a request of the operator beyond lease renewals and watches", quiet), func() (bool, error) {
		last := since
		for _, ev := range c.operatorRequests(t, since) {
			if !allowedWhileIdle(ev) && ev.RequestReceivedTimestamp.Time.After(last) {
				last = ev.RequestReceivedTimestamp.Time
			}
		}
		if ago := time.Since(last); ago < quiet {
			return false, fmt.Errorf("a request %s ago", ago.Round(time.Millisecond))
		}
		return true, nil
	})
}
