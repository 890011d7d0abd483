// Package trialcontroller runs the trials spec.rollout.strategy Trial asks
// for. It meets the rollout only through the SecondaryScheduler's status: the
// target-config controller writes the change to try into
// status.trialRequest, this controller runs a trial of it in the background
// (a trial takes tens of seconds, so never inside a sync) and answers in
// status.lastTrial, with a report ConfigMap and an event. It owns the trial
// objects (package podruntime): whatever no running trial holds is deleted,
// at start, when the request goes, and under Unmanaged or Removed.
package trialcontroller

import (
	"context"
	"errors"
	"sync"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
)

const (
	// FieldManager owns status.lastTrial.
	FieldManager = "TrialController"
	// ReportName is the ConfigMap, in the operand namespace, that holds the
	// last trial's full report.
	ReportName = "secondary-scheduler-trial-report"
	// RetryFailedTrialAfter is how long a trial that could not run (an image
	// not pulled, no room for its Pods) or was inconclusive stands before the
	// same request is tried again: its cause may be gone without any input
	// changing. Each such verdict in a row doubles the wait, up to
	// MaxRetryFailedTrialAfter: a cause that stays costs three Pods an hour,
	// not twelve.
	RetryFailedTrialAfter = 5 * time.Minute
	// MaxRetryFailedTrialAfter caps the wait before a failed trial is retried.
	MaxRetryFailedTrialAfter = time.Hour
)

// RetryDelay is how long a trial stands after failedAttempts Failed or
// Inconclusive verdicts in a row before it is tried again. A verdict
// recorded before the attempts were counted (0) counts as the first.
func RetryDelay(failedAttempts int32) time.Duration {
	d := RetryFailedTrialAfter
	for i := int32(1); i < failedAttempts && d < MaxRetryFailedTrialAfter; i++ {
		d *= 2
	}
	return min(d, MaxRetryFailedTrialAfter)
}

// priorFailures is how many trials of key in a row failed before the one
// that starts now, as last records them: a Running trial of the key was
// interrupted, and carries the count of its own start.
func priorFailures(last *secondaryschedulerv1.TrialResult, key string) int32 {
	if last == nil || last.Key != key {
		return 0
	}
	switch last.Verdict {
	case secondaryschedulerv1.TrialFailed, secondaryschedulerv1.TrialInconclusive, secondaryschedulerv1.TrialRunning:
		return last.FailedAttempts
	}
	return 0
}

type controller struct {
	operatorClient operatorclient.Interface
	kube           kubernetes.Interface
	configMaps     corev1listers.ConfigMapNamespaceLister
	// objects list the trial objects of each kind, from the caches.
	objects    []objectLister
	run        RunFunc
	recorderOn func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder
	clock      clock.PassiveClock
	// base is the operator's lifetime: a trial outlives the sync that started it.
	base context.Context

	mu     sync.Mutex
	active *active
	// recorded is the last verdict this process wrote, for the
	// SecondaryScheduler of that UID: the trial's end queues a sync that may
	// read the cache before the write reaches it, and the Running record the
	// cache still holds would start the same trial again at once.
	recorded    *secondaryschedulerv1.TrialResult
	recordedFor types.UID
}

// active is the trial this process runs.
type active struct {
	key    string
	cancel context.CancelFunc
	done   chan struct{}
}

// objectLister lists one kind of trial object from its cache, with the
// client that deletes it.
type objectLister struct {
	kind podruntime.Kind
	list func() ([]metav1.Object, error)
}

// New returns the trial controller; its trials live until base is done.
func New(base context.Context, operatorClient operatorclient.Interface, kube kubernetes.Interface,
	kubeInformers v1helpers.KubeInformersForNamespaces, run RunFunc,
	recorderOn func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder, recorder events.Recorder) factory.Controller {
	c := newController(base, operatorClient, kube, kubeInformers, run, recorderOn)
	operand := kubeInformers.InformersFor(names.OperandNamespace)
	return factory.New().WithInformers(operatorClient.Informer(), operand.Core().V1().ConfigMaps().Informer(),
		operand.Core().V1().Pods().Informer(), operand.Core().V1().Secrets().Informer(), operand.Networking().V1().NetworkPolicies().Informer()).
		WithSync(metrics.InstrumentSync("TrialController", c.sync)).
		ToController("TrialController", recorder)
}

