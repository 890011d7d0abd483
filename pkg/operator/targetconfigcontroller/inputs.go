package targetconfigcontroller

import (
	"fmt"
	"time"

	"github.com/openshift/library-go/pkg/operator/condition"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/gather"
)

// gathered is every input of one sync, read from the caches.
type gathered struct {
	*gather.Inputs
	// awaiting is what a new SecondaryScheduler's first rollout waits for, at most awaitFor.
	awaiting string
	awaitFor time.Duration
}

// gather reads every input of a sync. The rollout record starts from the one
// this controller last decided, not the cache's: the informer may not have
// delivered that write yet, and a rollback decided from an older copy would
// roll the failed template out again.
func (c *targetConfigController) gather(ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus) (*gathered, error) {
	in, err := gather.Gather(ss, own.record, c.sources)
	if err != nil {
		return nil, err
	}
	g := &gathered{Inputs: in}
	g.awaiting, g.awaitFor = c.awaitObserver(ss, in.Live)
	return g, nil
}

// awaitObserver holds the first rollout of a new SecondaryScheduler until a
// pass of the config observer succeeded (one whose spec write met a conflict
// observed nothing), at most observerWait after the SecondaryScheduler was
// created: else the scheduler would restart once the TLS profile is observed.
func (c *targetConfigController) awaitObserver(ss *secondaryschedulerv1.SecondaryScheduler, live *appsv1.Deployment) (string, time.Duration) {
	if c.observerWait <= 0 || live != nil || v1helpers.IsOperatorConditionFalse(ss.Status.Conditions, condition.ConfigObservationDegradedConditionType) {
		return "", 0
	}
	if left := ss.CreationTimestamp.Add(c.observerWait).Sub(c.clock.Now()); left > 0 {
		return fmt.Sprintf("The first rollout waits up to %s for the config observer to read the cluster's TLS profile and scheduler profile, "+
			"so that the scheduler starts once with them.", c.observerWait), left
	}
	return "", 0
}
