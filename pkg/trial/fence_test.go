package trial

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The probe counts as decided once the scheduler bound it, or found it
// unschedulable knowing every node; a message counting fewer nodes means
// some are still on their way to the scheduler's cache.
func TestFenceDecided(t *testing.T) {
	unschedulable := func(msg string) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
			Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: msg}}}}
	}
	gated := &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
		Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}}}
	for name, tc := range map[string]struct {
		pod  *corev1.Pod
		want bool
	}{
		"bound":                      {&corev1.Pod{Spec: corev1.PodSpec{NodeName: "n3"}}, true},
		"not looked at yet":          {&corev1.Pod{}, false},
		"gated":                      {gated, false},
		"unschedulable on all nodes": {unschedulable("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."), true},
		"unschedulable on fewer":     {unschedulable("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."), false},
		"no node known yet":          {unschedulable("no nodes available to schedule pods"), false},
		"another wording":            {unschedulable("pod group not found"), true},
	} {
		if got := fenceDecided(tc.pod, 3); got != tc.want {
			t.Errorf("%s: fenceDecided = %v, want %v", name, got, tc.want)
		}
	}
}

// The probe fits the named node alone and no replayed-pod selector takes it.
func TestFenceProbe(t *testing.T) {
	p := fenceProbe("ns", "secondary-scheduler", "n3")
	if p.Spec.SchedulerName != "secondary-scheduler" || p.Namespace != "ns" || p.Labels[ReplayLabel] != "" || p.Labels[FenceLabel] != "true" {
		t.Errorf("probe %+v", p.ObjectMeta)
	}
	terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) != 1 || len(terms[0].MatchFields) != 1 || terms[0].MatchFields[0].Values[0] != "n3" {
		t.Errorf("probe affinity %+v, want metadata.name in [n3]", terms)
	}
	if len(p.Spec.Containers[0].Resources.Requests) != 0 {
		t.Errorf("probe requests %v, want none", p.Spec.Containers[0].Resources.Requests)
	}
}
