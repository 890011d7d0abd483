package simulatorcontroller

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Back-off before a Pod that ended (restartPolicy Never or OnFailure, or an
// eviction) is replaced: a simulator that exits at once would otherwise be
// deleted and created again as fast as the controller syncs. It doubles from
// minReplaceBackoff to maxReplaceBackoff, as a kubelet's CrashLoopBackOff, and
// starts over once a replacement has run for replaceBackoffReset.
const (
	minReplaceBackoff   = 10 * time.Second
	maxReplaceBackoff   = 5 * time.Minute
	replaceBackoffReset = 10 * time.Minute
)

// replaceBackoff remembers, per Simulator, how often its Pod was replaced
// after it ended. It lives in memory: a restarted operator starts over at the
// shortest back-off, which costs one early replacement, not a loop.
type replaceBackoff struct {
	mu      sync.Mutex
	entries map[string]*backoffEntry
}

type backoffEntry struct {
	next     time.Duration // back-off before the next replacement
	replaced time.Time     // when the last replacement was created
}

func newReplaceBackoff() *replaceBackoff {
	return &replaceBackoff{entries: map[string]*backoffEntry{}}
}

// wait is how long Simulator key's (namespace/name) ended Pod, which ended at ended, must stay
// before it is replaced (0: now).
func (b *replaceBackoff) wait(key string, ended, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entries[key]
	if e == nil || ended.Sub(e.replaced) >= replaceBackoffReset {
		return max(0, ended.Add(minReplaceBackoff).Sub(now))
	}
	return max(0, ended.Add(e.next).Sub(now))
}

// replaced records that Simulator key's ended Pod was replaced at now.
func (b *replaceBackoff) replaced(key string, ended, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.entries[key]
	if e == nil || ended.Sub(e.replaced) >= replaceBackoffReset {
		e = &backoffEntry{next: minReplaceBackoff}
		b.entries[key] = e
	}
	e.next = min(2*e.next, maxReplaceBackoff)
	e.replaced = now
}

// forget drops what is known of a deleted Simulator.
func (b *replaceBackoff) forget(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.entries, key)
}

// endedAt is when pod's last container ended; its start, or its creation,
// when no container reports (a Pod rejected before it ran).
func endedAt(pod *corev1.Pod) time.Time {
	var t time.Time
	for _, cs := range pod.Status.ContainerStatuses {
		if term := cs.State.Terminated; term != nil && term.FinishedAt.After(t) {
			t = term.FinishedAt.Time
		}
	}
	if t.IsZero() && pod.Status.StartTime != nil {
		t = pod.Status.StartTime.Time
	}
	if t.IsZero() {
		t = pod.CreationTimestamp.Time
	}
	return t
}
