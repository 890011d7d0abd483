package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/cmd/ctl"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// TestTrialSamplesFairly: a tenant with 6,000 pending pods cannot deny a
// trial nor crowd out another namespace's 20, and a live pod carrying the
// trial's own replay label changes nothing. The trial command replays 200
// pending pods: the crowded namespace gives 180, the quiet one all 20, and
// the report says so. The pending pods require a node label no node has, so
// the live scheduler leaves them pending and both arms find them
// unschedulable.
func TestTrialSamplesFairly(t *testing.T) {
	c := needCluster(t)
	dir := c.testDir(t, "trial-sample")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	live := writeTrialInput(t, dir, "live", "LeastAllocated", "")
	if out, err := c.kubectl("apply", "-f", live); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", live, err, out)
	}
	c.waitReconciled(t)
	crowd, quiet := c.createNamespace(t, "e2e-crowd"), c.createNamespace(t, "e2e-quiet")
	// Gone before the next test: 6,000 pending pods would join its replay set.
	t.Cleanup(func() { c.deletePodsNow(t, crowd, quiet) })
	c.createUnplaceable(t, crowd, 6000)
	c.createUnplaceable(t, quiet, 20)
	nodes, err := c.admin.Kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("the stack's nodes: %v", err)
	}
	// Bound by another scheduler: the trial copies it and must not watch it.
	labelled := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "labelled-like-a-replay", Namespace: quiet, Labels: map[string]string{trial.ReplayLabel: "true"}},
		Spec: corev1.PodSpec{NodeName: nodes.Items[0].Name, Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}}}
	if _, err := c.admin.Kube.CoreV1().Pods(quiet).Create(context.Background(), labelled, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	example := repoPath(t, "examples", "bin-packing")
	r, err := c.runTrial(t, []string{filepath.Join(example, "secondaryscheduler.yaml"), filepath.Join(example, "configmap.yaml")}, nil,
		func(o *ctl.TrialOptions) { o.ReplayPending = 200 })
	if err != nil {
		t.Fatalf("the trial: %v", err)
	}
	got := map[string]trial.NamespaceSample{}
	for _, n := range r.Snapshot.Sample.Namespaces {
		got[n.Namespace] = n
	}
	if n := got[crowd]; n.Pending != 6000 || n.PendingReplayed != 180 {
		t.Errorf("namespace %s sampled %+v, want 180 of 6000 pending", crowd, n)
	}
	if n := got[quiet]; n.Pending != 20 || n.PendingReplayed != 20 {
		t.Errorf("namespace %s sampled %+v, want 20 of 20 pending", quiet, n)
	}
	if r.Counts.Undecided != 0 || !r.Verdict.Allowed {
		t.Errorf("verdict %+v with %d undecided, want allowed with every unit decided", r.Verdict, r.Counts.Undecided)
	}
	for _, u := range r.Units {
		if strings.HasSuffix(u.Name, "/labelled-like-a-replay") {
			t.Errorf("the live pod with the replay label was counted as replayed: %+v", u)
		}
		if (strings.HasPrefix(u.Name, crowd+"/") || strings.HasPrefix(u.Name, quiet+"/")) && u.Change != trial.StillUnschedulable {
			t.Errorf("unit %s: %s, want unschedulable in both arms", u.Name, u.Change)
		}
	}
}

// createUnplaceable creates n pending pods of ours that require a node label
// no node has, 16 at a time.
func (c *cluster) createUnplaceable(t *testing.T, ns string, n int) {
	t.Helper()
	errs := make(chan error, n)
	work := make(chan int)
	for range 16 {
		go func() {
			for i := range work {
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pending-%05d", i), Namespace: ns}, Spec: corev1.PodSpec{
					SchedulerName: "secondary-scheduler", NodeSelector: map[string]string{"e2e.trial/no-such-label": "x"},
					Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}}}},
				}}
				_, err := c.admin.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
				errs <- err
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("creating a pending pod in %s: %v", ns, err)
		}
	}
}

// deletePodsNow deletes every pod of the namespaces at once and waits until
// none is listed. A loaded API server can cut a DeleteCollection of
// thousands of pods at its request timeout, having deleted some: it is sent
// again until the namespace is empty.
func (c *cluster) deletePodsNow(t *testing.T, namespaces ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, ns := range namespaces {
		pods := c.admin.Kube.CoreV1().Pods(ns)
		var lastErr error
		if err := wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
			list, err := pods.List(ctx, metav1.ListOptions{Limit: 1})
			if err != nil || len(list.Items) > 0 {
				lastErr = pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{})
				return false, nil
			}
			return true, nil
		}); err != nil {
			t.Errorf("the pods of %s are still there: %v (the last delete: %v)", ns, err, lastErr)
		}
	}
}
