package trial

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Arm is one scheduler of a trial.
type Arm struct {
	// Name says which ("current", "candidate"); it names the arm's files.
	Name string `json:"name"`
	// Binary is the scheduler executable (kube-scheduler, or a build with
	// out-of-tree plugins such as scheduler-plugins'), for LocalRuntime.
	Binary string `json:"binary,omitempty"`
	// Image and Command are the scheduler's container image and command, for
	// PodRuntime (the operand's, as the SecondaryScheduler renders it).
	Image   string   `json:"image,omitempty"`
	Command []string `json:"command,omitempty"`
	// Config is its KubeSchedulerConfiguration (YAML). Its client connection
	// and leader election are replaced: the sandbox, no election.
	Config []byte `json:"-"`
}

// SchedulerNames are the profiles' scheduler names of a KubeSchedulerConfiguration.
func SchedulerNames(config []byte) ([]string, error) {
	var c struct {
		Profiles []struct {
			SchedulerName string `json:"schedulerName"`
		} `json:"profiles"`
	}
	if err := yaml.Unmarshal(config, &c); err != nil {
		return nil, fmt.Errorf("the scheduler configuration: %w", err)
	}
	var names []string
	for _, p := range c.Profiles {
		names = append(names, p.SchedulerName)
	}
	if len(names) == 0 {
		names = []string{corev1.DefaultSchedulerName}
	}
	return names, nil
}

// sandboxConfig is config pointed at kubeconfig, without leader election.
func sandboxConfig(config []byte, kubeconfig string) ([]byte, error) {
	var obj map[string]interface{}
	useNumber := func(d *json.Decoder) *json.Decoder { d.UseNumber(); return d }
	if err := yaml.Unmarshal(config, &obj, useNumber); err != nil {
		return nil, fmt.Errorf("the scheduler configuration: %w", err)
	}
	if obj == nil {
		return nil, errors.New("the scheduler configuration is empty")
	}
	conn, _ := obj["clientConnection"].(map[string]interface{})
	if conn == nil {
		conn = map[string]interface{}{}
	}
	conn["kubeconfig"] = kubeconfig
	obj["clientConnection"] = conn
	obj["leaderElection"] = map[string]interface{}{"leaderElect": false}
	return yaml.Marshal(obj)
}

// pollInterval is how often an arm looks at the replayed pods.
const pollInterval = 250 * time.Millisecond

// armRun is an arm's result in its sandbox.
type armRun struct {
	outcome Outcome
	// undecided counts the pods neither bound nor reported unschedulable
	// within the timeout.
	undecided int
}

// schedule watches sb's scheduler place the replayed pods (released by s)
// until every one is bound or reported unschedulable and nothing changed for
// one more look, or until timeout. Undecided pods are unschedulable for the
// comparison, with a reason that says so.
func schedule(ctx context.Context, sb Sandbox, s *seeder, arm Arm, want int, timeout time.Duration) (*armRun, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var last Outcome
	for {
		pods, err := s.replayedPods(ctx)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("%s: reading the replayed pods: %w", arm.Name, err), sb.Failed(ctx))
		}
		outcome, decided := outcomeOf(pods)
		if decided == want && len(pods) == want && equalOutcomes(outcome, last) {
			return &armRun{outcome: outcome}, nil
		}
		last = outcome
		if err := sb.Failed(ctx); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			for key, p := range outcome {
				if p.Node == "" && p.Reason == "" {
					p.Reason = fmt.Sprintf("no decision within %s", timeout)
					outcome[key] = p
				}
			}
			return &armRun{outcome: outcome, undecided: len(pods) - decided}, nil
		case <-tick.C:
		}
	}
}

// startScheduler starts arm's scheduler against sb, logging to logPath. The
// channel receives its exit; stop kills it and waits.
func startScheduler(sb *localSandbox, arm Arm, dir, logPath string) (chan error, func(), error) {
	config, err := sandboxConfig(arm.Config, sb.kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", arm.Name, err)
	}
	configPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configPath, config, 0o600); err != nil {
		return nil, nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(arm.Binary, "--config="+configPath, "--secure-port=0",
		"--authentication-kubeconfig="+sb.kubeconfig, "--authorization-kubeconfig="+sb.kubeconfig)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("%s: starting %s: %w", arm.Name, arm.Binary, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		err := <-exited
		exited <- err
	}
	return exited, stop, nil
}

// outcomeOf reads placements from pods: bound, or unschedulable by their
// PodScheduled condition (the scheduler's message, as in its FailedScheduling
// event). It returns how many are decided.
func outcomeOf(pods []corev1.Pod) (Outcome, int) {
	out := Outcome{}
	decided := 0
	for _, p := range pods {
		key := p.Namespace + "/" + p.Name
		if p.Spec.NodeName != "" {
			out[key] = Placement{Node: p.Spec.NodeName}
			decided++
			continue
		}
		pl := Placement{}
		for _, c := range p.Status.Conditions {
			// SchedulingGated is the API server's, until the scheduler's first look.
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason != "" && c.Reason != corev1.PodReasonSchedulingGated {
				pl = Placement{Reason: c.Message, Plugins: PluginsOf(c.Message)}
				if pl.Reason == "" {
					pl.Reason = c.Reason
				}
				decided++
			}
		}
		out[key] = pl
	}
	return out, decided
}

func equalOutcomes(a, b Outcome) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