func newController(base context.Context, operatorClient operatorclient.Interface, kube kubernetes.Interface,
	kubeInformers v1helpers.KubeInformersForNamespaces, run RunFunc,
	recorderOn func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder) *controller {
	operand := kubeInformers.InformersFor(names.OperandNamespace)
	kinds := podruntime.Kinds(kube, names.OperandNamespace)
	pods, secrets, policies := operand.Core().V1().Pods().Lister().Pods(names.OperandNamespace),
		operand.Core().V1().Secrets().Lister().Secrets(names.OperandNamespace),
		operand.Networking().V1().NetworkPolicies().Lister().NetworkPolicies(names.OperandNamespace)
	return &controller{
		operatorClient: operatorClient,
		kube:           kube,
		configMaps:     operand.Core().V1().ConfigMaps().Lister().ConfigMaps(names.OperandNamespace),
		objects: []objectLister{
			{kinds[0], func() ([]metav1.Object, error) { l, err := pods.List(podruntime.Selector()); return objectsOf(l), err }},
			{kinds[1], func() ([]metav1.Object, error) {
				l, err := secrets.List(podruntime.Selector())
				return objectsOf(l), err
			}},
			{kinds[2], func() ([]metav1.Object, error) {
				l, err := policies.List(podruntime.Selector())
				return objectsOf(l), err
			}},
		},
		run: run, recorderOn: recorderOn, clock: clock.RealClock{}, base: base,
	}
}

func objectsOf[T metav1.Object](list []T) []metav1.Object {
	out := make([]metav1.Object, len(list))
	for i, o := range list {
		out[i] = o
	}
	return out
}

// sync runs what status.trialRequest names and cancels what it does not.
func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	ss, err := c.operatorClient.Get()
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	req := requested(ss)
	if a := c.running(); a != nil {
		if req == nil || a.key != req.Key {
			a.cancel() // its goroutine cleans up and queues the next sync
		}
		return nil
	}
	// Nothing runs in this process: whatever trial objects exist are left over.
	left, err := c.removeLeftovers(ctx)
	if err != nil || req == nil {
		return err
	}
	last := c.freshest(ss)
	if last != nil && last.Key == req.Key {
		switch decideAnswered(last, req, policyOf(ss), c.clock.Now()) {
		case answered:
			// Tried again once the verdict expires, if the change is still held then.
			if last.FinishedAt != nil {
				syncCtx.Queue().AddAfter(syncCtx.QueueKey(), verdictTTL(policyOf(ss))-c.clock.Now().Sub(last.FinishedAt.Time)+time.Second)
			}
			return nil
		case judgeAgain:
			return c.writeStatus(ctx, rejudge(last, req.Gate))
		case retryLater:
			syncCtx.Queue().AddAfter(syncCtx.QueueKey(), last.FinishedAt.Add(RetryDelay(last.FailedAttempts)).Sub(c.clock.Now()))
			return nil
		}
	}
	if left > 0 {
		return nil // their deletions queue the next sync
	}
	ss = ss.DeepCopy()
	ss.Status.LastTrial = last
	c.start(ss, req.DeepCopy(), func() { syncCtx.Queue().Add(syncCtx.QueueKey()) })
	return nil
}

// freshest is ss's lastTrial, or the verdict this process recorded when the
// cached ss does not hold it yet: the cache's record is older, or is the
// Running record of the same trial's start. Status times are whole seconds.
func (c *controller) freshest(ss *secondaryschedulerv1.SecondaryScheduler) *secondaryschedulerv1.TrialResult {
	cached := ss.Status.LastTrial
	c.mu.Lock()
	r, uid := c.recorded, c.recordedFor
	c.mu.Unlock()
	if r == nil || uid != ss.UID {
		return cached
	}
	started := r.StartedAt.Truncate(time.Second)
	switch {
	case cached == nil, cached.StartedAt.Time.Before(started):
		return r.DeepCopy()
	case cached.StartedAt.Time.Equal(started) && cached.Key == r.Key && cached.Verdict == secondaryschedulerv1.TrialRunning:
		return r.DeepCopy()
	}
	return cached
}

