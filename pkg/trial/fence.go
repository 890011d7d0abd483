package trial

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// FenceLabel marks the probe pod fence creates; it is never replayed.
const FenceLabel = "trial.secondary-scheduler.openshift.io/fence"

// fenceTimeout bounds the wait for the scheduler to decide the probe pod. A
// configuration whose plugins never decide a plain pod still gets its trial,
// without the guarantee.
const fenceTimeout = 60 * time.Second

// fence waits until the arm's scheduler has seen every seeded node and pod
// before the replayed pods reach it. The scheduler runs while the sandbox is
// seeded, and its informers follow each kind on a watch of its own: on a
// busy machine the pods would reach it while it still knows only some of
// the nodes, and it would put all of them on the nodes it knows. Events of
// one kind arrive in resourceVersion order, so a scheduler that decides a
// probe pod created after every seeded pod, for the node written last, has
// seen all of both. What it found is the arm report's
// Fence: a trial that went on without the guarantee says so.
func (s *seeder) fence(ctx context.Context, snap *Snapshot) (string, error) {
	if len(snap.Nodes) == 0 || len(snap.Replay) == 0 {
		return "", nil
	}
	start := time.Now()
	nodes, err := s.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing the seeded nodes: %w", err)
	}
	last, lastRV := "", uint64(0)
	for _, n := range nodes.Items {
		rv, err := strconv.ParseUint(n.ResourceVersion, 10, 64)
		if err != nil {
			return "not fenced: the sandbox's resourceVersions are opaque", nil
		}
		if last == "" || rv > lastRV {
			last, lastRV = n.Name, rv
		}
	}
	probe := fenceProbe(snap.Replay[0].Namespace, snap.Replay[0].Spec.SchedulerName, last)
	pods := s.kube.CoreV1().Pods(probe.Namespace)
	created, err := pods.Create(ctx, probe, metav1.CreateOptions{})
	if err != nil {
		// Admission the seed copied may refuse it: the trial goes on as it
		// did before it had a fence.
		return fmt.Sprintf("not fenced: the probe pod was refused: %v", err), ctx.Err()
	}
	defer func() {
		// It holds nothing: gone, or left in a sandbox about to be stopped.
		_ = pods.Delete(context.WithoutCancel(ctx), created.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	}()
	deadline := time.Now().Add(fenceTimeout)
	for time.Now().Before(deadline) {
		p, err := pods.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return "", fmt.Errorf("reading the probe pod: %w", err)
		}
		if err == nil && fenceDecided(p, len(nodes.Items)) {
			return fmt.Sprintf("the scheduler knew all %d nodes after %s", len(nodes.Items), time.Since(start).Round(time.Millisecond)), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(pollInterval):
		}
	}
	return fmt.Sprintf("not fenced: the scheduler did not decide the probe pod within %s", fenceTimeout), nil
}

// fenceProbe is a pod of no requests that tolerates every taint and fits
// node alone, for the profile schedulerName.
func fenceProbe(namespace, schedulerName, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "trial-fence-", Namespace: namespace, Labels: map[string]string{FenceLabel: "true"}},
		Spec: corev1.PodSpec{
			SchedulerName: schedulerName,
			Tolerations:   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{
					Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}},
			// Restricted, as the Pod Security labels of a copied namespace may require.
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65535),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: "fence", Image: "registry.k8s.io/pause:3.10", SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}}},
		},
	}
}

// unschedulableOf reads the node count of kube-scheduler's FailedScheduling
// message ("0/3 nodes are available: ...").
var unschedulableOf = regexp.MustCompile(`^0/(\d+) nodes are available`)

// noNodesAvailable is kube-scheduler's message for a pod it tried while it
// knew no node (ErrNoNodesAvailable), reported as Unschedulable.
const noNodesAvailable = "no nodes available to schedule pods"

// fenceDecided: the scheduler bound the probe (it knows its node), or found
// it unschedulable (the arm's configuration may exclude that node) while
// knowing all nodes nodes. A message that counts fewer, or kube-scheduler's
// "no nodes available" (it knows none yet), waits for the missing nodes,
// whose arrival queues the probe again.
func fenceDecided(p *corev1.Pod, nodes int) bool {
	if p.Spec.NodeName != "" {
		return true
	}
	for _, c := range p.Status.Conditions {
		if c.Type != corev1.PodScheduled || c.Status != corev1.ConditionFalse || c.Reason != corev1.PodReasonUnschedulable {
			continue
		}
		if strings.HasPrefix(c.Message, noNodesAvailable) {
			return false
		}
		m := unschedulableOf.FindStringSubmatch(c.Message)
		if m == nil {
			return true // not kube-scheduler's wording: decided all the same
		}
		n, _ := strconv.Atoi(m[1])
		return n >= nodes
	}
	return false
}
