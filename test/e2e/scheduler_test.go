package e2e

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestSecondarySchedulerBindsPods: the operator's Deployment and ConfigMap, run
// by a real kube-scheduler with the operand ServiceAccount's token, bind a pod
// with schedulerName secondary-scheduler that the default scheduler left alone;
// the user's configuration layer is in effect (bin-packing: every pod on one
// node, where the default scheduler would spread); a pod with a schedulerName
// nobody serves stays Pending; and the RBAC the operator grants is enough (no
// "forbidden" in the scheduler's log, the Lease is held).
func TestSecondarySchedulerBindsPods(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	ns := c.binPackingRolledOut(t, "e2e-scheduling")

	first := c.createPod(t, ns, "first", names.DefaultSchedulerName)
	stray := c.createPod(t, ns, "stray", "no-such-scheduler")
	framework.Consistently(ctx, t, 5*time.Second, "the default scheduler leaves pods of other schedulers alone", func() (bool, error) {
		for _, name := range []string{first, stray} {
			if node, err := c.nodeOf(ctx, ns, name); node != "" || err != nil {
				return false, fmt.Errorf("pod %s bound to %q before the secondary scheduler ran (%v)", name, node, err)
			}
		}
		return true, nil
	})

	scheduler := c.playKubelet(t)
	var node string
	framework.WaitForWithin(ctx, t, time.Minute, "the secondary scheduler to bind pod "+first, func() (bool, error) {
		var err error
		node, err = c.nodeOf(ctx, ns, first)
		return node != "", err
	})
	t.Logf("pod %s bound to %s", first, node)
	c.waitScheduledBy(t, ns, first, names.DefaultSchedulerName)

	// The ConfigMap's layer (NodeResourcesFit MostAllocated) is what the scheduler
	// runs: the next pods pack onto the same node.
	for i := range 2 {
		name := c.createPod(t, ns, fmt.Sprintf("packed-%d", i), names.DefaultSchedulerName)
		var got string
		framework.WaitForWithin(ctx, t, time.Minute, "the secondary scheduler to bind pod "+name, func() (bool, error) {
			var err error
			got, err = c.nodeOf(ctx, ns, name)
			return got != "", err
		})
		if got != node {
			t.Errorf("pod %s went to %s, want %s: the bin-packing configuration is not in effect", name, got, node)
		}
	}

	if n, err := c.nodeOf(ctx, ns, stray); n != "" || err != nil {
		t.Errorf("pod %s with an unknown schedulerName was bound to %q (%v); it must stay Pending", stray, n, err)
	}

	lease, err := c.admin.Kube.CoordinationV1().Leases(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the scheduler's Lease: %v", err)
	}
	if holder := leaseHolder(lease); holder == "" {
		t.Errorf("Lease %s/%s has no holder", names.OperandNamespace, names.OperandName)
	}
	if log := scheduler.Log(t); regexp.MustCompile(`(?i)forbidden`).MatchString(log) {
		t.Errorf("the scheduler's log has \"forbidden\": the operand's RBAC is missing something:\n%s",
			grepLines(log, `(?i)forbidden`))
	}
}

func leaseHolder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func grepLines(text, pattern string) string {
	re := regexp.MustCompile(`(?m)^.*` + pattern + `.*$`)
	out := ""
	for i, m := range re.FindAllString(text, 10) {
		out += fmt.Sprintf("%d: %s\n", i, m)
	}
	return out
}

// createPod creates a pod that asks for 4 CPUs and 1Gi (a kwok node has 32 and
// 256Gi) with the given schedulerName and returns its name.
func (c *cluster) createPod(t *testing.T, ns, name, schedulerName string) string {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			SchedulerName: schedulerName,
			Containers: []corev1.Container{{
				Name:  "app",
				Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse("4"),
					corev1.ResourceMemory: resource.MustParse("1Gi"),
				}},
			}},
		},
	}
	if _, err := c.admin.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

func (c *cluster) nodeOf(ctx context.Context, ns, name string) (string, error) {
	p, err := c.admin.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return p.Spec.NodeName, nil
}

// waitScheduledBy waits for the Scheduled event of the pod and checks which
// scheduler (profile) reported it.
func (c *cluster) waitScheduledBy(t *testing.T, ns, pod, scheduler string) {
	t.Helper()
	framework.WaitFor(context.Background(), t, "the Scheduled event of pod "+pod, func() (bool, error) {
		events, err := c.admin.Kube.EventsV1().Events(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if e.Regarding.Name != pod || e.Reason != "Scheduled" {
				continue
			}
			if e.ReportingController != scheduler {
				t.Fatalf("pod %s was scheduled by %q, want %q: %s", pod, e.ReportingController, scheduler, e.Note)
			}
			return true, nil
		}
		return false, nil
	})
}
