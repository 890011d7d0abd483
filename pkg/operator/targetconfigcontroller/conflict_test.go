package targetconfigcontroller

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A conflict (the cache behind a write) is retried without a Degraded
// condition, up to conflictsBeforeDegraded in a row; the controller here has
// no client, so a condition written would panic.
func TestConflictsAreRetriedQuietly(t *testing.T) {
	c := &targetConfigController{}
	conflict := fmt.Errorf("applying Deployment: %w",
		apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "secondary-scheduler", fmt.Errorf("the object has been modified")))
	for i := 1; i < conflictsBeforeDegraded; i++ {
		if err := c.applyFailed(context.Background(), nil, nil, conflict, "applying Deployment"); !apierrors.IsConflict(err) {
			t.Fatalf("conflict %d: %v, want the conflict returned for a retry", i, err)
		}
	}
	if c.conflicts != conflictsBeforeDegraded-1 {
		t.Fatalf("counted %d conflicts, want %d", c.conflicts, conflictsBeforeDegraded-1)
	}
}
