package trial

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Arm is one scheduler of a trial, as its pods would run it.
type Arm struct {
	// Name says which ("current", "candidate"); it names the arm's files and objects.
	Name string `json:"name"`
	// Binary is the scheduler executable (kube-scheduler, or a build with
	// out-of-tree plugins such as scheduler-plugins'), for a runtime that runs
	// processes.
	Binary string `json:"binary,omitempty"`
	// Image and Command are the scheduler's container image and command, for
	// a runtime that runs containers (the operand's, as the SecondaryScheduler
	// renders it).
	Image   string   `json:"image,omitempty"`
	Command []string `json:"command,omitempty"`
	// Args are the scheduler's arguments without the flags a runtime sets
	// itself (configuration, identity, serving): feature gates and the like.
	Args []string `json:"args,omitempty"`
	// Config is its KubeSchedulerConfiguration (YAML). Its client connection
	// and leader election are replaced: the sandbox, no election.
	Config []byte `json:"-"`
	// Holds is what the arm's sandbox is seeded with (Run sets it): a
	// runtime that reserves memory for a sandbox sizes it from this.
	Holds SandboxLoad `json:"-"`
}

// SandboxLoad is what one sandbox holds, and the room the snapshot's cluster
// has for it.
type SandboxLoad struct {
	Nodes int
	// Pods are the bound pods and the replay set.
	Pods int
	// LargestNodeMemory is the most allocatable memory of a snapshot node,
	// in bytes (0: no node says): a sandbox run on that cluster as a Pod
	// must fit in it.
	LargestNodeMemory int64
	// GangVersion is the version of scheduling.k8s.io the snapshot's
	// Workloads and PodGroups are at (Snapshot.GangVersion), when it holds
	// some or pods in one (spec.schedulingGroup): the sandbox's
	// kube-apiserver must serve that version (APIServerFlags).
	GangVersion string
}

// LoadOf is what a sandbox seeded with s holds.
func LoadOf(s *Snapshot) SandboxLoad {
	load := SandboxLoad{Nodes: len(s.Nodes), Pods: s.Pods.Len() + len(s.Replay)}
	if len(s.Workloads) > 0 || len(s.PodGroups) > 0 ||
		slices.ContainsFunc(s.Replay, func(p corev1.Pod) bool { return p.Spec.SchedulingGroup != nil }) || s.Pods.anyInSchedulingGroup() {
		load.GangVersion = s.GangVersion
	}
	for _, n := range s.Nodes {
		if m, ok := n.Status.Allocatable[corev1.ResourceMemory]; ok {
			load.LargestNodeMemory = max(load.LargestNodeMemory, m.Value())
		}
	}
	return load
}

// Flag is a command-line flag of a sandbox process: --Name=Value.
type Flag struct{ Name, Value string }

func (f Flag) String() string { return "--" + f.Name + "=" + f.Value }

// gangGate makes kube-apiserver serve Kubernetes' own gangs and keep pods'
// spec.schedulingGroup, which it drops without the gate.
const gangGate = "GenericWorkload=true"

// APIServerFlags are the flags a sandbox holding l needs of its
// kube-apiserver beyond a runtime's own, nil for most snapshots: with gangs,
// the version of scheduling.k8s.io they are at (not served by default: no
// version of them is GA) and gangGate. A kube-apiserver that does not know
// the version or the gate refuses to start, naming it, so they are passed
// only when needed.
func (l SandboxLoad) APIServerFlags() []Flag {
	if l.GangVersion == "" {
		return nil
	}
	return []Flag{{"runtime-config", GangGroup + "/" + l.GangVersion + "=true"}, {"feature-gates", gangGate}}
}

// RerunArm names the current configuration's second run. Every trial runs
// the current arm twice, each run on a sandbox of its own: kube-scheduler
// picks among equal scores at random, and a unit the two runs place
// differently moved by chance, not by the change.
const RerunArm = "rerun"

// Rerun is the current arm as its second run.
func (a Arm) Rerun() Arm {
	a.Name = RerunArm
	return a
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

// SandboxSchedulerConfig is config pointed at kubeconfig, without leader election.
func SandboxSchedulerConfig(config []byte, kubeconfig string) ([]byte, error) {
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

// schedule watches sb's scheduler place the replayed pods (read through s)
// until it has settled (settler), or until timeout. Undecided pods are
// marked so, with a reason that says which arm left them. how says how the
// arm ended.
func schedule(ctx context.Context, sb Sandbox, s *seeder, arm Arm, want int, timeout time.Duration) (_ Outcome, how string, _ error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	settled := newSettler(sb, retryWindowOf(arm.Config))
	for {
		pods, err := s.replayedPods(ctx)
		if err != nil {
			return nil, "", errors.Join(fmt.Errorf("%s: reading the replayed pods: %w", arm.Name, err), sb.Failed(ctx))
		}
		outcome, decided := outcomeOf(pods)
		if settled.done(ctx, outcome, decided == want && len(pods) == want) {
			return outcome, settled.How, nil
		}
		if err := sb.Failed(ctx); err != nil {
			return nil, "", err
		}
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-deadline.C:
			for key, p := range outcome {
				if p.Node == "" && p.Reason == "" {
					p.Reason, p.Undecided = fmt.Sprintf("%s: no decision within %s", arm.Name, timeout), true
					outcome[key] = p
				}
			}
			return outcome, settled.unsettled(timeout), nil
		case <-tick.C:
		}
	}
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
