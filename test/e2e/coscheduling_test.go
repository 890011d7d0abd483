package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

var podGroups = schema.GroupVersionResource{Group: "scheduling.x-k8s.io", Version: "v1alpha1", Resource: "podgroups"}

// podGroupLabel puts a pod in a PodGroup (scheduler-plugins' Coscheduling).
const podGroupLabel = "scheduling.x-k8s.io/pod-group"

// TestCoschedulingGang runs examples/coscheduling, as is, on scheduler-plugins'
// scheduler built from its Go module (operandrunner picks it for the example's
// image), with the configuration and the ServiceAccount token the operator
// gives the pod:
//
//   - of a PodGroup with minMember 3, two pods stay Pending, and the third makes
//     all three bind;
//   - the scheduler's log has no "forbidden": the example's spec.rbac is enough;
//   - without the PodGroup rules in spec.rbac, a restarted scheduler cannot read
//     PodGroups, the next gang stalls, and the log names the missing permission;
//     with the rules back, that gang binds: the rules are needed.
func TestCoschedulingGang(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	c.coschedulingRolledOut(t)
	scheduler := c.playKubelet(t)
	ns := c.createNamespace(t, "e2e-gang")

	// A pod of no group is scheduled as usual: the scheduler runs.
	solo := c.createGangPod(t, ns, "solo", "")
	c.waitBoundWithin(t, ns, solo, 2*time.Minute)
	if binary := filepath.Join(c.bin, "scheduler-plugins"); !strings.Contains(scheduler.Log(t), "starting "+binary+" ") {
		t.Fatalf("the pod did not run %s:\n%s", binary, firstLines(scheduler.Log(t), 3))
	}

	c.createPodGroup(t, ns, "gang", 3)
	first, second := c.createGangPod(t, ns, "gang-0", "gang"), c.createGangPod(t, ns, "gang-1", "gang")
	framework.Consistently(ctx, t, 8*time.Second, "two pods of a gang of three to stay Pending", func() (bool, error) {
		for _, name := range []string{first, second} {
			if node, err := c.nodeOf(ctx, ns, name); node != "" || err != nil {
				return false, fmt.Errorf("pod %s bound to %q before its gang was complete (%v)", name, node, err)
			}
		}
		return true, nil
	})
	start := time.Now()
	third := c.createGangPod(t, ns, "gang-2", "gang")
	for _, name := range []string{first, second, third} {
		c.waitBoundWithin(t, ns, name, 2*time.Minute)
	}
	t.Logf("gang of 3 bound %s after its third pod was created", time.Since(start).Round(time.Millisecond))
	if log := scheduler.Log(t); regexp.MustCompile(`(?i)forbidden`).MatchString(log) {
		t.Errorf("the scheduler's log has \"forbidden\": the example's spec.rbac is not enough:\n%s", grepLines(log, `(?i)forbidden`))
	}

	// Without the PodGroup rules: a scheduler started now cannot read PodGroups.
	c.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.RBAC = nil })
	c.expectCanI(t, "list", "podgroups.scheduling.x-k8s.io", false)
	c.deleteRunningOperandPods(t)
	// The replacement logs the refusal as it starts (the old process is
	// stopped when its pod is deleted); only then does the next gang come.
	missing := regexp.MustCompile(`cannot (list|watch) resource \\?"podgroups\\?"`)
	framework.WaitForWithin(ctx, t, 2*time.Minute, "the restarted scheduler's log to name the missing PodGroup permission", func() (bool, error) {
		if log := scheduler.Log(t); !missing.MatchString(log) {
			return false, fmt.Errorf("no %q in the log yet", missing)
		}
		return true, nil
	})
	c.createPodGroup(t, ns, "stalled", 2)
	stalled := []string{c.createGangPod(t, ns, "stalled-0", "stalled"), c.createGangPod(t, ns, "stalled-1", "stalled")}
	framework.Consistently(ctx, t, 15*time.Second, "the gang to stall without the PodGroup rules", func() (bool, error) {
		for _, name := range stalled {
			if node, err := c.nodeOf(ctx, ns, name); node != "" || err != nil {
				return false, fmt.Errorf("pod %s bound to %q without the PodGroup rules (%v)", name, node, err)
			}
		}
		return true, nil
	})
	t.Logf("without the rules: %s", firstLines(grepLines(scheduler.Log(t), missing.String()), 1))

	// The rules back: the same scheduler process reads PodGroups again and the
	// stalled gang binds, so the stall was the missing permission and nothing else.
	c.applyExample(t, "coscheduling")
	c.expectCanI(t, "list", "podgroups.scheduling.x-k8s.io", true)
	start = time.Now()
	for _, name := range stalled {
		c.waitBoundWithin(t, ns, name, 3*time.Minute)
	}
	t.Logf("with the rules back, the stalled gang bound after %s", time.Since(start).Round(time.Second))
}

// coschedulingRolledOut installs scheduler-plugins' CRDs, applies
// examples/coscheduling and waits until the operator has rolled it out.
func (c *cluster) coschedulingRolledOut(t *testing.T) {
	t.Helper()
	crds := filepath.Join(filepath.Dir(c.bin), "crds")
	if out, err := c.kubectl("apply", "-f", crds+"/"); err != nil {
		t.Fatalf("kubectl apply -f %s/ (scheduler-plugins' CRDs, from hack/controlplane/build.sh): %v\n%s", crds, err, out)
	}
	if out, err := c.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/podgroups.scheduling.x-k8s.io"); err != nil {
		t.Fatalf("the PodGroup CRD: %v\n%s", err, out)
	}
	c.applyExample(t, "coscheduling")
	c.waitReconciled(t)
}

// createGangPod creates a pod for the secondary scheduler in PodGroup group
// ("": none).
func (c *cluster) createGangPod(t *testing.T, ns, name, group string) string {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			SchedulerName: names.DefaultSchedulerName,
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}},
		},
	}
	if group != "" {
		pod.Labels = map[string]string{podGroupLabel: group}
	}
	if _, err := c.admin.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return name
}

func (c *cluster) createPodGroup(t *testing.T, ns, name string, minMember int64) {
	t.Helper()
	pg := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": podGroups.GroupVersion().String(), "kind": "PodGroup",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     map[string]any{"minMember": minMember},
	}}
	if _, err := c.admin.Dynamic.Resource(podGroups).Namespace(ns).Create(context.Background(), pg, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PodGroup %s: %v", name, err)
	}
}

func (c *cluster) waitBoundWithin(t *testing.T, ns, name string, timeout time.Duration) {
	t.Helper()
	framework.WaitForWithin(context.Background(), t, timeout, "pod "+name+" to be bound", func() (bool, error) {
		node, err := c.nodeOf(context.Background(), ns, name)
		return node != "", err
	})
}

func firstLines(text string, n int) string {
	lines := strings.SplitN(text, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
