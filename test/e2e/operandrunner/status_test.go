package operandrunner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func lines(from, to, width int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		l := fmt.Sprintf("line %d ", i)
		b.WriteString(l + strings.Repeat("x", max(0, width-len(l)-1)) + "\n")
	}
	return b.String()
}

func TestTerminationMessage(t *testing.T) {
	last80 := lines(120, 200, 100)
	for _, tc := range []struct {
		name, log, want string
	}{
		{"empty", "", ""},
		{"a few lines", "a\nb\n", "a\nb\n"},
		{"the last 80 lines", lines(0, 100, 10), lines(20, 100, 10)},
		{"the last 80 lines, no final newline", strings.TrimSuffix(lines(0, 100, 10), "\n"), strings.TrimSuffix(lines(20, 100, 10), "\n")},
		{"exactly 80 lines", lines(0, 80, 10), lines(0, 80, 10)},
		{"at most 2048 bytes of them", lines(0, 200, 100), last80[len(last80)-maxTerminationBytes:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := terminationMessage([]byte(tc.log)); got != tc.want {
				t.Errorf("terminationMessage() =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestReadTerminationMessageOnlyReadsThisRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), LogFile)
	before := lines(0, 50, 10) + "=== operandrunner: starting\n"
	if err := os.WriteFile(path, []byte(before+"E0101 failed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := readTerminationMessage(path, int64(len(before))), "E0101 failed\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := readTerminationMessage(path, int64(len(before)+len("E0101 failed\n"))); got != "" {
		t.Errorf("a run that wrote nothing: got %q, want \"\"", got)
	}
	big := lines(0, 30, 200)
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := readTerminationMessage(path, 0), terminationMessage([]byte(big)); got != want || len(got) != maxTerminationBytes {
		t.Errorf("got %d bytes %q, want %q", len(got), got, want)
	}
}

func TestExitCode(t *testing.T) {
	for script, want := range map[string]int32{"exit 3": 3, "kill -KILL $$": 137, "true": 0} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "sh", "-c", script)
		_ = cmd.Run()
		cancel()
		if got := exitCode(cmd.ProcessState); got != want {
			t.Errorf("%q: exit code %d, want %d", script, got, want)
		}
	}
}

// kwokPod is an operand pod as kwok's pod-ready stage leaves it: Running, Ready,
// every container running and ready.
func kwokPod(at time.Time) *corev1.Pod {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: apiTime(at)}}
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: apiTime(at)}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "secondary-scheduler-abc", Namespace: "openshift-secondary-scheduler"},
		Spec: corev1.PodSpec{NodeName: "kwok-node-0", Containers: []corev1.Container{
			{Name: "secondary-scheduler", Image: "scheduler:1"}, {Name: "kwok-sidecar", Image: "side:1"}, {Name: "new-sidecar", Image: "side:2"},
		}},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			StartTime:  ptrTime(at),
			Conditions: []corev1.PodCondition{cond(corev1.PodInitialized), cond(corev1.PodReady), cond(corev1.ContainersReady)},
			ContainerStatuses: []corev1.ContainerStatus{
				{Name: "secondary-scheduler", Image: "scheduler:1", Ready: true, State: running},
				{Name: "kwok-sidecar", Image: "side:1", Ready: true, State: running},
			},
		},
	}
}

func ptrTime(t time.Time) *metav1.Time { mt := apiTime(t); return &mt }

