package trial

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func TestSandboxConfig(t *testing.T) {
	in := []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /etc/kubernetes/scheduler.conf
  qps: 50
leaderElection:
  leaderElect: true
  resourceName: secondary-scheduler
profiles:
- schedulerName: a
  plugins:
    score:
      enabled:
      - {name: NodeResourcesFit, weight: 5}
- schedulerName: b
`)
	out, err := SandboxSchedulerConfig(in, "/tmp/sandbox.kubeconfig")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]interface{}
	if err := yaml.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	conn := got["clientConnection"].(map[string]interface{})
	if conn["kubeconfig"] != "/tmp/sandbox.kubeconfig" || conn["qps"] != float64(50) {
		t.Errorf("clientConnection = %v, want the sandbox's kubeconfig and the rest kept", conn)
	}
	if le := got["leaderElection"].(map[string]interface{}); len(le) != 1 || le["leaderElect"] != false {
		t.Errorf("leaderElection = %v, want only leaderElect: false", le)
	}
	if !strings.Contains(string(out), "weight: 5") {
		t.Errorf("the profiles were not kept as they were:\n%s", out)
	}
	names, err := SchedulerNames(in)
	if err != nil || strings.Join(names, ",") != "a,b" {
		t.Errorf("SchedulerNames = %v, %v; want a,b", names, err)
	}
	if names, _ := SchedulerNames([]byte("kind: KubeSchedulerConfiguration\n")); strings.Join(names, ",") != "default-scheduler" {
		t.Errorf("SchedulerNames of no profiles = %v, want default-scheduler", names)
	}
	if _, err := SandboxSchedulerConfig([]byte(""), "k"); err == nil {
		t.Error("an empty configuration was accepted")
	}
}

// A released pod still says SchedulingGated until the scheduler's first look:
// that is no decision.
func TestOutcomeOf(t *testing.T) {
	pod := func(name, node, reason, msg string) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: corev1.PodSpec{NodeName: node}}
		if reason != "" {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: reason, Message: msg}}
		}
		return p
	}
	out, decided := outcomeOf([]corev1.Pod{
		pod("bound", "n1", "", ""),
		pod("gated", "", corev1.PodReasonSchedulingGated, "Scheduling is blocked due to non-empty scheduling gates"),
		pod("unschedulable", "", corev1.PodReasonUnschedulable, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."),
		pod("unseen", "", "", ""),
	})
	if decided != 2 {
		t.Errorf("%d decided, want 2 (bound and unschedulable): %+v", decided, out)
	}
	if p := out["ns/gated"]; p.Node != "" || p.Reason != "" {
		t.Errorf("a gated pod's placement is %+v, want none", p)
	}
	if p := out["ns/unschedulable"]; p.Plugins != "NodeAffinity" || !strings.Contains(p.Reason, "0/3 nodes") {
		t.Errorf("the unschedulable pod's placement is %+v, want the scheduler's message and NodeAffinity", p)
	}
	if p := out["ns/bound"]; p.Node != "n1" {
		t.Errorf("the bound pod's placement is %+v", p)
	}
}
