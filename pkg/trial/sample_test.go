package trial

import (
	"context"
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

func pendingPods(namespace string, n int) []corev1.Pod {
	pods := make([]corev1.Pod, n)
	for i := range pods {
		pods[i] = corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("p-%05d", i),
			CreationTimestamp: metav1.NewTime(time.Unix(int64(1000+i), 0))},
			Spec: corev1.PodSpec{SchedulerName: "ours"}}
	}
	return pods
}

func boundPod(namespace, name string, boundAt int) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.PodSpec{SchedulerName: "ours", NodeName: "n"},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(time.Unix(int64(boundAt), 0))}}}}
}

func podKeys(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return out
}

// TestSelectReplaySharesFairly: 6,000 pending pods in one namespace cannot
// crowd out 20 in another, nor refuse the trial; each namespace gives its
// oldest pods, the recently bound are shared the same way, and the sample does
// not depend on the order the pods are listed in.
func TestSelectReplaySharesFairly(t *testing.T) {
	pods := append(pendingPods("crowd", 6000), pendingPods("quiet", 20)...)
	for i := range 30 {
		pods = append(pods, boundPod("crowd", fmt.Sprint("b-", i), 100+i))
	}
	pods = append(pods, boundPod("quiet", "b-old", 1), boundPod("quiet", "b-older", 0))
	bounds := ReplayBounds{Pending: 1000, Bound: 10}

	bound, replay, sampled, err := SelectReplay(pods, []string{"ours"}, bounds)
	if err != nil {
		t.Fatal(err)
	}
	want := []NamespaceSample{
		{Namespace: "crowd", Pending: 6000, PendingReplayed: 980, BoundReplayed: 8},
		{Namespace: "quiet", Pending: 20, PendingReplayed: 20, BoundReplayed: 2},
	}
	if !slices.Equal(sampled, want) {
		t.Fatalf("sampled %+v, want %+v", sampled, want)
	}
	if len(replay) != 1010 {
		t.Fatalf("%d replayed, want 1010", len(replay))
	}
	keys := podKeys(replay)
	// The last 8 bound of crowd (b-22 ... b-29) and both of quiet, oldest first,
	// then crowd's 980 oldest pending and all of quiet's, by creation.
	if got := strings.Join(keys[:10], ","); got != "quiet/b-older,quiet/b-old,crowd/b-22,crowd/b-23,crowd/b-24,crowd/b-25,crowd/b-26,crowd/b-27,crowd/b-28,crowd/b-29" {
		t.Errorf("recently bound replayed: %s", got)
	}
	if !slices.Contains(keys, "crowd/p-00979") || slices.Contains(keys, "crowd/p-00980") || !slices.Contains(keys, "quiet/p-00019") {
		t.Errorf("pending replayed are not each namespace's oldest")
	}
	if bound.Len() != 22 {
		t.Errorf("%d pods stay bound, want the 22 bound pods not replayed", bound.Len())
	}

	shuffled := slices.Clone(pods)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	_, again, sampledAgain, err := SelectReplay(shuffled, []string{"ours"}, bounds)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(podKeys(again), keys) || !slices.Equal(sampledAgain, sampled) {
		t.Errorf("the sample depends on the order pods are listed in")
	}
}

