package trial

import (
	"fmt"
	"math"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// MaxReplayPending and MaxReplayBound are the largest ReplayBounds, as the
// API's spec.rollout.trial allows them.
const (
	MaxReplayPending = 5000
	MaxReplayBound   = 2000
)

// ReplayBounds bound the replay set: at most Pending of the pending pods the
// trial's schedulers serve, and the Bound pods they bound last, each shared
// fairly among namespaces (fairSample).
type ReplayBounds struct {
	Pending int `json:"pending"`
	Bound   int `json:"bound"`
}

// heldSize is the heap a trimmed pod takes decoded, as the replay set is
// held, for the snapshot's bound, which counts what the operator holds. Its
// label and annotation strings take what they encode to; every other field
// up to 8 times its encoding (200 node affinity terms: 7.6), and a pod 1.2
// KiB besides (BenchmarkSelectHolds measures all three).
func heldSize(p *corev1.Pod) int {
	strs := 0
	for _, m := range []map[string]string{p.Labels, p.Annotations} {
		for k, v := range m {
			strs += len(k) + len(v)
		}
	}
	const structFactor, perPod = 8, 1536
	return structFactor*max(p.Size()-strs, 0) + strs + perPod
}

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

// anyInSchedulingGroup says whether one of the pods names a scheduling group
// (spec.schedulingGroup). A pod that does not decode is the seeder's to
// refuse.
func (b *BoundPods) anyInSchedulingGroup() bool {
	for i := range b.encoded {
		if p, err := b.At(i); err == nil && p.Spec.SchedulingGroup != nil {
			return true
		}
	}
	return false
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
// replay set, trimmed. The replay set is a fair sample (fairSample) of the
// pending, ungated pods naming one of schedulerNames, the oldest of each
// namespace first, and of the running pods those schedulers bound, the last
// bound (the PodScheduled condition's transition; creation time when a pod
// has none) of each namespace first, with their node cleared. Finished and
// deleted pods hold no resources and are left out. It selects for a snapshot
// that holds neither ResourceClaims nor Kubernetes' PodGroups: pods naming
// one are left out too, and kept bound without it (replaySelector).
func SelectReplay(pods []corev1.Pod, schedulerNames []string, bounds ReplayBounds) (BoundPods, []corev1.Pod, []NamespaceSample, error) {
	sel := newReplaySelector(schedulerNames, bounds, &snapshotSize{limit: math.MaxInt, byNamespace: map[string]int{}})
	for i := range pods {
		if err := sel.add(&pods[i]); err != nil {
			return BoundPods{}, nil, nil, err
		}
	}
	bound, replay, _, sampled := sel.finish()
	return bound, replay, sampled, nil
}

// replaySelector is SelectReplay on pods as their list pages arrive: a bound
// pod is encoded at once, and only the sampled ones are held decoded. It
// counts what it holds in size.
type replaySelector struct {
	ours    map[string]bool
	size    *snapshotSize
	bound   BoundPods
	recent  *fairSample
	pending *fairSample
	leftOut map[string]int
	// claims and groups say that the snapshot holds the cluster's
	// ResourceClaims and its PodGroups (scheduling.k8s.io). Without them a
	// pod naming one cannot be placed faithfully: it is left out of the
	// replay set, and kept bound without the reference, which the sandbox
	// would refuse or wait on.
	claims, groups bool
	// boundClaims are the claims ("namespace/name") of the bound pods: they
	// stay allocated (settleClaims).
	boundClaims map[string]bool
}

func newReplaySelector(schedulerNames []string, bounds ReplayBounds, size *snapshotSize) *replaySelector {
	ours := map[string]bool{}
	for _, name := range schedulerNames {
		ours[name] = true
	}
	return &replaySelector{ours: ours, size: size, leftOut: map[string]int{}, boundClaims: map[string]bool{},
		recent:  newFairSample(bounds.Bound, func(a, b *corev1.Pod) bool { return byBindingTime(b, a) }),
		pending: newFairSample(bounds.Pending, byCreation)}
}

// add takes one pod.
func (s *replaySelector) add(p *corev1.Pod) error {
	if !holdsResources(p) {
		return nil
	}
	ours := s.ours[p.Spec.SchedulerName]
	switch {
	case p.Spec.NodeName == "" && ours && len(p.Spec.SchedulingGates) == 0:
		if !s.replayable(p) {
			s.leftOut[p.Namespace]++
			return nil
		}
		kept := selectable(p)
		s.size.change(p.Namespace, heldSize(&kept))
		if dropped, ok := s.pending.add(kept); ok {
			s.size.change(dropped.Namespace, -heldSize(dropped))
		}
		return nil
	case p.Spec.NodeName == "":
		// Another scheduler's, or gated: it holds nothing in either arm.
		return nil
	case ours && s.replayable(p):
		kept := selectable(p)
		s.size.change(p.Namespace, heldSize(&kept))
		if dropped, ok := s.recent.add(kept); ok {
			s.size.change(dropped.Namespace, -heldSize(dropped))
			return s.keepBound(dropped)
		}
		return nil
	default:
		if ours {
			s.leftOut[p.Namespace]++
		}
		return s.keepBound(p)
	}
}

// replayable: the snapshot holds what p refers to.
func (s *replaySelector) replayable(p *corev1.Pod) bool {
	return (s.claims || len(p.Spec.ResourceClaims) == 0) && (s.groups || p.Spec.SchedulingGroup == nil)
}

func (s *replaySelector) keepBound(p *corev1.Pod) error {
	kept := TrimPod(p)
	if !s.claims {
		withoutClaims(&kept)
	}
	if !s.groups {
		kept.Spec.SchedulingGroup = nil
	}
	for _, name := range podClaimNames(&kept) {
		s.boundClaims[kept.Namespace+"/"+name] = true
	}
	n, err := s.bound.Add(kept)
	s.size.change(p.Namespace, n)
	return err
}

// finish returns the bound pods, the replay set (the recently bound, oldest
// first, then the pending by creation, as they came), the live nodes of the
// recently bound and what was sampled of each namespace.
func (s *replaySelector) finish() (BoundPods, []corev1.Pod, map[string]string, []NamespaceSample) {
	recent, pending := s.recent.pods(), s.pending.pods()
	sort.Slice(recent, func(i, j int) bool { return byBindingTime(&recent[i], &recent[j]) })
	sort.Slice(pending, func(i, j int) bool { return byCreation(&pending[i], &pending[j]) })
	replay := make([]corev1.Pod, 0, len(recent)+len(pending))
	live := make(map[string]string, len(recent))
	for i := range recent {
		live[recent[i].Namespace+"/"+recent[i].Name] = recent[i].Spec.NodeName
	}
	for _, group := range [][]corev1.Pod{recent, pending} {
		for i := range group {
			replay = append(replay, replayed(&group[i]))
		}
	}
	return s.bound, replay, live, samples(s.pending, s.recent, s.leftOut)
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

// byBindingTime orders pods by when they were bound, then by namespace and
// name, so that equal times order the same on every run.
func byBindingTime(a, b *corev1.Pod) bool {
	if ta, tb := boundAt(a), boundAt(b); !ta.Equal(tb) {
		return ta.Before(tb)
	}
	return byName(a, b)
}

// byCreation orders pods by when they were created, then by namespace and name.
func byCreation(a, b *corev1.Pod) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return byName(a, b)
}

func byName(a, b *corev1.Pod) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
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
