package e2e

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStuckOnNode needs no cluster: which pods resyncStuckPods gives kwok again.
func TestStuckOnNode(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
	pod := func(node string, phase corev1.PodPhase, created, scheduled time.Duration, deleting *metav1.Time) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{CreationTimestamp: ago(created), DeletionTimestamp: deleting},
			Spec:       corev1.PodSpec{NodeName: node},
			Status:     corev1.PodStatus{Phase: phase},
		}
		if node != "" {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: ago(scheduled)}}
		}
		return p
	}
	deleting := func(d time.Duration) *metav1.Time { t := ago(d); return &t }
	for _, tc := range []struct {
		name  string
		pod   *corev1.Pod
		stuck bool
	}{
		{"unscheduled, a minute old", pod("", corev1.PodPending, time.Minute, 0, nil), false},
		{"bound 11 s ago, Pending", pod("n", corev1.PodPending, time.Minute, 11*time.Second, nil), true},
		{"created a minute ago, bound 2 s ago, Pending", pod("n", corev1.PodPending, time.Minute, 2*time.Second, nil), false},
		{"bound a minute ago, Running", pod("n", corev1.PodRunning, time.Minute, time.Minute, nil), false},
		{"being deleted for 11 s", pod("n", corev1.PodRunning, time.Minute, time.Minute, deleting(11*time.Second)), true},
		{"being deleted for 2 s", pod("n", corev1.PodRunning, time.Minute, time.Minute, deleting(2*time.Second)), false},
	} {
		if got := stuckOnNode(tc.pod, now) != ""; got != tc.stuck {
			t.Errorf("%s: stuck %v, want %v (%q)", tc.name, got, tc.stuck, stuckOnNode(tc.pod, now))
		}
	}
}