// TestSelectReplayLeavesOutClaims: a snapshot without ResourceClaims (a
// cluster that does not serve them, SelectReplay) cannot replay a pod with
// claims: it is counted, not replayed; one bound elsewhere stays on its node
// with its other resources, its claims dropped in the pod and its
// containers alike.
func TestSelectReplayLeavesOutClaims(t *testing.T) {
	claims := func(p corev1.Pod) corev1.Pod {
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptrTo("gpu-claim")}}
		p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}}
		return p
	}
	pending := claims(pendingPods("ml", 1)[0])
	bound := claims(boundPod("ml", "trainer", 5))
	theirs := claims(boundPod("ml", "theirs", 5))
	theirs.Spec.SchedulerName = "default-scheduler"
	kept, replay, sampled, err := SelectReplay([]corev1.Pod{pending, bound, theirs}, []string{"ours"}, ReplayBounds{Pending: 10, Bound: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(replay) != 0 {
		t.Errorf("replayed %v, want no pod with claims", podKeys(replay))
	}
	if want := []NamespaceSample{{Namespace: "ml", LeftOut: 2}}; !slices.Equal(sampled, want) {
		t.Errorf("sampled %+v, want %+v", sampled, want)
	}
	for _, p := range decodeAll(t, kept) {
		if len(p.Spec.ResourceClaims) != 0 || len(p.Spec.Containers[0].Resources.Claims) != 0 {
			t.Errorf("bound pod %s keeps claims: %+v", p.Name, p.Spec)
		}
	}
	if kept.Len() != 2 {
		t.Errorf("%d pods stay bound, want 2", kept.Len())
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestTrimDropsTrialLabels: a live pod carrying the trial's own replay label
// is copied without it, so that no arm counts it among the pods it replays.
func TestTrimDropsTrialLabels(t *testing.T) {
	p := leaky()
	p.Labels[ReplayLabel] = "true"
	p.Labels[trialLabelPrefix+"other"] = "x"
	got := TrimPod(p)
	if _, ok := got.Labels[ReplayLabel]; ok || len(got.Labels) != 2 {
		t.Errorf("labels %v, want the pod's own (app, pod-group) only", got.Labels)
	}
	if _, ok := p.Labels[ReplayLabel]; !ok {
		t.Errorf("trimming changed the live pod's labels")
	}
}

// TestTakeCountsOnlyTheSample: pending pods a trial does not replay cost its
// bound nothing, whatever their number; those it holds count decoded.
func TestTakeCountsOnlyTheSample(t *testing.T) {
	var objects []runtime.Object
	for _, p := range pendingPods("crowd", 2000) {
		p.Labels = map[string]string{"big": strings.Repeat("v", 63), "k": strings.Repeat("x", 60)}
		objects = append(objects, &p)
	}
	src := Source{Kube: fake.NewClientset(objects...)}
	// 100 pods held decoded, counted at about 2.7 KiB each.
	s, err := take(context.Background(), src, []string{"ours"}, ReplayBounds{Pending: 100}, 512<<10)
	if err != nil {
		t.Fatalf("2,000 pending pods, 100 replayed, under a 512 KiB bound: %v", err)
	}
	if len(s.Replay) != 100 {
		t.Fatalf("%d replayed, want 100", len(s.Replay))
	}
	if _, err := take(context.Background(), src, []string{"ours"}, ReplayBounds{Pending: 1000}, 512<<10); err == nil ||
		!strings.Contains(err.Error(), "namespace crowd holds") {
		t.Fatalf("1,000 replayed pods held decoded under a 512 KiB bound: %v, want a refusal naming crowd", err)
	}
}

// BenchmarkSelectHolds reports what the replay set of 1,000 pending pods
// keeps on the heap after a GC, per pod, against the bytes the snapshot's
// bound counts for each (heldSize): small pods, and pods with 10 KiB of
// labels. Counted must not fall below retained.
func BenchmarkSelectHolds(b *testing.B) {
	for _, bench := range []struct {
		name            string
		labels, affinty int
	}{{"small", 0, 0}, {"labels-10KiB", 160, 0}, {"affinity-200-terms", 0, 200}} {
		b.Run(bench.name, func(b *testing.B) { benchmarkSelectHolds(b, bench.labels, bench.affinty) })
	}
}

// withAffinity gives p n required node affinity terms of short values, the
// shape that takes the most heap for its encoded size.
func withAffinity(p *corev1.Pod, n int) {
	if n == 0 {
		return
	}
	var terms []corev1.NodeSelectorTerm
	for i := range n {
		terms = append(terms, corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "k", Operator: corev1.NodeSelectorOpIn, Values: []string{fmt.Sprint(i), "a", "b"}}}})
	}
	p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
}

func benchmarkSelectHolds(b *testing.B, labels, affinity int) {
	const pending = 1000
	objects := make([]runtime.Object, 0, 2*pending)
	for i, p := range pendingPods("tenant", 2*pending) {
		p.Labels = map[string]string{}
		for j := range labels {
			p.Labels[fmt.Sprintf("label-%03d", j)] = strings.Repeat(fmt.Sprint(i%10), 54)
		}
		withAffinity(&p, affinity)
		objects = append(objects, &p)
	}
	src := Source{Kube: fake.NewClientset(objects...)}
	var before, after goruntime.MemStats
	for b.Loop() {
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		pods, err := src.Kube.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		size := &snapshotSize{limit: MaxSnapshotBytes, byNamespace: map[string]int{}}
		sel := newReplaySelector([]string{"ours"}, ReplayBounds{Pending: pending}, size)
		for i := range pods.Items {
			if err := sel.add(&pods.Items[i]); err != nil {
				b.Fatal(err)
			}
		}
		_, replay, _, _ := sel.finish()
		pods = nil // as the pager drops each page once read
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/pending, "retained-bytes/pod")
		b.ReportMetric(float64(size.total)/pending, "counted-bytes/pod")
		goruntime.KeepAlive(replay)
	}
}
