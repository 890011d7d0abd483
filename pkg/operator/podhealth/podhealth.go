// Package podhealth says why a Pod cannot run, in words a person can act on.
// The operand status controller (the scheduler's Pods) and the Simulator
// controller (each simulator's Pod) report pod problems through it, so that the
// same kubelet state reads the same everywhere.
package podhealth

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Reasons a Pod cannot run, as conditions report them.
const (
	Unschedulable    = "Unschedulable"
	ImagePullFailure = "ImagePullFailure"
	CrashLoop        = "CrashLoopBackOff"
	ContainerFailure = "ContainerFailure"
)

// waitingReasons classifies the kubelet's reasons for a waiting container that
// will not fix itself. Others, such as ContainerCreating or PodInitializing,
// are progress.
var waitingReasons = map[string]string{
	"ErrImagePull":               ImagePullFailure,
	"ImagePullBackOff":           ImagePullFailure,
	"InvalidImageName":           ImagePullFailure,
	"ErrImageNeverPull":          ImagePullFailure,
	"CrashLoopBackOff":           CrashLoop,
	"CreateContainerConfigError": ContainerFailure,
	"CreateContainerError":       ContainerFailure,
	"RunContainerError":          ContainerFailure,
	"PreCreateHookError":         ContainerFailure,
	"PreStartHookError":          ContainerFailure,
}

// Problem is one reason a Pod cannot run.
type Problem struct {
	// Reason is one of the constants of this package.
	Reason string
	// Message says what is wrong and, where it can, what to do; it does not
	// name the Pod.
	Message string
}

// Problems lists why pod cannot run: scheduling first, then its init
// containers and containers in order. It is empty while nothing is known to be
// wrong, including for a Pod being deleted.
func Problems(pod *corev1.Pod) []Problem {
	if pod.DeletionTimestamp != nil {
		return nil
	}
	var out []Problem
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			out = append(out, Problem{Reason: Unschedulable, Message: "cannot be scheduled: " + c.Message})
		}
	}
	statuses := append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	for _, s := range statuses {
		w := s.State.Waiting
		if w == nil {
			continue
		}
		switch class := waitingReasons[w.Reason]; class {
		case ImagePullFailure:
			out = append(out, Problem{Reason: class, Message: fmt.Sprintf("container %q cannot pull image %q (%s)%s: check the image name and the pull secret",
				s.Name, containerImage(pod, s), w.Reason, detail(w.Message))})
		case CrashLoop:
			last := ""
			if t := s.LastTerminationState.Terminated; t != nil {
				last = fmt.Sprintf(", last exit code %d (%s)", t.ExitCode, t.Reason)
			}
			out = append(out, Problem{Reason: class, Message: fmt.Sprintf("container %q is crash-looping%s after %d restarts (%s): see `kubectl logs -n %s %s -c %s --previous`",
				s.Name, last, s.RestartCount, w.Reason, pod.Namespace, pod.Name, s.Name)})
		case ContainerFailure:
			out = append(out, Problem{Reason: class, Message: fmt.Sprintf("container %q cannot start (%s)%s", s.Name, w.Reason, detail(w.Message))})
		}
	}
	return out
}

func detail(msg string) string {
	if msg = strings.TrimSpace(msg); msg == "" {
		return ""
	}
	return ": " + msg
}

// containerImage is the image the spec asks for, which names a tag where the
// status may already show a digest.
func containerImage(pod *corev1.Pod, s corev1.ContainerStatus) string {
	for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for _, c := range list {
			if c.Name == s.Name {
				return c.Image
			}
		}
	}
	return s.Image
}
