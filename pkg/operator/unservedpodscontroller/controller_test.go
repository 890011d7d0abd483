package unservedpodscontroller

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/component-base/metrics/legacyregistry"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
)

func TestClosestName(t *testing.T) {
	served := []string{"gang-scheduler", "secondary-scheduler"}
	for name, want := range map[string]string{
		"secondary-schedular": "secondary-scheduler", // one letter
		"secondaryscheduler":  "secondary-scheduler", // a dash missing
		"Secondary-Scheduler": "secondary-scheduler", // case counts as edits: 2
		"gang":                "",                    // too far from both
		"volcano":             "",
		"gang-schedulers":     "gang-scheduler",
	} {
		if got := closestName(name, served); got != want {
			t.Errorf("closestName(%q) = %q, want %q", name, got, want)
		}
	}
	if got := closestName("x", nil); got != "" {
		t.Errorf("no candidates: %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"secondary-scheduler", "secondary-schedular", 1}, {"abc", "abc", 0}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	pod := func(scheduler string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "team-a"}, Spec: corev1.PodSpec{SchedulerName: scheduler}}
	}
	served := sets.New("secondary-scheduler")
	for _, tc := range []struct {
		name      string
		scheduler string
		served    sets.Set[string]
		up        bool
		reason    string // "" means served
		fragments []string
	}{
		{"served and up", "secondary-scheduler", served, true, "", nil},
		{"typo", "secondary-schedular", served, true, ReasonNoSuchScheduler,
			[]string{`"secondary-schedular"`, `the secondary scheduler serves "secondary-scheduler"`, `did you mean "secondary-scheduler"?`, "recreate it"}},
		{"someone else's, far from ours", "volcano", served, true, ReasonNoSuchScheduler, []string{`"volcano"`, `the secondary scheduler serves "secondary-scheduler"`}},
		{"nothing served", "secondary-scheduler", sets.New[string](), false, ReasonNoSuchScheduler, []string{"serves no schedulerName now"}},
		{"ours, scheduler down", "secondary-scheduler", served, false, ReasonSchedulerDown, []string{"no available pod"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod(tc.scheduler)
			reason, ok := classify(p, tc.served, tc.up)
			if ok != (tc.reason != "") || reason != tc.reason {
				t.Fatalf("got %q, %v; want reason %q", reason, ok, tc.reason)
			}
			if !ok {
				return
			}
			msg := message(unserved{pod: p, reason: reason}, sets.List(tc.served))
			for _, f := range tc.fragments {
				if !strings.Contains(msg, f) {
					t.Errorf("message %q lacks %q", msg, f)
				}
			}
			if tc.name == "someone else's, far from ours" && strings.Contains(msg, "did you mean") {
				t.Errorf("no suggestion expected: %q", msg)
			}
		})
	}
}

// TestMessageIsCapped: however many profiles, however long the names, a
// message lists at most maxListedNames and holds at most maxEventMessage bytes.
func TestMessageIsCapped(t *testing.T) {
	long := func(prefix string) string { return prefix + strings.Repeat("x", 253-len(prefix)) }
	var served []string
	for i := range 40 {
		served = append(served, long(fmt.Sprintf("profile-%02d-", i)))
	}
	u := unserved{pod: &corev1.Pod{Spec: corev1.PodSpec{SchedulerName: long("typo-")}}, reason: ReasonNoSuchScheduler}
	msg := message(u, served)
	if len(msg) > maxEventMessage || !strings.HasSuffix(msg, " ...") || !utf8.ValidString(msg) {
		t.Errorf("%d bytes: %q", len(msg), msg)
	}
	short := []string{"a", "b", "c", "d", "e", "f", "g"}
	msg = message(unserved{pod: &corev1.Pod{Spec: corev1.PodSpec{SchedulerName: "z"}}, reason: ReasonNoSuchScheduler}, short)
	if !strings.Contains(msg, `serves "a", "b", "c", "d", "e", and 2 more`) || strings.Contains(msg, `"f"`) {
		t.Errorf("%q", msg)
	}
}

// TestEventsAreBounded: 10,000 unserved pods in one namespace and one in
// another give eventBurst events at once, the other namespace's pod among the
// first two, then eventsPerSecond; each pod is warned once, and again only
// when its reason changes; the sync asks to run again while pods are owed one.
func TestEventsAreBounded(t *testing.T) {
	c, clk, sent := testController()
	var pods []*corev1.Pod
	for i := range 10_000 {
		pods = append(pods, testPod("crowd", fmt.Sprintf("p-%05d", i), fmt.Sprintf("typo-%05d", i)))
	}
	pods = append(pods, testPod("quiet", "mine", "secondary-schedular"))
	served := sets.New("secondary-scheduler")

	found, again := c.report(pods, served, true)
	if len(found) != len(pods) {
		t.Fatalf("%d unserved, want %d", len(found), len(pods))
	}
	if len(*sent) != eventBurst || again != eventRetry {
		t.Fatalf("%d events, again in %s; want %d, %s", len(*sent), again, eventBurst, eventRetry)
	}
	if (*sent)[1] != "quiet/mine" {
		t.Errorf("namespaces do not take turns: %v", (*sent)[:3])
	}
	// Nothing more without time passing, however often it syncs.
	for range 5 {
		c.report(pods, served, true)
	}
	if len(*sent) != eventBurst {
		t.Errorf("%d events without time passing", len(*sent))
	}
	clk.Step(eventRetry)
	c.report(pods, served, true)
	if want := eventBurst + int(eventRetry.Seconds()*eventsPerSecond); len(*sent) != want {
		t.Errorf("%d events after %s, want %d", len(*sent), eventRetry, want)
	}
	seen := sets.New[string]()
	for _, p := range *sent {
		if seen.Has(p) {
			t.Errorf("%s warned twice", p)
		}
		seen.Insert(p)
	}

	// Once all are warned, nothing is owed: no event, no retry.
	few := pods[:3]
	c, clk, sent = testController()
	if _, again := c.report(few, served, true); len(*sent) != 3 || again != 0 {
		t.Errorf("%d events, again in %s", len(*sent), again)
	}
	clk.Step(time.Hour)
	if _, again := c.report(few, served, true); len(*sent) != 3 || again != 0 {
		t.Errorf("warned again: %d events, again in %s", len(*sent), again)
	}
	// A pod whose reason changes is warned again.
	ours := testPod("quiet", "ours", "secondary-scheduler")
	c.report([]*corev1.Pod{ours}, served, false)
	c.report([]*corev1.Pod{ours}, sets.New[string](), false)
	if got := (*sent)[3:]; len(got) != 2 {
		t.Errorf("reason changed: %v", got)
	}
}

// BenchmarkReport10000Pods: one sync's work (the status apply aside) over
// 10,000 pending pods, each with a schedulerName of its own that nothing
// serves: the time, the series of unserved_pods and the events it records.
func BenchmarkReport10000Pods(b *testing.B) {
	metrics.Register()
	var pods []*corev1.Pod
	for i := range 10_000 {
		pods = append(pods, testPod(fmt.Sprintf("ns-%03d", i%100), fmt.Sprintf("p-%05d", i), fmt.Sprintf("typo-%05d", i)))
	}
	served := sets.New("secondary-scheduler", "gang")
	c, _, sent := testController()
	var found []unserved
	b.ResetTimer()
	for range b.N {
		found, _ = c.report(pods, served, true)
	}
	b.StopTimer()
	if len(found) != len(pods) {
		b.Fatalf("%d unserved", len(found))
	}
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		b.Fatal(err)
	}
	series := 0
	for _, f := range families {
		if f.GetName() == "secondary_scheduler_operator_unserved_pods" {
			series = len(f.GetMetric())
		}
	}
	if limit := served.Len() + metrics.MaxOtherSchedulerNames + 1; series > limit {
		b.Errorf("%d series, more than %d", series, limit)
	}
	b.ReportMetric(float64(len(pods)), "pods")
	b.ReportMetric(float64(series), "series")
	b.ReportMetric(float64(len(*sent)), "events")
}

