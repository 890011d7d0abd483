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
// Only pods the API server selects by field (spec.nodeName empty,
// spec.schedulerName not default-scheduler, status.phase Pending) are watched
// (PodListOptions), so the cost follows the pending pods of secondary
// schedulers, not the cluster's pods.
package unservedpodscontroller

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
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
	"k8s.io/utils/clock"

	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
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
	// EventSource is the component of the events on pods.
	EventSource = "secondary-scheduler-operator"

	maxExamples = 5
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
		deployments:    deployments.Lister().Deployments(render.OperandNamespace),
		kube:           kube,
		grace:          grace,
		clock:          clock.RealClock{},
		warned:         map[types.UID]string{},
	}
	// Not NewKubeRecorder: each of its recorders starts an event broadcaster,
	// goroutines and buffers that nothing stops; this one holds nothing.
	c.recorderOn = func(pod *corev1.Pod) events.Recorder {
		return events.NewRecorder(kube.CoreV1().Events(pod.Namespace), EventSource, &corev1.ObjectReference{
			APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, ResourceVersion: pod.ResourceVersion,
		}, clock.RealClock{})
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
	d, err := c.deployments.Get(render.OperandName)
	up := err == nil && d.Status.AvailableReplicas > 0
	return sets.New(ss.Status.SchedulerNames...), up
}

// unserved is one pod no scheduler serves.
type unserved struct {
	pod     *corev1.Pod
	reason  string
	message string
}

func (c *controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	served, up := c.served()
	pods, err := c.pods.List(labels.Everything())
	if err != nil {
		return err
	}
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
		if u, ok := classify(pod, served, up); ok {
			found = append(found, u)
		}
	}
	sort.Slice(found, func(i, j int) bool {
		return found[i].pod.Namespace+"/"+found[i].pod.Name < found[j].pod.Namespace+"/"+found[j].pod.Name
	})
	for uid := range c.warned {
		if !present.Has(uid) {
			delete(c.warned, uid)
		}
	}
	counts := map[string]int{}
	for _, u := range found {
		counts[u.pod.Spec.SchedulerName]++
		if c.warned[u.pod.UID] != u.reason {
			c.warned[u.pod.UID] = u.reason
			c.recorderOn(u.pod).Warning(u.reason, u.message)
		}
	}
	metrics.SetUnservedPods(counts)
	if nextDue > 0 {
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), nextDue)
	}
	cond := condition(found, c.grace)
	_, err = c.operatorClient.ApplyStatus(ctx, ControllerName, secondaryschedulerapply.SecondarySchedulerStatus().WithConditions(
		applyoperatorv1.OperatorCondition().WithType(cond.Type).WithStatus(cond.Status).WithReason(cond.Reason).WithMessage(cond.Message)))
	if apierrors.IsNotFound(err) {
		return nil // no SecondaryScheduler: nothing to report on
	}
	return err
}

// classify says whether pod is unserved, why, and what to tell its owner.
func classify(pod *corev1.Pod, served sets.Set[string], up bool) (unserved, bool) {
	name := pod.Spec.SchedulerName
	switch {
	case !served.Has(name):
		msg := fmt.Sprintf("no scheduler serves schedulerName %q", name)
		if served.Len() == 0 {
			msg += "; the secondary scheduler serves no schedulerName now"
		} else {
			msg += fmt.Sprintf("; the secondary scheduler serves %s", quoted(sets.List(served)))
			if closest := closestName(name, sets.List(served)); closest != "" {
				msg += fmt.Sprintf(": did you mean %q?", closest)
			}
		}
		return unserved{pod: pod, reason: ReasonNoSuchScheduler, message: msg + " (a pod's schedulerName cannot change: recreate it)"}, true
	case !up:
		return unserved{pod: pod, reason: ReasonSchedulerDown, message: fmt.Sprintf(
			"schedulerName %q is a profile of the secondary scheduler, which has no available pod: see `kubectl get secondaryscheduler cluster -o yaml`", name)}, true
	}
	return unserved{}, false
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
		Message: fmt.Sprintf("%d pods have waited over %s for a scheduler that does not serve them: %s; each has a Warning event",
			len(found), grace, strings.Join(examples, ", "))}
}

func quoted(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
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
