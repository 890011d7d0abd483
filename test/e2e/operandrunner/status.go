package operandrunner

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// A kubelet's bounds for the log tail it takes as the termination message with
// FallbackToLogsOnError (kubecontainer.MaxContainerTerminationMessageLog*).
const (
	maxTerminationLines = 80
	maxTerminationBytes = 2048
)

// containerRun is what a kubelet's container runtime knows about the scheduler
// container of one pod; its status is built from it.
type containerRun struct {
	Name, Image string
	// StartedAt is when the running process started; zero while none runs.
	StartedAt      time.Time
	Restarts       int32
	LastTerminated *corev1.ContainerStateTerminated
	// Terminated is the final state of a container that is not restarted
	// (restartPolicy Never).
	Terminated *corev1.ContainerStateTerminated
	// Waiting is the state while no process runs.
	Waiting corev1.ContainerStateWaiting
	// ready is the readiness probe of the running process.
	ready func(now time.Time) bool
}

// newContainerRun adopts the restart count and last state the pod reports, as a
// restarted kubelet recovers them from the runtime: a runner started after
// another (the next test) continues where that one left off.
func newContainerRun(pod *corev1.Pod, container string) *containerRun {
	c := &containerRun{Name: container, Waiting: corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	for _, sc := range pod.Spec.Containers {
		if sc.Name == c.Name {
			c.Image = sc.Image
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == c.Name {
			c.Restarts = cs.RestartCount
			c.LastTerminated = cs.LastTerminationState.Terminated.DeepCopy()
		}
	}
	return c
}

func (c *containerRun) started(at time.Time, ready func(now time.Time) bool) {
	c.StartedAt, c.ready = at, ready
	c.Waiting = corev1.ContainerStateWaiting{}
}

// exited records the end of the running process; the container waits out
// backoff before the next start.
func (c *containerRun) exited(code int32, message string, finishedAt time.Time, backoff time.Duration, pod string) {
	c.LastTerminated = terminated(code, message, c.StartedAt, finishedAt)
	c.StartedAt, c.ready = time.Time{}, nil
	c.Restarts++
	c.Waiting = corev1.ContainerStateWaiting{
		Reason:  "CrashLoopBackOff",
		Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s", backoff, c.Name, pod),
	}
}

// finished records the end of the running process of a container that is not
// restarted: it stays terminated.
func (c *containerRun) finished(code int32, message string, finishedAt time.Time) {
	c.Terminated = terminated(code, message, c.StartedAt, finishedAt)
	c.StartedAt, c.ready = time.Time{}, nil
}

// terminated is the state of a process that exited with code.
func terminated(code int32, message string, startedAt, finishedAt time.Time) *corev1.ContainerStateTerminated {
	reason := "Error"
	if code == 0 {
		// FallbackToLogsOnError takes the log only when the container failed.
		reason, message = "Completed", ""
	}
	return &corev1.ContainerStateTerminated{
		ExitCode: code, Reason: reason, Message: message,
		StartedAt: apiTime(startedAt), FinishedAt: apiTime(finishedAt),
	}
}

// restarts says whether a kubelet restarts a container of a pod with policy
// once it has exited with code.
func restarts(policy corev1.RestartPolicy, code int32) bool {
	switch policy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return code != 0
	}
	return true
}

// status is the container's status at now: ready while running and its
// readiness probe says so.
func (c *containerRun) status(now time.Time) corev1.ContainerStatus {
	running := !c.StartedAt.IsZero()
	cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, RestartCount: c.Restarts, Started: ptr.To(running)}
	switch {
	case running:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: apiTime(c.StartedAt)}
		cs.Ready = c.ready(now)
	case c.Terminated != nil:
		cs.State.Terminated = c.Terminated.DeepCopy()
	default:
		w := c.Waiting
		cs.State.Waiting = &w
	}
	if c.LastTerminated != nil {
		cs.LastTerminationState.Terminated = c.LastTerminated.DeepCopy()
	}
	return cs
}

