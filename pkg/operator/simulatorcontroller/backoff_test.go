package simulatorcontroller

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestReplaceBackoff(t *testing.T) {
	b := newReplaceBackoff()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const key = "ns/sim"
	steps := []struct {
		name  string
		ended time.Time
		now   time.Time
		want  time.Duration
	}{
		{"first end: the shortest back-off", t0, t0.Add(time.Second), 9 * time.Second},
		{"first end, back-off over", t0, t0.Add(minReplaceBackoff), 0},
	}
	for _, s := range steps {
		if got := b.wait(key, s.ended, s.now); got != s.want {
			t.Fatalf("%s: wait %s, want %s", s.name, got, s.want)
		}
	}
	b.replaced(key, t0, t0.Add(minReplaceBackoff))
	t1 := t0.Add(15 * time.Second)
	if got := b.wait(key, t1, t1); got != 2*minReplaceBackoff {
		t.Fatalf("second end: wait %s, want %s (doubled)", got, 2*minReplaceBackoff)
	}
	for range 10 {
		b.replaced(key, t1, t1)
	}
	if got := b.wait(key, t1, t1); got != maxReplaceBackoff {
		t.Fatalf("after many: wait %s, want the cap %s", got, maxReplaceBackoff)
	}
	// A replacement that ran long enough starts the back-off over.
	late := t1.Add(replaceBackoffReset)
	if got := b.wait(key, late, late); got != minReplaceBackoff {
		t.Fatalf("after a long run: wait %s, want %s", got, minReplaceBackoff)
	}
	if got := b.wait("ns/other", t1, t1); got != minReplaceBackoff {
		t.Fatalf("another Simulator: wait %s, want %s", got, minReplaceBackoff)
	}
	b.forget(key)
	if got := b.wait(key, t1, t1); got != minReplaceBackoff {
		t.Fatalf("forgotten: wait %s, want %s", got, minReplaceBackoff)
	}
}

func TestEndedAt(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}}
	if got := endedAt(pod); !got.Equal(created) {
		t.Errorf("no status: %s, want the creation %s", got, created)
	}
	started := created.Add(time.Minute)
	pod.Status.StartTime = &metav1.Time{Time: started}
	if got := endedAt(pod); !got.Equal(started) {
		t.Errorf("started, nothing ended: %s, want %s", got, started)
	}
	last := started.Add(time.Minute)
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{
		{Name: "etcd", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(started.Add(time.Second))}}},
		{Name: "simulator", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(last)}}},
	}
	if got := endedAt(pod); !got.Equal(last) {
		t.Errorf("two ended: %s, want the last %s", got, last)
	}
}
