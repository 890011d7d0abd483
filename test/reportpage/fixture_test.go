package reportpage

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// blockedReport is a trial's report as trial.Run builds it, from the
// placements two arms made of one replay set: the candidate packs the web
// pods onto fewer nodes (MostAllocated) and its added node affinity leaves a
// gang and a pod without room, so the gate blocks it. The current
// configuration's second run places two web pods elsewhere: their moves are
// tie-break noise.
func blockedReport() *trial.Report {
	var replay []corev1.Pod
	pod := func(name, gang string) {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}}
		if gang != "" {
			p.Labels = map[string]string{trial.PodGroupLabel: gang}
		}
		replay = append(replay, p)
	}
	current, candidate := trial.Outcome{}, trial.Outcome{}
	place := func(name, gang string, cur, cand trial.Placement) {
		pod(name, gang)
		current["shop/"+name], candidate["shop/"+name] = cur, cand
	}
	on := func(node string) trial.Placement { return trial.Placement{Node: node} }
	refused := func(msg string) trial.Placement { return trial.Placement{Reason: msg, Plugins: trial.PluginsOf(msg)} }
	const affinity = "0/6 nodes are available: 4 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu. " +
		"preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling."
	const gangWait = "rejected due to timeout after waiting 10s at plugin Coscheduling"
	const noRoom = "0/6 nodes are available: 6 Insufficient memory. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod."

	webNodes := []string{"worker-a", "worker-b", "worker-c", "worker-d", "worker-e", "worker-f"}
	for i, n := range webNodes {
		packed := "worker-a"
		if i >= 3 {
			packed = "worker-b"
		}
		place("web-"+string(rune('0'+i)), "", on(n), on(packed))
	}
	place("api-0", "", on("worker-a"), on("worker-a"))
	place("api-1", "", on("worker-b"), on("worker-b"))
	place("cache-0", "", on("worker-c"), on("worker-c"))
	for i, n := range []string{"worker-c", "worker-c", "worker-d", "worker-d"} {
		place("train-"+string(rune('0'+i)), "train", on(n), refused(gangWait))
	}
	place("report-<daily>", "", on("worker-e"), refused(affinity))
	place("batch-7", "", refused(noRoom), on("worker-f"))
	place("huge-0", "", refused(noRoom), refused(noRoom))

	rerun := trial.Outcome{}
	for k, v := range current {
		rerun[k] = v
	}
	rerun["shop/web-4"], rerun["shop/web-5"] = on("worker-c"), on("worker-d")

	gate := trial.Gate{MaxNewlyUnschedulable: 0, MaxMovedPercent: ptr.To(50.0)}
	c := trial.Compare(replay, current, candidate, rerun)
	r := &trial.Report{
		Current:    armReport("current", current),
		Candidate:  armReport("candidate", candidate),
		Rerun:      armReport(trial.RerunArm, rerun),
		Snapshot:   trial.SnapshotCounts{Nodes: 6, Pods: 48, Replay: len(replay)},
		Comparison: c, Gate: gate, Verdict: gate.Check(c),
		Timings: trial.Timings{Snapshot: 115 * time.Millisecond, Start: 5200 * time.Millisecond, Seed: 2300 * time.Millisecond,
			Schedule: time.Second, Compare: time.Millisecond, Total: 9700 * time.Millisecond},
	}
	return r
}

// armReport counts an arm's outcome as trial.Run does.
func armReport(name string, o trial.Outcome) trial.ArmReport {
	a := trial.ArmReport{Arm: trial.Arm{Name: name, Binary: "/usr/local/bin/scheduler-plugins"},
		Start: 5200 * time.Millisecond, Seed: 2300 * time.Millisecond, Schedule: time.Second}
	for _, p := range o {
		switch {
		case p.Node != "":
			a.Bound++
		case p.Undecided:
			a.Undecided++
		default:
			a.Unschedulable++
		}
	}
	return a
}