// podStatus is the status a kubelet would report for pod with the scheduler
// container in state scheduler, and the init containers the runner plays
// (native sidecars) in states sidecars. Other containers (the operand's
// sidecars, which do not run) keep what the pod reports, or are reported
// running and ready.
func podStatus(pod *corev1.Pod, scheduler corev1.ContainerStatus, sidecars []corev1.ContainerStatus, now time.Time) corev1.PodStatus {
	st := *pod.Status.DeepCopy()
	st.Phase = podPhase(scheduler, sidecars)
	if st.StartTime == nil {
		st.StartTime = ptr.To(apiTime(now))
	}
	var unready, uninitialized []string
	for _, cs := range sidecars {
		if !cs.Ready {
			unready = append(unready, cs.Name)
		}
		if cs.Started == nil || !*cs.Started {
			uninitialized = append(uninitialized, cs.Name)
		}
	}
	if len(sidecars) > 0 {
		st.InitContainerStatuses = sidecars
	}
	st.ContainerStatuses = nil
	for _, c := range pod.Spec.Containers {
		cs := scheduler
		if c.Name != scheduler.Name {
			cs = otherContainer(pod, c, *st.StartTime)
		}
		if !cs.Ready {
			unready = append(unready, c.Name)
		}
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
	}

	containersReady, reason, message := true, "", ""
	if len(unready) > 0 {
		containersReady, reason = false, "ContainersNotReady"
		message = fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))
	}
	ready, readyReason, readyMessage := containersReady, reason, message
	for _, g := range pod.Spec.ReadinessGates {
		if c := findCondition(st.Conditions, g.ConditionType); ready && (c == nil || c.Status != corev1.ConditionTrue) {
			ready, readyReason = false, "ReadinessGatesNotReady"
			readyMessage = fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist or is not True", g.ConditionType)
		}
	}
	initialized, initReason, initMessage := true, "", ""
	if len(uninitialized) > 0 {
		initialized, initReason = false, "ContainersNotInitialized"
		initMessage = fmt.Sprintf("containers with incomplete status: [%s]", strings.Join(uninitialized, " "))
	}
	st.Conditions = setCondition(st.Conditions, corev1.PodInitialized, initialized, initReason, initMessage, now)
	st.Conditions = setCondition(st.Conditions, corev1.ContainersReady, containersReady, reason, message, now)
	st.Conditions = setCondition(st.Conditions, corev1.PodReady, ready, readyReason, readyMessage, now)
	return st
}

// podPhase is the phase of a pod whose scheduler container is in state
// scheduler. A restarting container keeps the pod Running: kwok's pod-ready,
// which would mark it Ready, never matches a pod that is not Pending. A pod
// with sidecars the runner plays (kwok leaves it alone) is Pending until its
// scheduler container has run, and ends Succeeded or Failed with it when it is
// not restarted.
func podPhase(scheduler corev1.ContainerStatus, sidecars []corev1.ContainerStatus) corev1.PodPhase {
	switch t := scheduler.State.Terminated; {
	case t != nil && t.ExitCode == 0:
		return corev1.PodSucceeded
	case t != nil:
		return corev1.PodFailed
	case len(sidecars) > 0 && scheduler.State.Running == nil && scheduler.LastTerminationState.Terminated == nil:
		return corev1.PodPending
	}
	return corev1.PodRunning
}

// otherContainer is the status of a container the runner does not run: what
// the pod reports, or running and ready since start.
func otherContainer(pod *corev1.Pod, c corev1.Container, start metav1.Time) corev1.ContainerStatus {
	for _, old := range pod.Status.ContainerStatuses {
		if old.Name == c.Name {
			return old
		}
	}
	return corev1.ContainerStatus{Name: c.Name, Image: c.Image, Ready: true, Started: ptr.To(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}}}
}

func findCondition(conds []corev1.PodCondition, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// setCondition sets a condition, moving its lastTransitionTime only when its
// status changes.
func setCondition(conds []corev1.PodCondition, t corev1.PodConditionType, ok bool, reason, message string, now time.Time) []corev1.PodCondition {
	status := corev1.ConditionFalse
	if ok {
		status = corev1.ConditionTrue
	}
	c := findCondition(conds, t)
	if c == nil {
		conds = append(conds, corev1.PodCondition{Type: t})
		c = &conds[len(conds)-1]
	}
	if c.Status != status {
		c.Status, c.LastTransitionTime = status, apiTime(now)
	}
	c.Reason, c.Message = reason, message
	return conds
}

// terminationMessage is the tail of a log as a kubelet takes it: the last
// maxTerminationLines lines, of which the last maxTerminationBytes bytes.
func terminationMessage(log []byte) string {
	end := len(log)
	if end > 0 && log[end-1] == '\n' {
		end-- // the final newline ends the last line, it starts none
	}
	n := 0
	if i := bytes.LastIndexFunc(log[:end], func(r rune) bool {
		if r == '\n' {
			n++
		}
		return n == maxTerminationLines
	}); i >= 0 {
		log = log[i+1:]
	}
	if len(log) > maxTerminationBytes {
		log = log[len(log)-maxTerminationBytes:]
	}
	return string(log)
}

// readTerminationMessage takes the termination message from what was written
// to the log at path from offset on. Reading the last maxTerminationBytes is
// enough: they hold the last lines' tail whatever the lines' lengths.
func readTerminationMessage(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= from {
		return ""
	}
	start := max(from, fi.Size()-maxTerminationBytes)
	data, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return fmt.Sprintf("Error on reading termination message from logs: %v", err)
	}
	return terminationMessage(data)
}

// exitCode is the exit code a container runtime reports: 128+signal for a
// process killed by a signal.
func exitCode(ps *os.ProcessState) int32 {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int32(ws.Signal())
	}
	return int32(ps.ExitCode())
}

// apiTime is t as the API stores it (seconds), so a status read back compares
// equal to the one written.
func apiTime(t time.Time) metav1.Time { return metav1.NewTime(t).Rfc3339Copy() }
