package trial

import (
	"context"
	"fmt"
	goruntime "runtime"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
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
	encoded, replay, _, err := SelectReplay(pods, []string{"ours"}, ReplayBounds{Pending: 10, Bound: 2})
	if err != nil {
		t.Fatal(err)
	}
	bound := decodeAll(t, encoded)
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
	// Bound pods are seeded all at once: their order does not count.
	sort.Slice(bound, func(i, j int) bool { return bound[i].Name < bound[j].Name })
	if got, want := names(bound), "b1,old,theirs"; got != want {
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

func decodeAll(t testing.TB, pods BoundPods) []corev1.Pod {
	t.Helper()
	var out []corev1.Pod
	for i := range pods.Len() {
		p, err := pods.At(i)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, *p)
	}
	return out
}

// TestTakeTrimsAsItLists: what users put in pods that scheduling does not
// read costs a snapshot nothing; what it reads is bounded, and the refusal
// names the namespace that holds most of it.
func TestTakeTrimsAsItLists(t *testing.T) {
	huge := strings.Repeat("x", 256<<10)
	var objects []runtime.Object
	for i := range 20 {
		p := leaky()
		p.Name, p.Namespace = fmt.Sprint("noisy-", i), "noisy"
		p.Annotations = map[string]string{"note": huge}
		p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: "BIG", Value: huge})
		objects = append(objects, p)
	}
	src := Source{Kube: fake.NewClientset(objects...)}
	s, err := take(context.Background(), src, []string{"ours"}, ReplayBounds{Pending: 10, Bound: 10}, 64<<10)
	if err != nil {
		t.Fatalf("20 pods with 512 KiB each of annotations and env, under a 64 KiB bound: %v", err)
	}
	if got := s.Pods.Len() + len(s.Replay); got != 20 {
		t.Fatalf("%d pods in the snapshot, want 20", got)
	}
	for _, p := range append(decodeAll(t, s.Pods), s.Replay...) {
		if p.Size() > 8<<10 {
			t.Fatalf("pod %s keeps %d bytes", p.Name, p.Size())
		}
	}

	for i := range 10 {
		p := leaky()
		p.Name, p.Namespace = fmt.Sprint("labelled-", i), "labelled"
		p.Labels = map[string]string{}
		for j := range 200 {
			p.Labels[fmt.Sprintf("k%03d", j)] = strings.Repeat("v", 63)
		}
		objects = append(objects, p)
	}
	src = Source{Kube: fake.NewClientset(objects...)}
	_, err = take(context.Background(), src, []string{"ours"}, ReplayBounds{Pending: 10, Bound: 10}, 64<<10)
	if err == nil || !strings.Contains(err.Error(), "over the 0.1 MiB a trial copies (reached while reading pods)") ||
		!strings.Contains(err.Error(), "namespace labelled holds") || !strings.Contains(err.Error(), "spec.rollout.strategy Direct") {
		t.Fatalf("10 pods with 14 KiB of labels each over a 64 KiB bound: got %v", err)
	}
}

// BenchmarkTakeRetains reports what a snapshot of 10,000 bound pods keeps on
// the heap after a GC, the pods carrying 10 KiB of annotations and env each
// that it drops, and the bytes it counts against MaxSnapshotBytes per pod.
func BenchmarkTakeRetains(b *testing.B) {
	const pods = 10000
	objects := make([]runtime.Object, 0, pods)
	for i := range pods {
		p := leaky()
		p.Name, p.Namespace = fmt.Sprint("p-", i), fmt.Sprint("ns-", i%100)
		p.Annotations = map[string]string{"note": strings.Repeat("x", 5<<10)}
		p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, corev1.EnvVar{Name: "BIG", Value: strings.Repeat("x", 5<<10)})
		objects = append(objects, p)
	}
	src := Source{Kube: fake.NewClientset(objects...)}
	var before, after goruntime.MemStats
	for b.Loop() {
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		s, err := take(context.Background(), src, []string{"ours"}, ReplayBounds{Pending: 1000, Bound: 100}, MaxSnapshotBytes)
		if err != nil {
			b.Fatal(err)
		}
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		counted := 0
		for _, p := range s.Pods.encoded {
			counted += len(p)
		}
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "retained-MiB")
		b.ReportMetric(float64(counted)/pods, "counted-bytes/pod")
		goruntime.KeepAlive(s)
	}
}
