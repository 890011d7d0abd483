package simulatorcontroller

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

func testPod(mutate func(*corev1.Pod)) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "sim-0123456789", Namespace: "team-a"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "simulator", Image: simv1alpha1.DefaultImage}, {Name: "etcd", Image: simulatorrender.DefaultEtcdImage}}},
	}
	if mutate != nil {
		mutate(pod)
	}
	return pod
}

func waiting(name, reason, message string) corev1.ContainerStatus {
	return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
}

func TestObservePod(t *testing.T) {
	tests := []struct {
		name     string
		pod      *corev1.Pod
		phase    simv1alpha1.SimulatorPhase
		reason   string
		degraded bool
		message  []string
	}{
		{name: "no pod", pod: nil, phase: simv1alpha1.SimulatorPending, reason: ReasonPodNotCreated, message: []string{"not been created"}},
		{name: "just created", pod: testPod(nil), phase: simv1alpha1.SimulatorCreating, reason: ReasonPodNotReady, message: []string{MessageWaitingForPod}},
		{name: "running, not ready", pod: testPod(func(p *corev1.Pod) {
			p.Spec.NodeName = "worker-0"
			p.Status.Phase = corev1.PodRunning
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady"}}
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonPodNotReady, message: []string{MessageWaitingForPod}},
		{name: "ready", pod: testPod(func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}), phase: simv1alpha1.SimulatorAvailable, reason: ReasonPodReady},
		{name: "unschedulable", pod: testPod(func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
				Message: "0/3 nodes are available: 3 Insufficient memory."}}
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonUnschedulable, degraded: true, message: []string{"cannot be scheduled", "3 Insufficient memory"}},
		{name: "image pull backoff", pod: testPod(func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{
				waiting("simulator", "ImagePullBackOff", `Back-off pulling image "registry.k8s.io/scheduler-simulator/simulator-backend:v0.1.1"`),
				waiting("etcd", "ContainerCreating", ""),
			}
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonImagePullFailure, degraded: true,
			message: []string{`container "simulator"`, simv1alpha1.DefaultImage, "ImagePullBackOff", "pull secret"}},
		{name: "err image pull in etcd", pod: testPod(func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("etcd", "ErrImagePull", "manifest unknown")}
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonImagePullFailure, degraded: true,
			message: []string{`container "etcd"`, simulatorrender.DefaultEtcdImage, "manifest unknown"}},
		{name: "crash loop", pod: testPod(func(p *corev1.Pod) {
			s := waiting("simulator", "CrashLoopBackOff", "back-off 40s restarting failed container")
			s.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{s}
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonCrashLoop, degraded: true,
			message: []string{`container "simulator" is crash-looping`, "exit code 1 (Error)", "kubectl logs -n team-a sim-0123456789 -c simulator --previous"}},
		{name: "init container crash loop", pod: testPod(func(p *corev1.Pod) {
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{waiting("fetch-config", "CrashLoopBackOff", "")}
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonCrashLoop, degraded: true, message: []string{`"fetch-config"`}},
		{name: "config error", pod: testPod(func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("simulator", "CreateContainerConfigError", `secret "etcd" not found`)}
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonContainerFailure, degraded: true, message: []string{`secret "etcd" not found`}},
		{name: "evicted", pod: testPod(func(p *corev1.Pod) {
			p.Status.Phase, p.Status.Reason, p.Status.Message = corev1.PodFailed, "Evicted", "The node was low on resource: memory."
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonPodNotReady, message: []string{"Failed", "Evicted", "replacing it"}},
		{name: "terminating", pod: testPod(func(p *corev1.Pod) {
			p.DeletionTimestamp = &metav1.Time{Time: time.Now()}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}), phase: simv1alpha1.SimulatorCreating, reason: ReasonPodNotReady, message: []string{"terminate"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := observePod(tc.pod)
			if obs.phase != tc.phase || obs.reason != tc.reason || obs.degraded != tc.degraded {
				t.Errorf("got %+v, want phase %s reason %s degraded %t", obs, tc.phase, tc.reason, tc.degraded)
			}
			for _, m := range tc.message {
				if !strings.Contains(obs.message, m) {
					t.Errorf("message %q lacks %q", obs.message, m)
				}
			}
		})
	}
}

func TestDesiredStatus(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	sim := newSimulator("sim")
	url := "http://sim.team-a.svc:3131"

	creating := desiredStatus(sim, observePod(testPod(nil)), url, t0)
	if creating.Phase != simv1alpha1.SimulatorCreating || *creating.Message != MessageWaitingForPod || creating.KubeAPIServerURL != url || creating.ObservedGeneration != 1 {
		t.Fatalf("creating: %+v", creating)
	}
	if c := meta.FindStatusCondition(creating.Conditions, ConditionAvailable); c == nil || c.Status != metav1.ConditionFalse || c.ObservedGeneration != 1 {
		t.Errorf("Available: %+v", c)
	}
	if c := meta.FindStatusCondition(creating.Conditions, ConditionDegraded); c == nil || c.Status != metav1.ConditionFalse || c.Reason != ReasonAsExpected {
		t.Errorf("Degraded: %+v", c)
	}

	// The same observation later: nothing to write.
	sim.Status = creating
	if again := desiredStatus(sim, observePod(testPod(nil)), url, t1); statusChanged(&sim.Status, &again) {
		t.Errorf("an unchanged observation must not change the status: %+v", again)
	}

	// Ready: Available=True from t1, Degraded keeps its transition time.
	ready := testPod(func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	})
	available := desiredStatus(sim, observePod(ready), url, t1)
	if available.Phase != simv1alpha1.SimulatorAvailable || !strings.Contains(*available.Message, url) {
		t.Errorf("available: %+v", available)
	}
	if c := meta.FindStatusCondition(available.Conditions, ConditionAvailable); c.Status != metav1.ConditionTrue || !c.LastTransitionTime.Equal(&t1) {
		t.Errorf("Available: %+v", c)
	}
	if c := meta.FindStatusCondition(available.Conditions, ConditionDegraded); !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("Degraded must keep its transition time: %+v", c)
	}

	// An invalid spec: Pending, Degraded, the URL kept.
	sim.Status = available
	invalid := desiredStatus(sim, invalidSpec(errors.New("spec.etcdURL: bad")), "", t1)
	if invalid.Phase != simv1alpha1.SimulatorPending || !strings.Contains(*invalid.Message, "spec.etcdURL") || invalid.KubeAPIServerURL != url {
		t.Errorf("invalid: %+v", invalid)
	}
	if c := meta.FindStatusCondition(invalid.Conditions, ConditionDegraded); c.Status != metav1.ConditionTrue || c.Reason != ReasonInvalidSpec {
		t.Errorf("Degraded: %+v", c)
	}
}
