package trial

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSelectReplay(t *testing.T) {
	at := func(s int) metav1.Time { return metav1.NewTime(time.Unix(1000+int64(s), 0)) }
	pod := func(name, scheduler, node string, created, scheduled int) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, CreationTimestamp: at(created)},
			Spec: corev1.PodSpec{SchedulerName: scheduler, NodeName: node}}
		if scheduled > 0 {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: at(scheduled)}}
		}
		return p
	}
	done := pod("done", "ours", "n", 0, 1)
	done.Status.Phase = corev1.PodSucceeded
	gated := pod("gated", "ours", "", 0, 0)
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}}
	pods := []corev1.Pod{
		pod("pending-late", "ours", "", 50, 0), pod("pending-early", "ours", "", 40, 0),
		// Bound by us: created in one order, bound in another; "old" has no condition.
		pod("old", "ours", "n", 1, 0), pod("b2", "ours", "n", 2, 30), pod("b3", "ours", "n", 3, 20), pod("b1", "ours", "n", 4, 10),
		pod("theirs", "default-scheduler", "n", 5, 5), pod("theirs-pending", "default-scheduler", "", 5, 0), done, gated,
	}
	bound, replay := SelectReplay(pods, []string{"ours"}, 2)
	names := func(ps []corev1.Pod) string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return strings.Join(out, ",")
	}
	if got, want := names(replay), "b3,b2,pending-early,pending-late"; got != want {
		t.Errorf("replay = %s, want %s (the last 2 bound oldest first, then the pending by creation)", got, want)
	}
	if got, want := names(bound), "theirs,old,b1"; got != want {
		t.Errorf("bound = %s, want %s", got, want)
	}
	for _, p := range replay {
		if p.Spec.NodeName != "" {
			t.Errorf("replayed pod %s keeps node %s", p.Name, p.Spec.NodeName)
		}
	}
	for _, p := range bound {
		if p.Spec.NodeName != "n" {
			t.Errorf("bound pod %s lost its node", p.Name)
		}
	}
}
