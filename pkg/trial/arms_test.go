package trial

import (
	"strings"
	"testing"

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
	out, err := sandboxConfig(in, "/tmp/sandbox.kubeconfig")
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
	if _, err := sandboxConfig([]byte(""), "k"); err == nil {
		t.Error("an empty configuration was accepted")
	}
}
