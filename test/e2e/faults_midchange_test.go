package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// firstWriteTimeout bounds the wait for the operator's first write of a
// change; the kill comes then anyway, and its split of the writes says
// whether it was mid-change.
const firstWriteTimeout = 10 * time.Second

// killAfter kills the operator after delay (or, under the misplaced trigger,
// once finished says the change is done) and starts it again: for changes
// whose writes outlast any one of them, as creating hundreds of Simulators
// does. It returns when the kill happened.
func (c *cluster) killAfter(t *testing.T, delay time.Duration, finished func(ctx context.Context) error) time.Time {
	t.Helper()
	when := delay.String() + " into the change"
	if killAfterConverged() {
		c.waitForWrite(t, nil, nil, finished)
		when = "after the change was done (FAULTS_KILL_AFTER_CONVERGED)"
	} else {
		time.Sleep(delay)
	}
	c.killOperator(t)
	killed := time.Now()
	t.Logf("killed the operator %s", when)
	c.startOperator(t)
	return killed
}

// reconciledErr is reconciled's verdict alone.
func (c *cluster) reconciledErr(ctx context.Context) error {
	_, err := c.reconciled(ctx)
	return err
}

// nothingOwnedErr fails while the operator still owns an object.
func (c *cluster) nothingOwnedErr(t *testing.T) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		objects, configMaps := c.ownedObjects(ctx, t)
		if len(objects)+len(configMaps) > 0 {
			return fmt.Errorf("%w: %v %v", errStillOwned, objects, configMaps)
		}
		return nil
	}
}