// record keeps result as the last verdict this process wrote for ss.
func (c *controller) record(ss *secondaryschedulerv1.SecondaryScheduler, result secondaryschedulerv1.TrialResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recorded, c.recordedFor = result.DeepCopy(), ss.UID
}

// requested is the trial ss asks for: none while it goes, is not Managed,
// or does not roll out by trial.
func requested(ss *secondaryschedulerv1.SecondaryScheduler) *secondaryschedulerv1.TrialRequest {
	if ss == nil || ss.DeletionTimestamp != nil || ss.Spec.Rollout == nil || ss.Spec.Rollout.Strategy != secondaryschedulerv1.RolloutTrial {
		return nil
	}
	switch ss.Spec.ManagementState {
	case operatorv1.Managed, operatorv1.Force:
		return ss.Status.TrialRequest
	}
	return nil
}

// answer is what to do about a request that lastTrial answers.
type answer int

const (
	runAgain   answer = iota // interrupted, failed long enough ago, or a verdict without counts
	answered                 // the verdict stands
	judgeAgain               // the counts stand, judged by another gate
	retryLater               // failed, too recently to try again (RetryDelay)
)

func decideAnswered(last *secondaryschedulerv1.TrialResult, req *secondaryschedulerv1.TrialRequest, policy *secondaryschedulerv1.TrialPolicy,
	now time.Time) answer {
	switch last.Verdict {
	case secondaryschedulerv1.TrialRunning:
		return runAgain // no trial runs here: the process that ran it is gone
	case secondaryschedulerv1.TrialFailed, secondaryschedulerv1.TrialInconclusive:
		if last.FinishedAt != nil && last.FinishedAt.Add(RetryDelay(last.FailedAttempts)).After(now) {
			return retryLater
		}
		return runAgain
	}
	if last.Counts == nil || rollout.VerdictExpired(last, policy, now) {
		return runAgain
	}
	if last.Gate == nil || !rollout.SameGate(*last.Gate, req.Gate) {
		return judgeAgain
	}
	return answered
}

// policyOf is ss's spec.rollout.trial, nil when unset.
func policyOf(ss *secondaryschedulerv1.SecondaryScheduler) *secondaryschedulerv1.TrialPolicy {
	if ss.Spec.Rollout == nil {
		return nil
	}
	return ss.Spec.Rollout.Trial
}

// verdictTTL is policy's verdictTTLSeconds, with its default.
func verdictTTL(policy *secondaryschedulerv1.TrialPolicy) time.Duration {
	if policy != nil && policy.VerdictTTLSeconds != nil {
		return time.Duration(*policy.VerdictTTLSeconds) * time.Second
	}
	return secondaryschedulerv1.DefaultTrialVerdictTTLSeconds * time.Second
}

// running is the trial this process runs, nil when none does.
func (c *controller) running() *active {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active == nil {
		return nil
	}
	select {
	case <-c.active.done:
		c.active = nil
		return nil
	default:
		return c.active
	}
}

// start runs a trial of req in the background; requeue is called once it ended.
func (c *controller) start(ss *secondaryschedulerv1.SecondaryScheduler, req *secondaryschedulerv1.TrialRequest, requeue func()) {
	ctx, cancel := context.WithCancel(c.base)
	a := &active{key: req.Key, cancel: cancel, done: make(chan struct{})}
	c.mu.Lock()
	c.active = a
	c.mu.Unlock()
	go func() {
		defer requeue()
		defer close(a.done)
		defer cancel()
		c.execute(ctx, ss, req)
	}()
}

// removeLeftovers deletes every trial object the caches hold, and says how
// many there were.
func (c *controller) removeLeftovers(ctx context.Context) (int, error) {
	var errs []error
	n := 0
	for _, o := range c.objects {
		list, err := o.list()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, obj := range list {
			n++
			if obj.GetDeletionTimestamp() == nil {
				errs = append(errs, o.kind.DeleteObject(ctx, obj))
			}
		}
	}
	return n, errors.Join(errs...)
}
