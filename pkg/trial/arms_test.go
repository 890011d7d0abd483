package trial

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// LoadOf counts bound and replayed pods and finds the node with the most
// allocatable memory; a node that says none counts for nothing.
func TestLoadOf(t *testing.T) {
	node := func(name, memory string) corev1.Node {
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if memory != "" {
			n.Status.Allocatable = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(memory)}
		}
		return n
	}
	s := &Snapshot{Nodes: []corev1.Node{node("a", "8Gi"), node("b", "64Gi"), node("c", "")},
		Replay: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}}}}
	for i := range 3 {
		if _, err := s.Pods.Add(corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("b%d", i), Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "a"}}); err != nil {
			t.Fatal(err)
		}
	}
	want := SandboxLoad{Nodes: 3, Pods: 4, LargestNodeMemory: 64 << 30}
	if got := LoadOf(s); got != want {
		t.Errorf("LoadOf = %+v, want %+v", got, want)
	}
}

// A sandbox serves Workloads and PodGroups (scheduling.k8s.io) only when the
// snapshot holds them or pods in one, bound or replayed: its kube-apiserver
// gets the flags that serve them then, and none else.
func TestLoadOfWorkloadAPI(t *testing.T) {
	inGroup := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "w-0", Namespace: "ns"},
		Spec: corev1.PodSpec{NodeName: "a", SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: ptrTo("train")}}}
	bound := func(pods ...corev1.Pod) *Snapshot {
		s := &Snapshot{GangVersion: "v1beta1"}
		for _, p := range pods {
			if _, err := s.Pods.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	plain := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "a"}}
	for _, c := range []struct {
		name string
		snap *Snapshot
		want bool
	}{
		{"plain pods of a cluster that serves gangs", &Snapshot{Replay: []corev1.Pod{plain}, GangVersion: "v1beta1"}, false},
		{"a Workload", &Snapshot{Workloads: []unstructured.Unstructured{gangObject("Workload", "ns", "w")}, GangVersion: "v1beta1"}, true},
		{"a PodGroup", &Snapshot{PodGroups: []unstructured.Unstructured{gangObject("PodGroup", "ns", "train")}, GangVersion: "v1beta1"}, true},
		{"a bound pod in a group", bound(plain, inGroup), true},
		{"a replayed pod in a group", &Snapshot{Replay: []corev1.Pod{plain, inGroup}, GangVersion: "v1beta1"}, true},
	} {
		load := LoadOf(c.snap)
		if (load.GangVersion == "v1beta1") != c.want {
			t.Errorf("%s: GangVersion = %q, want it only with gangs", c.name, load.GangVersion)
		}
		var flags []string
		for _, f := range load.APIServerFlags() {
			flags = append(flags, f.String())
		}
		want := []string(nil)
		if c.want {
			want = []string{"--runtime-config=scheduling.k8s.io/v1beta1=true", "--feature-gates=GenericWorkload=true"}
		}
		if !slices.Equal(flags, want) {
			t.Errorf("%s: kube-apiserver flags %q, want %q", c.name, flags, want)
		}
	}
}