func TestContainerLifecycle(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	c := newContainerRun(kwokPod(t0), "secondary-scheduler")

	cs := c.status(t0)
	if cs.Ready || cs.State.Waiting == nil || cs.State.Waiting.Reason != "ContainerCreating" || cs.Image != "scheduler:1" {
		t.Errorf("before the process starts: %+v, want waiting ContainerCreating, not ready", cs)
	}

	start := t0.Add(time.Second)
	c.started(start, schedulerStartedAt(start).ready)
	if cs := c.status(start.Add(readyAfter - time.Millisecond)); cs.Ready || cs.State.Running == nil {
		t.Errorf("within the grace: %+v, want running, not ready", cs)
	}
	if cs := c.status(start.Add(readyAfter)); !cs.Ready || cs.State.Running == nil || !*cs.Started {
		t.Errorf("after the grace: %+v, want running and ready", cs)
	}

	end := start.Add(5 * time.Second)
	c.exited(1, "E0101 no such plugin\n", end, 4*time.Second, "secondary-scheduler-abc")
	cs = c.status(end)
	want := corev1.ContainerStatus{
		Name: "secondary-scheduler", Image: "scheduler:1", RestartCount: 1, Started: new(bool),
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
			Message: "back-off 4s restarting failed container=secondary-scheduler pod=secondary-scheduler-abc"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", Message: "E0101 no such plugin\n", StartedAt: apiTime(start), FinishedAt: apiTime(end)}},
	}
	if !apiequality.Semantic.DeepEqual(cs, want) {
		t.Errorf("after an exit:\n%+v\nwant\n%+v", cs, want)
	}

	c.started(end.Add(4*time.Second), schedulerStartedAt(end.Add(4*time.Second)).ready)
	if cs := c.status(end.Add(4 * time.Second)); cs.RestartCount != 1 || cs.LastTerminationState.Terminated == nil || cs.State.Running == nil {
		t.Errorf("restarted: %+v, want running with restartCount 1 and the last termination", cs)
	}
	c.exited(0, "ignored", end.Add(10*time.Second), 8*time.Second, "secondary-scheduler-abc")
	if term := c.status(end).LastTerminationState.Terminated; term.Reason != "Completed" || term.Message != "" || c.Restarts != 2 {
		t.Errorf("exit 0: %+v (restarts %d), want Completed with no message, restartCount 2", term, c.Restarts)
	}

	again := newContainerRun(&corev1.Pod{Spec: kwokPod(t0).Spec, Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{
		{Name: "secondary-scheduler", RestartCount: 2, LastTerminationState: want.LastTerminationState}}}}, "secondary-scheduler")
	if again.Restarts != 2 || again.LastTerminated == nil || again.LastTerminated.ExitCode != 1 {
		t.Errorf("a pod another runner played: %+v, want its restart count and last state adopted", again)
	}
}

func TestPodStatusOverridesKwok(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0.Add(time.Second)
	pod := kwokPod(t0)
	c := newContainerRun(pod, "secondary-scheduler")

	st := podStatus(pod, c.status(now), nil, now)
	if st.Phase != corev1.PodRunning {
		t.Errorf("phase %s, want Running (kwok's pod-ready matches Pending only)", st.Phase)
	}
	for _, ct := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
		cond := findCondition(st.Conditions, ct)
		if cond == nil || cond.Status != corev1.ConditionFalse || !cond.LastTransitionTime.Equal(ptrTime(now)) ||
			cond.Message != "containers with unready status: [secondary-scheduler]" {
			t.Errorf("condition %s = %+v, want False since %s for the scheduler container", ct, cond, now)
		}
	}
	if len(st.ContainerStatuses) != 3 || !st.ContainerStatuses[1].Ready || !st.ContainerStatuses[2].Ready ||
		st.ContainerStatuses[2].State.Running == nil {
		t.Errorf("sidecars: %+v, want kwok's status kept and the missing one running and ready", st.ContainerStatuses)
	}

	// Written, read back: equal, so nothing is written again.
	pod.Status = roundTrip(t, st)
	if again := podStatus(pod, c.status(now.Add(time.Second)), nil, now.Add(time.Second)); !apiequality.Semantic.DeepEqual(again, pod.Status) {
		t.Errorf("the status read back differs from the one wanted:\n%+v\n%+v", again, pod.Status)
	}

	c.started(now, schedulerStartedAt(now).ready)
	later := now.Add(readyAfter)
	st = podStatus(pod, c.status(later), nil, later)
	if cond := findCondition(st.Conditions, corev1.PodReady); cond.Status != corev1.ConditionTrue || !cond.LastTransitionTime.Equal(ptrTime(later)) || cond.Reason != "" {
		t.Errorf("Ready = %+v, want True since %s", cond, later)
	}

	pending := &corev1.Pod{Spec: pod.Spec, Status: corev1.PodStatus{Phase: corev1.PodPending}}
	if st := podStatus(pending, c.status(later), nil, later); st.Phase != corev1.PodRunning || st.StartTime == nil {
		t.Errorf("a pod kwok has not seen: %+v, want Running with a start time", st)
	}
}

func roundTrip(t *testing.T, st corev1.PodStatus) corev1.PodStatus {
	t.Helper()
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var out corev1.PodStatus
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// schedulerStartedAt is a kube-scheduler run started at start, for its readiness.
func schedulerStartedAt(start time.Time) *Scheduler {
	return &Scheduler{Process: &Process{StartedAt: start}}
}
