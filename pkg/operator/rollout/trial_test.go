package rollout

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

func withImage(d *appsv1.Deployment, image string) *appsv1.Deployment {
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "sidecar", Image: "other"}, {Name: names.OperandName, Image: image}}
	return d
}

// A change of configuration or image rolls out under strategy Trial only
// once a trial of exactly that change allowed it; anything else waits on the
// running Deployment and says why.
func TestGate(t *testing.T) {
	live := withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
	newConfig := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	newImage := &render.Objects{TemplateHash: "t3", ConfigHash: "cfg-t1", Deployment: withImage(&appsv1.Deployment{}, "img:2")}
	sameChange := &render.Objects{TemplateHash: "t4", ConfigHash: "cfg-t1", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	result := func(hash, image string, v secondaryschedulerv1.TrialVerdict) *secondaryschedulerv1.TrialResult {
		return &secondaryschedulerv1.TrialResult{ConfigHash: hash, Image: image, Verdict: v, Message: "6 newly unschedulable (NodeAffinity)"}
	}
	tests := []struct {
		name        string
		desired     *render.Objects
		live        *appsv1.Deployment
		trial       Trial
		wantAction  Action
		wantMessage string
	}{
		{"Direct rolls out", newConfig, live, Trial{}, RollOut, ""},
		{"first rollout: nothing to compare with", newConfig, nil, Trial{Required: true}, RollOut, ""},
		{"neither configuration nor image changed (replicas, resources ...)", sameChange, live, Trial{Required: true}, RollOut, ""},
		{"no trial yet", newConfig, live, Trial{Required: true}, Gate, "is starting"},
		{"a trial of another change does not count", newConfig, live,
			Trial{Required: true, Last: result("cfg-t9", "img:1", secondaryschedulerv1.TrialAllowed)}, Gate, "is starting"},
		{"same configuration, other image", newImage, live,
			Trial{Required: true, Last: result("cfg-t1", "img:1", secondaryschedulerv1.TrialAllowed)}, Gate, "is starting"},
		{"running", newConfig, live, Trial{Required: true, Last: result("cfg-t2", "img:1", secondaryschedulerv1.TrialRunning)}, Gate, "is running"},
		{"allowed", newConfig, live, Trial{Required: true, Last: result("cfg-t2", "img:1", secondaryschedulerv1.TrialAllowed)}, RollOut, ""},
		{"blocked", newConfig, live, Trial{Required: true, Last: result("cfg-t2", "img:1", secondaryschedulerv1.TrialBlocked)}, Gate, "The trial found: 6 newly"},
		{"failed", newImage, live, Trial{Required: true, Last: result("cfg-t1", "img:2", secondaryschedulerv1.TrialFailed)}, Gate, "could not run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var observed Observed
			if tc.live != nil {
				observed = Observe(tc.live, nil)
			}
			d := Decide(Inputs{Desired: tc.desired, Live: tc.live, Observed: observed, Trial: tc.trial})
			if d.Action != tc.wantAction {
				t.Fatalf("action = %s, want %s (%s)", d.Action, tc.wantAction, d.Message)
			}
			if (tc.wantMessage == "") != (d.Message == "") || !strings.Contains(d.Message, tc.wantMessage) {
				t.Errorf("message = %q, want it to contain %q", d.Message, tc.wantMessage)
			}
			switch d.Action {
			case Gate:
				if d.Deployment != nil || d.ConfigHash != "cfg-t1" || d.Candidate == nil || d.Candidate.ConfigHash != tc.desired.ConfigHash ||
					d.Candidate.Image != SchedulerImage(tc.desired.Deployment) {
					t.Errorf("gated: deployment %v, config %s, candidate %+v; want the live one kept and the desired change as candidate",
						d.Deployment, d.ConfigHash, d.Candidate)
				}
			case RollOut:
				if d.Deployment != tc.desired.Deployment || d.Candidate != nil {
					t.Errorf("rolls out %v (candidate %+v), want the desired Deployment", d.Deployment, d.Candidate)
				}
			}
		})
	}
}

