package unservedpodscontroller

import (
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
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
			u, ok := classify(pod(tc.scheduler), tc.served, tc.up)
			if ok != (tc.reason != "") || u.reason != tc.reason {
				t.Fatalf("got %+v, %v; want reason %q", u, ok, tc.reason)
			}
			for _, f := range tc.fragments {
				if !strings.Contains(u.message, f) {
					t.Errorf("message %q lacks %q", u.message, f)
				}
			}
			if tc.name == "someone else's, far from ours" && strings.Contains(u.message, "did you mean") {
				t.Errorf("no suggestion expected: %q", u.message)
			}
		})
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
