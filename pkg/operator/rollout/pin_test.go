package rollout

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestPinnedImage(t *testing.T) {
	for _, tc := range []struct {
		name, image, imageID, want, why string
	}{
		{"tag", "quay.io/org/sched:v1", "quay.io/org/sched@" + digest, "quay.io/org/sched@" + digest, ""},
		{"no tag", "quay.io/org/sched", "quay.io/org/sched@" + digest, "quay.io/org/sched@" + digest, ""},
		{"registry port", "registry:5000/sched:v1", "registry:5000/sched@" + digest, "registry:5000/sched@" + digest, ""},
		{"docker-pullable prefix", "sched:v1", "docker-pullable://docker.io/library/sched@" + digest, "sched@" + digest, ""},
		{"pulled from a mirror: the digest is the same content", "quay.io/org/sched:v1", "mirror.local/org/sched@" + digest,
			"quay.io/org/sched@" + digest, ""},
		{"already a digest", "quay.io/org/sched@" + digest, "quay.io/org/sched@sha256:" + strings.Repeat("f", 64), "quay.io/org/sched@" + digest, ""},
		{"no image ID", "sched:v1", "", "sched:v1", "reported no image ID"},
		{"an image configuration ID, not a digest", "sched:v1", "docker://" + digest, "sched:v1", "names no sha256 digest"},
		{"a short digest", "sched:v1", "sched@sha256:abc", "sched:v1", "names no sha256 digest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := PinnedImage(tc.image, tc.imageID)
			if got != tc.want || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
				t.Errorf("PinnedImage(%q, %q) = %q, %q; want %q, %q", tc.image, tc.imageID, got, why, tc.want, tc.why)
			}
		})
	}
}

// An allowed change whose image is a tag rolls out at the digest its trial
// ran; the pin stays while the template is the same, and the next change
// is tried against the pinned image that runs.
func TestGateRollsOutTheDigestTried(t *testing.T) {
	live := withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: withImage(&appsv1.Deployment{}, "quay.io/org/sched:v2")}
	key := NewTrialRequest(TrialArm(live, "cfg-t1"), TrialArm(desired.Deployment, "cfg-t2"), nil).Key
	allowed := &secondaryschedulerv1.TrialResult{Key: key, ConfigHash: "cfg-t2", Image: "quay.io/org/sched:v2", Verdict: secondaryschedulerv1.TrialAllowed,
		Counts: &secondaryschedulerv1.TrialCounts{Units: 1, Same: 1}, Gate: &secondaryschedulerv1.TrialGate{},
		CandidateImageID: "docker-pullable://quay.io/org/sched@" + digest}
	pinned := "quay.io/org/sched@" + digest

	d := Decide(Inputs{Desired: desired, Live: live, Observed: Observe(live, nil), Trial: Trial{Required: true, Last: allowed}})
	if d.Action != RollOut || SchedulerImage(d.Deployment) != pinned || d.Message != "" {
		t.Fatalf("%s %s (%q); want the digest tried rolled out", d.Action, SchedulerImage(d.Deployment), d.Message)
	}
	if SchedulerImage(desired.Deployment) != "quay.io/org/sched:v2" {
		t.Fatal("the rendered Deployment was changed in place")
	}

	rolled := d.Deployment.DeepCopy()
	rolled.Generation, rolled.Status = 2, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}
	rolled.Spec.Template.Annotations = map[string]string{names.TemplateHashAnnotation: "t2", names.ConfigHashAnnotation: "cfg-t2"}
	again := Decide(Inputs{Desired: desired, Live: rolled, Observed: Observe(rolled, nil), Trial: Trial{Required: true, Last: allowed}})
	if again.Action != RollOut || SchedulerImage(again.Deployment) != pinned {
		t.Errorf("after the rollout: %s %s (%q); want the pin kept, nothing tried", again.Action, SchedulerImage(again.Deployment), again.Message)
	}

	next := &render.Objects{TemplateHash: "t3", ConfigHash: "cfg-t3", Deployment: withImage(&appsv1.Deployment{}, "quay.io/org/sched:v2")}
	held := Decide(Inputs{Desired: next, Live: rolled, Observed: Observe(rolled, nil), Trial: Trial{Required: true, Last: allowed}})
	if held.Action != Gate || held.TrialRequest.Current.Image != pinned || held.TrialRequest.Candidate.Image != "quay.io/org/sched:v2" {
		t.Errorf("the next change: %s, request %+v; want it tried against the pinned image that runs", held.Action, held.TrialRequest)
	}

	drifted := rolled.DeepCopy()
	drifted.Spec.Template.Spec.Containers[1].Image = "quay.io/org/sched@sha256:" + strings.Repeat("e", 64)
	other := Decide(Inputs{Desired: desired, Live: drifted, Observed: Observe(drifted, nil), Trial: Trial{Required: true, Last: allowed}})
	if other.Action != Gate {
		t.Errorf("a digest no trial ran: %s %s; want the change held for a trial", other.Action, SchedulerImage(other.Deployment))
	}
}