// A failing rollout is taken back as before: the gate tries changes, never
// the way back.
func TestGateNeverHoldsARollback(t *testing.T) {
	rollback := &render.Pinned{Deployment: withImage(&appsv1.Deployment{}, "img:1"), ConfigHash: "c1", TemplateHash: "t1"}
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "c2", Deployment: withImage(&appsv1.Deployment{}, "img:1"), Rollback: rollback}
	live := withImage(deployment("t2", appsv1.DeploymentStatus{Replicas: 1}), "img:1")
	d := Decide(Inputs{Desired: desired, Live: live, Trial: Trial{Required: true}, Record: Record{
		LastKnownGood: &secondaryschedulerv1.Rollout{TemplateHash: "t1", ConfigHash: "c1"},
		FailedRollout: &secondaryschedulerv1.FailedRollout{TemplateHash: "t2", ConfigHash: "c2", Message: "boom"}}})
	if d.Action != RollBack || d.Deployment != rollback.Deployment {
		t.Errorf("action = %s, want RollBack to the last configuration that ran", d.Action)
	}
}

// The gate judges a trial's counts as spec.rollout.trial is now: widening it
// lets a blocked change through, narrowing it holds an allowed one, with no
// new trial.
func TestGateJudgesCountsByTheCurrentGate(t *testing.T) {
	live := withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	counts := &secondaryschedulerv1.TrialCounts{Units: 10, Same: 4, Moved: 4, NewlyUnschedulable: 2}
	tests := []struct {
		name        string
		verdict     secondaryschedulerv1.TrialVerdict
		policy      *secondaryschedulerv1.TrialPolicy
		wantAction  Action
		wantMessage string
	}{
		{"blocked at the default gate", secondaryschedulerv1.TrialBlocked, nil, Gate, "2 newly unschedulable (at most 0 allowed)"},
		{"widened to 2", secondaryschedulerv1.TrialBlocked, &secondaryschedulerv1.TrialPolicy{MaxNewlyUnschedulable: ptr.To[int32](2)}, RollOut, ""},
		{"moved share beyond maxMovedPercent", secondaryschedulerv1.TrialAllowed,
			&secondaryschedulerv1.TrialPolicy{MaxNewlyUnschedulable: ptr.To[int32](5), MaxMovedPercent: ptr.To[int32](40)}, Gate, "50.0% moved (at most 40% allowed)"},
		{"moved share within it", secondaryschedulerv1.TrialAllowed,
			&secondaryschedulerv1.TrialPolicy{MaxNewlyUnschedulable: ptr.To[int32](5), MaxMovedPercent: ptr.To[int32](50)}, RollOut, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			last := &secondaryschedulerv1.TrialResult{ConfigHash: "cfg-t2", Image: "img:1", Verdict: tc.verdict, Counts: counts}
			d := Decide(Inputs{Desired: desired, Live: live, Observed: Observe(live, nil), Trial: Trial{Required: true, Policy: tc.policy, Last: last}})
			if d.Action != tc.wantAction || !strings.Contains(d.Message, tc.wantMessage) {
				t.Errorf("%s %q, want %s with %q", d.Action, d.Message, tc.wantAction, tc.wantMessage)
			}
		})
	}
}

// A trial that could not run is tried again RetryFailedTrialAfter after it
// ended, and the decision says when.
func TestGateRetriesAFailedTrial(t *testing.T) {
	live := withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	finished := metav1.NewTime(time.Unix(10000, 0))
	last := &secondaryschedulerv1.TrialResult{ConfigHash: "cfg-t2", Image: "img:1", Verdict: secondaryschedulerv1.TrialFailed,
		Message: "ImagePullBackOff", StartedAt: finished, FinishedAt: &finished}
	decide := func(now time.Time) Decision {
		return Decide(Inputs{Desired: desired, Live: live, Observed: Observe(live, nil), Trial: Trial{Required: true, Last: last}, Now: metav1.NewTime(now)})
	}
	d := decide(finished.Add(time.Minute))
	if d.Action != Gate || d.RetryTrial || d.RecheckAfter != RetryFailedTrialAfter-time.Minute || !strings.Contains(d.Message, "tried again at") {
		t.Errorf("a minute after: %s retry %v recheck %s %q; want held, looked at again when the retry is due", d.Action, d.RetryTrial, d.RecheckAfter, d.Message)
	}
	d = decide(finished.Add(RetryFailedTrialAfter))
	if d.Action != Gate || !d.RetryTrial || !strings.Contains(d.Message, "being tried again") {
		t.Errorf("once due: %s retry %v %q; want held and tried again", d.Action, d.RetryTrial, d.Message)
	}
}