// testController is a controller whose clock is fake and whose events are
// listed (namespace/name of the pod) rather than sent.
func testController() (*controller, *clocktesting.FakeClock, *[]string) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	sent := &[]string{}
	c := &controller{
		grace:  time.Minute,
		clock:  clk,
		warned: map[types.UID]string{},
		events: flowcontrol.NewTokenBucketPassiveRateLimiterWithClock(eventsPerSecond, eventBurst, clk),
		recorderOn: func(p *corev1.Pod) events.Recorder {
			*sent = append(*sent, p.Namespace+"/"+p.Name)
			return quietRecorder{}
		},
	}
	return c, clk, sent
}

// quietRecorder drops Warnings, all the controller records.
type quietRecorder struct{ events.Recorder }

func (quietRecorder) Warning(string, string) {}

// testPod is a pending pod created an hour before testController's clock.
func testPod(ns, name, scheduler string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "/" + name),
			CreationTimestamp: metav1.NewTime(time.Date(2025, 12, 31, 23, 0, 0, 0, time.UTC))},
		Spec:   corev1.PodSpec{SchedulerName: scheduler},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func TestCondition(t *testing.T) {
	if c := condition(nil, time.Minute); c.Status != operatorv1.ConditionFalse {
		t.Errorf("no pods: %+v", c)
	}
	var found []unserved
	for i := range 7 {
		reason := ReasonNoSuchScheduler
		if i == 6 {
			reason = ReasonSchedulerDown
		}
		found = append(found, unserved{pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: string(rune('a' + i))},
			Spec: corev1.PodSpec{SchedulerName: "x"}}, reason: reason})
	}
	c := condition(found, time.Minute)
	if c.Status != operatorv1.ConditionTrue || c.Reason != "Unserved" || !strings.HasPrefix(c.Message, "7 pods have waited over 1m0s") ||
		!strings.Contains(c.Message, "ns/a") || strings.Contains(c.Message, "ns/f") || !strings.Contains(c.Message, "and 2 more") {
		t.Errorf("condition %+v", c)
	}
	if c := condition(found[:1], time.Minute); c.Reason != ReasonNoSuchScheduler {
		t.Errorf("one reason: %+v", c)
	}
}
