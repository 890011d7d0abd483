package rollout

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// A Deployment gone while the gate holds a change comes back as it last ran,
// still held; never as the untried change. Without a configuration that ran,
// it is a first rollout; when what ran cannot be rebuilt, nothing is created.
func TestGateRecreatesWhatLastRan(t *testing.T) {
	lkg := &secondaryschedulerv1.Rollout{ConfigHash: "cfg-t1", TemplateHash: "t1"}
	rebuilt := &render.Pinned{Deployment: withImage(deployment("t1", appsv1.DeploymentStatus{}), "img:1"), ConfigHash: "cfg-t1", TemplateHash: "t1"}
	configChange := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: withImage(&appsv1.Deployment{}, "img:1"), Rollback: rebuilt}
	current := TrialArm(rebuilt.Deployment, "cfg-t1")
	key := NewTrialRequest(current, TrialArm(configChange.Deployment, "cfg-t2"), nil).Key
	blocked := &secondaryschedulerv1.TrialResult{Key: key, ConfigHash: "cfg-t2", Image: "img:1", Verdict: secondaryschedulerv1.TrialBlocked,
		Message: "blocked: 1 newly unschedulable", Counts: &secondaryschedulerv1.TrialCounts{Units: 1, NewlyUnschedulable: 1}, Gate: &secondaryschedulerv1.TrialGate{}}
	allowed := blocked.DeepCopy()
	allowed.Verdict = secondaryschedulerv1.TrialAllowed
	otherTemplate := &render.Pinned{Deployment: withImage(&appsv1.Deployment{}, "img:2"), ConfigHash: "cfg-t1", TemplateHash: "t9"}
	for _, tc := range []struct {
		name        string
		desired     *render.Objects
		lkg         *secondaryschedulerv1.Rollout
		last        *secondaryschedulerv1.TrialResult
		wantAction  Action
		wantApplied *appsv1.Deployment
		wantMessage string
	}{
		{"first rollout: nothing ran", configChange, nil, nil, RollOut, configChange.Deployment, ""},
		{"the desired template is what ran", &render.Objects{TemplateHash: "t1", ConfigHash: "cfg-t1", Deployment: rebuilt.Deployment}, lkg, nil,
			RollOut, rebuilt.Deployment, ""},
		{"blocked change: recreated as it ran", configChange, lkg, blocked, Gate, rebuilt.Deployment, "recreated as it last ran"},
		{"no trial yet: recreated as it ran", configChange, lkg, nil, Gate, rebuilt.Deployment, "is starting"},
		{"allowed change: the trial answered it", configChange, lkg, allowed, RollOut, configChange.Deployment, ""},
		{"the configuration that ran is gone", &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: configChange.Deployment}, lkg, blocked,
			Gate, nil, "ConfigMap secondary-scheduler-config-cfg-t1 of the configuration that last ran is gone"},
		{"a change beyond the configuration", &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: configChange.Deployment,
			Rollback: otherTemplate}, lkg, blocked, Gate, nil, "more than the configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(Inputs{Desired: tc.desired, Record: Record{LastKnownGood: tc.lkg}, Trial: Trial{Required: true, Last: tc.last}})
			if d.Action != tc.wantAction || d.Deployment != tc.wantApplied || !strings.Contains(d.Message, tc.wantMessage) {
				t.Fatalf("%s, applies %v, %q; want %s applying %v, with %q", d.Action, d.Deployment, d.Message, tc.wantAction, tc.wantApplied, tc.wantMessage)
			}
			if d.Action == Gate && d.Deployment != nil && (d.ConfigHash != "cfg-t1" || d.TrialRequest == nil || d.TrialRequest.Key != key) {
				t.Errorf("config %s, request %+v; want the configuration that ran, and the same request as before the Deployment went", d.ConfigHash, d.TrialRequest)
			}
			if d.Action == Gate && d.Deployment == nil && !strings.Contains(d.Message, "Nothing is created") {
				t.Errorf("message %q; want it to say nothing is created, and what to do", d.Message)
			}
		})
	}
	// Direct: no gate, the spec rolls out.
	if d := Decide(Inputs{Desired: configChange, Record: Record{LastKnownGood: lkg}}); d.Action != RollOut || d.Deployment != configChange.Deployment {
		t.Errorf("Direct: %s; want the desired Deployment", d.Action)
	}
}
