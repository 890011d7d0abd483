// Package unservedpodscontroller finds the pods no scheduler serves: pending,
// unbound, for a schedulerName other than default-scheduler, for longer than a
// grace period, whose schedulerName is none of the secondary scheduler's
// profiles (a typo, a removed profile, another scheduler that is not running),
// or is one of them while the secondary scheduler has no available pod.
//
// Each such pod gets one Warning event naming the schedulerNames served and the
// closest one; the metric unserved_pods{scheduler_name} counts them; the
// SecondaryScheduler's condition PodsUnserved gives the count and a few
// examples. The condition is not a Degraded one: a user's typo does not make the
// operator or the cluster degraded.
//
// Whoever can create pods chooses their schedulerNames and their number, so
// what the controller writes is bounded whatever they do: the metric has a
// series for each schedulerName served and for at most
// metrics.MaxOtherSchedulerNames others, the rest summed in one; events go out
// at most eventBurst at once and eventsPerSecond after that, namespaces taking
// turns, each message at most maxEventMessage bytes; the condition names at
// most maxExamples pods.
//
// Only pods the API server selects by field (spec.nodeName empty,
// spec.schedulerName not default-scheduler, status.phase Pending) are watched
// (PodListOptions), so the cost follows the pending pods of secondary
// schedulers, not the cluster's pods.
package unservedpodscontroller

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	appsv1informers "k8s.io/client-go/informers/apps/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	appsv1listers "k8s.io/client-go/listers/apps/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/utils/clock"

	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/report"
)

const (
	// ControllerName names the controller, its queue and its field manager on
	// the SecondaryScheduler's status.
	ControllerName = "UnservedPodsController"
	// ConditionType is True while any pod is unserved.
	ConditionType = "PodsUnserved"

	// ReasonNoSuchScheduler: no profile of the secondary scheduler carries the
	// pod's schedulerName.
	ReasonNoSuchScheduler = "NoSuchScheduler"
	// ReasonSchedulerDown: a profile carries it, but no scheduler pod is available.
	ReasonSchedulerDown = "SchedulerDown"

	// DefaultGrace is how long a pod may wait before it counts: long enough for a
	// busy scheduler, or another vendor's, to bind it.
	DefaultGrace = 2 * time.Minute

	maxExamples = 5

	// eventBurst and eventsPerSecond bound the Warning events on pods: 10,000
	// pods with a mistyped schedulerName get theirs over hours, not as 10,000
	// writes at once (the metric and the condition count them at once).
	eventBurst      = 25
	eventsPerSecond = 0.5
	// eventRetry is when a sync that left pods to warn looks again.
	eventRetry = 10 * time.Second
	// maxEventMessage caps an event's message: the size events.k8s.io/v1
	// allows a note.
	maxEventMessage = 1024
	// maxListedNames caps the schedulerNames served that a message lists.
	maxListedNames = 5
)

// PodListOptions selects, on the API server, the pods this controller watches.
func PodListOptions(o *metav1.ListOptions) {
	o.FieldSelector = fields.AndSelectors(
		fields.OneTermEqualSelector("spec.nodeName", ""),
		fields.OneTermNotEqualSelector("spec.schedulerName", corev1.DefaultSchedulerName),
		fields.OneTermEqualSelector("status.phase", string(corev1.PodPending)),
	).String()
}

type controller struct {
	operatorClient operatorclient.Interface
	pods           corev1listers.PodLister
	deployments    appsv1listers.DeploymentNamespaceLister
	kube           kubernetes.Interface
	grace          time.Duration
	clock          clock.PassiveClock
	// warned is the reason each pod was warned for, so that it is warned once.
	warned map[types.UID]string
	// events is the budget of Warning events on pods.
	events flowcontrol.PassiveRateLimiter
	// recorderOn records events on a pod.
	recorderOn func(*corev1.Pod) events.Recorder
}

