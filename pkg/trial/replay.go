package trial

import (
	"container/heap"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// MaxPendingReplay bounds the pending pods a trial replays: each is held
// decoded from the snapshot to the verdict. More pending pods than this
// refuse the trial, with a message that says so.
const MaxPendingReplay = 5000

// BoundPods are a snapshot's bound pods, each held in its protobuf encoding:
// decoded, a trimmed pod takes about ten times as much heap
// (BenchmarkTakeRetains), and bound pods are most of a cluster. The seeder
// decodes them one at a time.
type BoundPods struct {
	encoded [][]byte
}

// Add keeps p, encoded, and returns the bytes it takes.
func (b *BoundPods) Add(p corev1.Pod) (int, error) {
	data, err := p.Marshal()
	if err != nil {
		return 0, fmt.Errorf("encoding pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	b.encoded = append(b.encoded, data)
	return len(data), nil
}

// Len is how many pods there are.
func (b *BoundPods) Len() int { return len(b.encoded) }

// At decodes the i-th pod.
func (b *BoundPods) At(i int) (*corev1.Pod, error) {
	p := &corev1.Pod{}
	if err := p.Unmarshal(b.encoded[i]); err != nil {
		return nil, fmt.Errorf("decoding bound pod %d: %w", i, err)
	}
	return p, nil
}

// SelectReplay splits pods into the bound pods that stay on their node and the
// replay set, trimmed. The replay set is every pending, ungated pod naming one
// of schedulerNames (at most MaxPendingReplay), and the last n running pods
// those schedulers bound, by binding time (the PodScheduled condition's
// transition; creation time when a pod has none), with their node cleared.
// Finished and deleted pods hold no resources and are left out.
func SelectReplay(pods []corev1.Pod, schedulerNames []string, n int) (BoundPods, []corev1.Pod, error) {
	sel := newReplaySelector(schedulerNames, n)
	for i := range pods {
		if _, err := sel.add(&pods[i]); err != nil {
			return BoundPods{}, nil, err
		}
	}
	bound, replay := sel.finish()
	return bound, replay, nil
}

// replaySelector is SelectReplay on pods as their list pages arrive: a bound
// pod is encoded at once, and of those the schedulers bound only the last n
// are held decoded.
type replaySelector struct {
	ours    map[string]bool
	names   []string
	n       int
	bound   BoundPods
	recent  byBindingTime
	pending []corev1.Pod
}

func newReplaySelector(schedulerNames []string, n int) *replaySelector {
	ours := map[string]bool{}
	for _, name := range schedulerNames {
		ours[name] = true
	}
	return &replaySelector{ours: ours, names: schedulerNames, n: max(n, 0)}
}

// add takes one pod and returns the bytes of it the selector now holds.
func (s *replaySelector) add(p *corev1.Pod) (int, error) {
	if !holdsResources(p) {
		return 0, nil
	}
	switch {
	case p.Spec.NodeName == "" && s.ours[p.Spec.SchedulerName] && len(p.Spec.SchedulingGates) == 0:
		if len(s.pending) == MaxPendingReplay {
			return 0, fmt.Errorf("more than %d pods are pending for %s: a trial replays at most %d; "+
				"roll this change out with spec.rollout.strategy Direct", MaxPendingReplay, strings.Join(s.names, ", "), MaxPendingReplay)
		}
		kept := selectable(p)
		s.pending = append(s.pending, kept)
		return kept.Size(), nil
	case p.Spec.NodeName == "":
		// Another scheduler's, or gated: it holds nothing in either arm.
		return 0, nil
	case s.ours[p.Spec.SchedulerName]:
		kept := selectable(p)
		heap.Push(&s.recent, kept)
		if s.recent.Len() > s.n {
			oldest := heap.Pop(&s.recent).(corev1.Pod)
			if _, err := s.bound.Add(TrimPod(&oldest)); err != nil {
				return 0, err
			}
		}
		return kept.Size(), nil
	default:
		return s.bound.Add(TrimPod(p))
	}
}

// finish returns the bound pods and the replay set: the last n bound, oldest
// first, then the pending ones by creation, as the pods came.
func (s *replaySelector) finish() (BoundPods, []corev1.Pod) {
	recent := []corev1.Pod(s.recent)
	sort.SliceStable(recent, func(i, j int) bool { return s.recent.Less(i, j) })
	sort.SliceStable(s.pending, func(i, j int) bool {
		return s.pending[i].CreationTimestamp.Before(&s.pending[j].CreationTimestamp)
	})
	replay := make([]corev1.Pod, 0, len(recent)+len(s.pending))
	for i := range recent {
		replay = append(replay, replayed(&recent[i]))
	}
	for i := range s.pending {
		replay = append(replay, replayed(&s.pending[i]))
	}
	return s.bound, replay
}

// holdsResources tells a pod that can count in a trial: finished and deleted
// pods hold nothing.
func holdsResources(p *corev1.Pod) bool {
	return p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// selectable is TrimPod's pod with what the selector orders it by: when it
// was created and when it was bound.
func selectable(p *corev1.Pod) corev1.Pod {
	out := TrimPod(p)
	out.CreationTimestamp = p.CreationTimestamp
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			out.Status.Conditions = append(out.Status.Conditions, corev1.PodCondition{Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime})
		}
	}
	return out
}

func replayed(p *corev1.Pod) corev1.Pod {
	out := TrimPod(p)
	out.Spec.NodeName = ""
	return out
}

// byBindingTime is a min-heap of pods by when they were bound, then by
// namespace and name, so that equal times order the same on every run.
type byBindingTime []corev1.Pod

func (h byBindingTime) Len() int { return len(h) }
func (h byBindingTime) Less(i, j int) bool {
	ti, tj := boundAt(&h[i]), boundAt(&h[j])
	if !ti.Equal(tj) {
		return ti.Before(tj)
	}
	if h[i].Namespace != h[j].Namespace {
		return h[i].Namespace < h[j].Namespace
	}
	return h[i].Name < h[j].Name
}
func (h byBindingTime) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *byBindingTime) Push(x any)   { *h = append(*h, x.(corev1.Pod)) }
func (h *byBindingTime) Pop() any {
	old := *h
	p := old[len(old)-1]
	*h = old[:len(old)-1]
	return p
}

// boundAt is when a pod was bound, as near as the API tells.
func boundAt(p *corev1.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	return p.CreationTimestamp.Time
}
