package targetconfigcontroller

import (
	"fmt"
	"time"

	"github.com/openshift/library-go/pkg/operator/condition"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/cached"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// gathered is every input of one sync, read from the caches.
type gathered struct {
	render render.Inputs
	// live is the scheduler's Deployment, nil when there is none, and pods its pods.
	live     *appsv1.Deployment
	pods     []*corev1.Pod
	observed rollout.Observed
	// record is the one this controller last decided, a completed rollout noted.
	record rollout.Record
	// awaiting is what a new SecondaryScheduler's first rollout waits for, at most awaitFor.
	awaiting string
	awaitFor time.Duration
}

// gather reads every input of a sync. The rollout record starts from the one
// this controller last decided, not the cache's: the informer may not have
// delivered that write yet, and a rollback decided from an older copy would
// roll the failed template out again.
func (c *targetConfigController) gather(ss *secondaryschedulerv1.SecondaryScheduler, own *ownStatus) (*gathered, error) {
	g := &gathered{render: render.Inputs{SecondaryScheduler: ss}, record: own.record.Copy()}
	if err := c.gatherSpecInputs(ss, &g.render); err != nil {
		return nil, err
	}
	if err := c.gatherLive(g); err != nil {
		return nil, err
	}
	if lkg := g.record.LastKnownGood; lkg != nil {
		cm, err := cached.Get(c.configMapLister.Get, render.ConfigMapNameFor(lkg.ConfigHash))
		if err != nil {
			return nil, err
		}
		g.render.LastKnownGood, g.render.LastKnownGoodConfig = lkg.DeepCopy(), cm
	}
	g.awaiting, g.awaitFor = c.awaitObserver(ss, g.live)
	return g, nil
}

// gatherSpecInputs reads what the rendered objects depend on besides the
// SecondaryScheduler: its ConfigMap, the serving certificate, the operand
// namespace's Pod Security level and the ceiling of spec.rbac.
func (c *targetConfigController) gatherSpecInputs(ss *secondaryschedulerv1.SecondaryScheduler, in *render.Inputs) error {
	var err error
	if name := ss.Spec.SchedulerConfig; name != "" {
		// Absent, render reports the missing ConfigMap by name.
		if in.UserConfig, err = cached.Get(c.configMapLister.Get, name); err != nil {
			return err
		}
	}
	cert, err := cached.Get(c.secretLister.Get, render.ServingCertSecretName)
	if err != nil {
		return err
	}
	in.ServingCertAvailable = cert != nil
	ns, err := cached.Get(c.namespaces.Get, render.OperandNamespace)
	if err != nil {
		return err
	}
	if ns != nil {
		in.PodSecurityEnforce = ns.Labels[render.PodSecurityEnforceLabel]
	}
	role, err := cached.Get(c.grantableLister.Get, render.GrantableClusterRole)
	if err != nil {
		return err
	}
	in.Ceiling = &render.Ceiling{Role: role}
	return nil
}

// gatherLive reads the scheduler's Deployment and pods, and what they say of
// the rollout.
func (c *targetConfigController) gatherLive(g *gathered) error {
	live, err := cached.Get(c.deployments.Get, render.OperandName)
	if err != nil || live == nil {
		return err
	}
	if g.pods, err = c.podLister.List(labels.SelectorFromSet(labels.Set{"app.kubernetes.io/name": render.OperandName})); err != nil {
		return err
	}
	g.live, g.observed = live, rollout.Observe(live, g.pods)
	g.record = g.record.Observe(g.observed)
	return nil
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