// New returns the controller. pods must come from an informer built with
// PodListOptions; deployments from the operand namespace.
func New(operatorClient operatorclient.Interface,
	pods corev1informers.PodInformer, deployments appsv1informers.DeploymentInformer, kube kubernetes.Interface,
	grace time.Duration, recorder events.Recorder) factory.Controller {
	c := &controller{
		operatorClient: operatorClient,
		pods:           pods.Lister(),
		deployments:    deployments.Lister().Deployments(names.OperandNamespace),
		kube:           kube,
		grace:          grace,
		clock:          clock.RealClock{},
		warned:         map[types.UID]string{},
		events:         flowcontrol.NewTokenBucketPassiveRateLimiter(eventsPerSecond, eventBurst),
	}
	c.recorderOn = func(pod *corev1.Pod) events.Recorder {
		return report.RecorderOn(kube, pod.Namespace, &corev1.ObjectReference{
			APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, ResourceVersion: pod.ResourceVersion,
		})
	}
	return factory.New().
		WithInformers(operatorClient.Informer(), pods.Informer(), deployments.Informer()).
		WithSync(metrics.InstrumentSync(ControllerName, c.sync)).
		ToController(ControllerName, recorder)
}

// served are the schedulerNames the secondary scheduler carries and whether a
// scheduler pod is available to serve them.
func (c *controller) served() (sets.Set[string], bool) {
	ss, err := c.operatorClient.Get()
	if err != nil || ss.DeletionTimestamp != nil || ss.Spec.ManagementState == operatorv1.Removed {
		return sets.New[string](), false
	}
	d, err := c.deployments.Get(names.OperandName)
	up := err == nil && d.Status.AvailableReplicas > 0
	return sets.New(ss.Status.SchedulerNames...), up
}

// unserved is one pod no scheduler serves, and why (a Reason* constant).
type unserved struct {
	pod    *corev1.Pod
	reason string
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	served, up := c.served()
	pods, err := c.pods.List(labels.Everything())
	if err != nil {
		return err
	}
	found, again := c.report(pods, served, up)
	if again > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), again)
	}
	cond := condition(found, c.grace)
	_, err = c.operatorClient.ApplyStatus(ctx, ControllerName, secondaryschedulerapply.SecondarySchedulerStatus().WithConditions(
		report.Condition(cond)))
	if apierrors.IsNotFound(err) {
		return nil // no SecondaryScheduler: nothing to report on
	}
	return err
}

// report finds the unserved pods among pods, sets the metric and records the
// Warning events the budget allows. It returns the unserved pods, sorted by
// namespace and name, and when to look again (0: only on a change): when the
// next pod's grace period ends, or when events are left to record.
func (c *controller) report(pods []*corev1.Pod, served sets.Set[string], up bool) ([]unserved, time.Duration) {
	now := c.clock.Now()
	var found []unserved
	var nextDue time.Duration
	present := sets.New[types.UID]()
	for _, pod := range pods {
		present.Insert(pod.UID)
		if pod.DeletionTimestamp != nil || pod.Spec.NodeName != "" || pod.Spec.SchedulerName == corev1.DefaultSchedulerName {
			continue
		}
		if waited := now.Sub(pod.CreationTimestamp.Time); waited < c.grace {
			if due := c.grace - waited; nextDue == 0 || due < nextDue {
				nextDue = due
			}
			continue
		}
		if reason, ok := classify(pod, served, up); ok {
			found = append(found, unserved{pod: pod, reason: reason})
		}
	}
	slices.SortFunc(found, func(a, b unserved) int {
		return cmp.Or(strings.Compare(a.pod.Namespace, b.pod.Namespace), strings.Compare(a.pod.Name, b.pod.Name))
	})
	for uid := range c.warned {
		if !present.Has(uid) {
			delete(c.warned, uid)
		}
	}
	counts := map[string]int{}
	for _, u := range found {
		counts[u.pod.Spec.SchedulerName]++
	}
	servedNames := sets.List(served)
	metrics.SetUnservedPods(counts, servedNames)
	if c.warn(found, servedNames) && (nextDue == 0 || eventRetry < nextDue) {
		nextDue = eventRetry
	}
	return found, nextDue
}

// warn records a Warning on each pod of found not yet warned for its reason, as
// far as the budget goes, namespaces taking turns so that thousands of pods in
// one do not hold back the pods of another. It says whether pods are left.
func (c *controller) warn(found []unserved, served []string) bool {
	var owed []unserved
	for _, u := range found {
		if c.warned[u.pod.UID] != u.reason {
			owed = append(owed, u)
		}
	}
	for _, u := range byNamespaceInTurn(owed) {
		if !c.events.TryAccept() {
			return true
		}
		c.warned[u.pod.UID] = u.reason
		c.recorderOn(u.pod).Warning(u.reason, message(u, served))
	}
	return false
}

