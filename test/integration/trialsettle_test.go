package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestTrialArmsSettleByTheirSchedulersQueues runs a trial with the real
// kube-scheduler in the trial command's runtime: every arm must end on its
// scheduler's own metrics (queues idle, no attempt between two looks), read
// over its serving port as the sandbox's admin, not on its pods looking
// decided. One pod fits no node, so the scheduler parks one unschedulable.
func TestTrialArmsSettleByTheirSchedulersQueues(t *testing.T) {
	const scheduler = "trial-settle"
	pod := func(name, cpu string) corev1.Pod { return cpuPod("settle", name, scheduler, cpu) }
	snap := &trial.Snapshot{
		Namespaces: []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "settle"}}},
		Nodes:      []corev1.Node{cpuNode("n1"), cpuNode("n2")},
		Replay:     []corev1.Pod{pod("a", "1"), pod("b", "1"), pod("too-big", "100")},
	}
	r := sameConfigTrial(t, snap, scheduler)
	for _, a := range []trial.ArmReport{r.Current, r.Candidate, r.Rerun} {
		if a.Bound != 2 || a.Unschedulable != 1 {
			t.Errorf("the %s arm bound %d and found %d unschedulable, want 2 and 1", a.Name, a.Bound, a.Unschedulable)
		}
		want := "done when the scheduler had nothing left to try: 0 active, 0 in backoff, 0 binding, 1 parked unschedulable, "
		if !strings.HasPrefix(a.Settled, want) {
			t.Errorf("the %s arm ended %q, want %q...", a.Name, a.Settled, want)
		}
		t.Logf("%s: %s", a.Name, a.Settled)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), fmt.Sprintf("current: 2 bound, 1 unschedulable, 0 undecided; %s", r.Current.Fence)) ||
		!strings.Contains(text.String(), r.Current.Settled) {
		t.Errorf("the report's arm lines do not say how the arm ended:\n%s", text.String())
	}
}

// sameConfigTrial runs a trial of snap in the trial command's runtime with
// the real kube-scheduler, LeastAllocated for scheduler in both arms; set
// changes the trial's options before it runs.
func sameConfigTrial(t *testing.T, snap *trial.Snapshot, scheduler string, set ...func(*trial.Options)) *trial.Report {
	t.Helper()
	bin := framework.Binary(t, "kube-scheduler")
	config := framework.ScoringConfig(scheduler, "LeastAllocated")
	o := trial.Options{Snapshot: snap, Runtime: local.New(filepath.Dir(bin), t.TempDir()), Timeout: time.Minute,
		Current: trial.Arm{Name: "current", Binary: bin, Config: config}, Candidate: trial.Arm{Name: "candidate", Binary: bin, Config: config}}
	for _, s := range set {
		s(&o)
	}
	r, err := trial.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cpuNode is a node of 4 CPUs and 8 GiB.
func cpuNode(name string) corev1.Node {
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity}}
}

// cpuPod is a pending pod for scheduler that requests cpu.
func cpuPod(namespace, name, scheduler, cpu string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PodSpec{SchedulerName: scheduler, Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}
}

// TestTrialSchedulerMetricsAnswerOnlyTheSandboxAdmin: the port a trial
// command's scheduler serves its metrics on answers the sandbox's admin, and
// refuses a client without a certificate and one whose certificate another
// CA signed (a user of the live cluster, say).
func TestTrialSchedulerMetricsAnswerOnlyTheSandboxAdmin(t *testing.T) {
	bin := framework.Binary(t, "kube-scheduler")
	ctx := context.Background()
	arm := trial.Arm{Name: "current", Binary: bin, Config: framework.ScoringConfig("trial-metrics", "LeastAllocated")}
	sb, err := local.New(filepath.Dir(bin), t.TempDir()).Start(ctx, arm)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sb.Stop(ctx) }()
	served := sb.(interface {
		trial.SchedulerMetrics
		MetricsHost() string
	})
	var page []byte
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		page, err = served.SchedulerMetrics(ctx)
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("the sandbox's admin could not read the scheduler's metrics: %v", err)
	}
	if _, err := trial.ParseQueue(page); err != nil {
		t.Fatalf("the admin's read is no scheduler's metrics: %v", err)
	}
	other := framework.Shared(t).Config // a client certificate of the live cluster's CA, not the sandbox's
	for name, cfg := range map[string]*rest.Config{
		"no client certificate":       {Host: served.MetricsHost(), TLSClientConfig: rest.TLSClientConfig{Insecure: true}},
		"a certificate of another CA": {Host: served.MetricsHost(), TLSClientConfig: rest.TLSClientConfig{Insecure: true, CertData: other.CertData, KeyData: other.KeyData}},
	} {
		if _, err := trial.ReadSchedulerMetrics(ctx, cfg); err == nil || !strings.Contains(err.Error(), "answered 40") {
			t.Errorf("%s: read the scheduler's metrics (%v), want them refused", name, err)
		}
	}
}
