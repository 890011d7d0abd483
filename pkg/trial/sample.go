package trial

import (
	"container/heap"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// fairSample keeps at most limit pods, shared among namespaces as a
// round-robin over them would share them: while it holds more than limit, the
// namespace holding the most (of equal ones, the last by name) gives up the
// pod it prefers least. No namespace can crowd out another, whatever it
// creates, and the pods held are the same in whatever order they arrive.
type fairSample struct {
	limit  int
	before func(a, b *corev1.Pod) bool // a is preferred to b
	queues map[string]*namespaceQueue
	order  largestFirst
	held   int
	seen   map[string]int
}

func newFairSample(limit int, before func(a, b *corev1.Pod) bool) *fairSample {
	return &fairSample{limit: max(limit, 0), before: before, queues: map[string]*namespaceQueue{}, seen: map[string]int{}}
}

// add takes p and returns the pod it gave up for it, if any (possibly p).
func (f *fairSample) add(p corev1.Pod) (*corev1.Pod, bool) {
	f.seen[p.Namespace]++
	q := f.queues[p.Namespace]
	if q == nil {
		q = &namespaceQueue{namespace: p.Namespace, before: f.before}
		f.queues[p.Namespace] = q
		heap.Push(&f.order, q)
	}
	heap.Push(q, p)
	heap.Fix(&f.order, q.index)
	f.held++
	if f.held <= f.limit {
		return nil, false
	}
	largest := f.order[0]
	dropped := heap.Pop(largest).(corev1.Pod)
	heap.Fix(&f.order, largest.index)
	f.held--
	return &dropped, true
}

// pods are the pods held, every namespace's together, in no set order.
func (f *fairSample) pods() []corev1.Pod {
	out := make([]corev1.Pod, 0, f.held)
	for _, q := range f.queues {
		out = append(out, q.pods...)
	}
	return out
}

// namespaceQueue holds one namespace's pods, the least preferred on top.
type namespaceQueue struct {
	namespace string
	before    func(a, b *corev1.Pod) bool
	pods      []corev1.Pod
	index     int
}

func (q *namespaceQueue) Len() int           { return len(q.pods) }
func (q *namespaceQueue) Less(i, j int) bool { return q.before(&q.pods[j], &q.pods[i]) }
func (q *namespaceQueue) Swap(i, j int)      { q.pods[i], q.pods[j] = q.pods[j], q.pods[i] }
func (q *namespaceQueue) Push(x any)         { q.pods = append(q.pods, x.(corev1.Pod)) }
func (q *namespaceQueue) Pop() any {
	p := q.pods[len(q.pods)-1]
	q.pods = q.pods[:len(q.pods)-1]
	return p
}

// largestFirst orders namespaces by the pods they hold, most first, then by
// name, last first.
type largestFirst []*namespaceQueue

func (h largestFirst) Len() int { return len(h) }
func (h largestFirst) Less(i, j int) bool {
	if h[i].Len() != h[j].Len() {
		return h[i].Len() > h[j].Len()
	}
	return h[i].namespace > h[j].namespace
}
func (h largestFirst) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *largestFirst) Push(x any) {
	q := x.(*namespaceQueue)
	q.index = len(*h)
	*h = append(*h, q)
}
func (h *largestFirst) Pop() any {
	old := *h
	q := old[len(old)-1]
	*h = old[:len(old)-1]
	return q
}

// NamespaceSample is what a trial replays of one namespace's pods.
type NamespaceSample struct {
	Namespace string `json:"namespace"`
	// Pending are the namespace's pending pods the trial's schedulers serve,
	// and PendingReplayed how many of them it replays.
	Pending         int `json:"pending"`
	PendingReplayed int `json:"pendingReplayed"`
	// BoundReplayed are its recently bound pods it replays.
	BoundReplayed int `json:"boundReplayed"`
	// LeftOut are pods the trial cannot copy faithfully (those naming
	// resource claims or a PodGroup of scheduling.k8s.io when the snapshot
	// could not copy them), left out of the replay set.
	LeftOut int `json:"leftOut,omitempty"`
}

// samples is the per-namespace account of a replay selection, by namespace.
func samples(pending, recent *fairSample, leftOut map[string]int) []NamespaceSample {
	by := map[string]*NamespaceSample{}
	at := func(ns string) *NamespaceSample {
		if by[ns] == nil {
			by[ns] = &NamespaceSample{Namespace: ns}
		}
		return by[ns]
	}
	for ns, n := range pending.seen {
		at(ns).Pending = n
		at(ns).PendingReplayed = pending.queues[ns].Len()
	}
	for ns, q := range recent.queues {
		if q.Len() > 0 {
			at(ns).BoundReplayed = q.Len()
		}
	}
	for ns, n := range leftOut {
		at(ns).LeftOut = n
	}
	out := make([]NamespaceSample, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out
}

// maxReportedNamespaces bounds the namespaces a report lists.
const maxReportedNamespaces = 50

// Sample is what a trial replayed, in all and of the namespaces with the most
// pending pods.
type Sample struct {
	Pending         int `json:"pending"`
	PendingReplayed int `json:"pendingReplayed"`
	BoundReplayed   int `json:"boundReplayed"`
	LeftOut         int `json:"leftOut,omitempty"`
	// Namespaces are at most maxReportedNamespaces, the most pending first;
	// NamespacesOmitted are those left out of the list.
	Namespaces        []NamespaceSample `json:"namespaces,omitempty"`
	NamespacesOmitted int               `json:"namespacesOmitted,omitempty"`
}

func summarize(sampled []NamespaceSample) Sample {
	var s Sample
	for _, n := range sampled {
		s.Pending += n.Pending
		s.PendingReplayed += n.PendingReplayed
		s.BoundReplayed += n.BoundReplayed
		s.LeftOut += n.LeftOut
	}
	s.Namespaces = slices.Clone(sampled)
	sort.SliceStable(s.Namespaces, func(i, j int) bool {
		a, b := s.Namespaces[i], s.Namespaces[j]
		if a.Pending != b.Pending {
			return a.Pending > b.Pending
		}
		return a.BoundReplayed+a.LeftOut > b.BoundReplayed+b.LeftOut
	})
	if len(s.Namespaces) > maxReportedNamespaces {
		s.NamespacesOmitted = len(s.Namespaces) - maxReportedNamespaces
		s.Namespaces = s.Namespaces[:maxReportedNamespaces]
	}
	return s
}