// byNamespaceInTurn orders us, sorted by namespace, as the first of each
// namespace, then the second of each, and so on.
func byNamespaceInTurn(us []unserved) []unserved {
	var queues [][]unserved
	for i, u := range us {
		if i == 0 || u.pod.Namespace != us[i-1].pod.Namespace {
			queues = append(queues, nil)
		}
		queues[len(queues)-1] = append(queues[len(queues)-1], u)
	}
	out := make([]unserved, 0, len(us))
	for len(queues) > 0 {
		left := queues[:0]
		for _, q := range queues {
			out = append(out, q[0])
			if len(q) > 1 {
				left = append(left, q[1:])
			}
		}
		queues = left
	}
	return out
}

// classify says whether pod is unserved, and why.
func classify(pod *corev1.Pod, served sets.Set[string], up bool) (string, bool) {
	switch {
	case !served.Has(pod.Spec.SchedulerName):
		return ReasonNoSuchScheduler, true
	case !up:
		return ReasonSchedulerDown, true
	}
	return "", false
}

// message is what the Warning on u's pod tells its owner, served being the
// schedulerNames served, sorted; at most maxEventMessage bytes.
func message(u unserved, served []string) string {
	name := u.pod.Spec.SchedulerName
	if u.reason == ReasonSchedulerDown {
		return capped(fmt.Sprintf(
			"schedulerName %q is a profile of the secondary scheduler, which has no available pod: see `kubectl get secondaryscheduler cluster -o yaml`", name))
	}
	msg := fmt.Sprintf("no scheduler serves schedulerName %q", name)
	if len(served) == 0 {
		msg += "; the secondary scheduler serves no schedulerName now"
	} else {
		msg += "; the secondary scheduler serves " + quoted(served, maxListedNames)
		if closest := closestName(name, served); closest != "" {
			msg += fmt.Sprintf(": did you mean %q?", closest)
		}
	}
	return capped(msg + " (a pod's schedulerName cannot change: recreate it)")
}

// capped cuts msg to maxEventMessage bytes, marking the cut.
func capped(msg string) string {
	const cut = " ..."
	if len(msg) <= maxEventMessage {
		return msg
	}
	return strings.ToValidUTF8(msg[:maxEventMessage-len(cut)], "") + cut
}

func condition(found []unserved, grace time.Duration) operatorv1.OperatorCondition {
	if len(found) == 0 {
		return operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	}
	reasons := sets.New[string]()
	var examples []string
	for i, u := range found {
		reasons.Insert(u.reason)
		if i < maxExamples {
			examples = append(examples, fmt.Sprintf("%s/%s (schedulerName %q, %s)", u.pod.Namespace, u.pod.Name, u.pod.Spec.SchedulerName, u.reason))
		}
	}
	if len(found) > maxExamples {
		examples = append(examples, fmt.Sprintf("and %d more", len(found)-maxExamples))
	}
	reason := "Unserved"
	if reasons.Len() == 1 {
		reason = sets.List(reasons)[0]
	}
	return operatorv1.OperatorCondition{Type: ConditionType, Status: operatorv1.ConditionTrue, Reason: reason,
		Message: fmt.Sprintf("%d pods have waited over %s for a scheduler that does not serve them: %s; each gets a Warning event (at most %d a minute)",
			len(found), grace, strings.Join(examples, ", "), int(eventsPerSecond*60))}
}

// quoted lists the first limit names, quoted, and how many more there are.
func quoted(names []string, limit int) string {
	var out []string
	for i, n := range names {
		if i == limit {
			out = append(out, fmt.Sprintf("and %d more", len(names)-limit))
			break
		}
		out = append(out, fmt.Sprintf("%q", n))
	}
	return strings.Join(out, ", ")
}

// closestName is the candidate nearest to name by edit distance, when it is
// near enough to be a typo (at most a third of its length apart).
func closestName(name string, candidates []string) string {
	best, bestDistance := "", -1
	for _, c := range candidates {
		if d := editDistance(name, c); bestDistance < 0 || d < bestDistance {
			best, bestDistance = c, d
		}
	}
	if bestDistance < 0 || bestDistance > (len(name)+2)/3 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
