package rollout

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
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

func deployment(template string, status appsv1.DeploymentStatus) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)}}
	d.Spec.Template.Annotations = map[string]string{names.TemplateHashAnnotation: template, names.ConfigHashAnnotation: "cfg-" + template}
	status.ObservedGeneration = 2
	d.Status = status
	return d
}

func pod(template string, statuses ...corev1.ContainerStatus) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p-" + template, Annotations: map[string]string{names.TemplateHashAnnotation: template}},
		Status:     corev1.PodStatus{ContainerStatuses: statuses},
	}
}

func crashed(code int32, msg string) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:                 "secondary-scheduler",
		RestartCount:         1,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Message: msg}},
	}
}

func TestObserveRollout(t *testing.T) {
	rolling := appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 1}
	tests := []struct {
		name          string
		d             *appsv1.Deployment
		pods          []*corev1.Pod
		wantCompleted bool
		wantFailure   string
	}{
		{"completed", deployment("new", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), nil, true, ""},
		{"rolling, new pod starting", deployment("new", rolling), []*corev1.Pod{pod("new"), pod("old")}, false, ""},
		{"new pod crashed", deployment("new", rolling),
			[]*corev1.Pod{pod("new", crashed(1, `plugin "Nope" does not exist`)), pod("old")}, false,
			`pod p-new container secondary-scheduler exited with code 1: plugin "Nope" does not exist`},
		{"old pod crashed: not this rollout's failure", deployment("new", rolling),
			[]*corev1.Pod{pod("new"), pod("old", crashed(2, "x"))}, false, ""},
		{"clean exit is no crash", deployment("new", rolling), []*corev1.Pod{pod("new", crashed(0, ""))}, false, ""},
		{"deadline", deployment("new", appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 1,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
				Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "x" has timed out progressing.`}}}),
			[]*corev1.Pod{pod("new")}, false, "no new scheduler pod became available within 600s"},
		{"generation not observed yet", func() *appsv1.Deployment {
			d := deployment("new", rolling)
			d.Generation = 3
			return d
		}(), []*corev1.Pod{pod("new", crashed(1, "x"))}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := Observe(tc.d, tc.pods)
			if o.Completed != tc.wantCompleted {
				t.Errorf("completed = %v, want %v", o.Completed, tc.wantCompleted)
			}
			if (tc.wantFailure == "") != (o.Failure == "") || !strings.HasPrefix(o.Failure, tc.wantFailure) {
				t.Errorf("failure = %q, want prefix %q", o.Failure, tc.wantFailure)
			}
		})
	}
}

func TestObserveRolloutKeepsTheEndOfALongMessage(t *testing.T) {
	log := strings.Repeat("I1201 a log line\n", 500) + `E1201 "command failed" err="FilterPlugin \"Nope\" does not exist"`
	o := Observe(deployment("new", appsv1.DeploymentStatus{Replicas: 2}), []*corev1.Pod{pod("new", crashed(1, log))})
	if len(o.Failure) > MaxFailureMessage || !strings.HasSuffix(o.Failure, `FilterPlugin \"Nope\" does not exist"`) ||
		!strings.Contains(o.Failure, "exited with code 1: [...] ") {
		t.Errorf("failure of %d bytes: %q; want at most %d ending with the error", len(o.Failure), o.Failure, MaxFailureMessage)
	}
}

func TestDecide(t *testing.T) {
	rollback := &render.Pinned{Deployment: &appsv1.Deployment{}, ConfigHash: "c1", TemplateHash: "t1"}
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "c2", Deployment: &appsv1.Deployment{}, Rollback: rollback}
	failed := &secondaryschedulerv1.FailedRollout{TemplateHash: "t2", ConfigHash: "c2", Message: "boom"}
	good := &secondaryschedulerv1.Rollout{TemplateHash: "t1", ConfigHash: "c1"}
	noRollback := *desired
	noRollback.Rollback = nil
	tests := []struct {
		name         string
		desired      *render.Objects
		record       Record
		wantAction   Action
		wantMessage  string
		wantRollback bool
	}{
		{"nothing failed", desired, Record{LastKnownGood: good}, RollOut, "", false},
		{"another template failed: the input changed, try it", desired, Record{
			LastKnownGood: good, FailedRollout: &secondaryschedulerv1.FailedRollout{TemplateHash: "t0"}}, RollOut, "", false},
		{"desired failed: roll back", desired, Record{LastKnownGood: good, FailedRollout: failed}, RollBack, "Rolled back to configuration c1", true},
		{"nothing ran before", desired, Record{FailedRollout: failed}, Hold, "nothing to roll back to", false},
		{"same config ran before", desired, Record{
			LastKnownGood: &secondaryschedulerv1.Rollout{TemplateHash: "t1", ConfigHash: "c2"}, FailedRollout: failed}, Hold, "something else in the pod template", false},
		{"last good ConfigMap gone: Render prepared no rollback", &noRollback, Record{LastKnownGood: good, FailedRollout: failed}, Hold, "is gone", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(Inputs{Desired: tc.desired, Record: tc.record})
			if d.Action != tc.wantAction {
				t.Errorf("action = %s, want %s", d.Action, tc.wantAction)
			}
			if rolledBack := d.Deployment == rollback.Deployment; rolledBack != tc.wantRollback || (!rolledBack && d.Deployment != tc.desired.Deployment) {
				t.Errorf("applies the rollback Deployment: %v, want %v", rolledBack, tc.wantRollback)
			}
			if (tc.wantMessage == "") != (d.Message == "") || !strings.Contains(d.Message, tc.wantMessage) {
				t.Errorf("message = %q, want it to contain %q", d.Message, tc.wantMessage)
			}
		})
	}
}

// The record follows what the live Deployment shows: a failure of the
// desired template is recorded with its time, a completed one clears it and
// becomes the last known good.
func TestDecideRecords(t *testing.T) {
	now := metav1.NewTime(time.Unix(1000, 0))
	desired := &render.Objects{TemplateHash: "new", ConfigHash: "cfg-new", Deployment: &appsv1.Deployment{}}
	rolling := deployment("new", appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 1})
	crashing := Observe(rolling, []*corev1.Pod{pod("new", crashed(1, "bad plugin"))})
	d := Decide(Inputs{Desired: desired, Live: rolling, Observed: crashing, Record: Record{}.Observe(crashing), Now: now})
	f := d.Record.FailedRollout
	if f == nil || f.TemplateHash != "new" || f.ConfigHash != "cfg-new" || !f.FailedAt.Equal(&now) || !strings.Contains(f.Message, "bad plugin") {
		t.Fatalf("failed rollout recorded as %+v", f)
	}
	if d.Action != Hold {
		t.Errorf("action = %s with nothing to roll back to, want Hold", d.Action)
	}
	done := deployment("new", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1})
	completed := Observe(done, nil)
	d = Decide(Inputs{Desired: desired, Live: done, Observed: completed, Record: d.Record.Observe(completed), Now: now})
	if d.Record.FailedRollout != nil || d.Record.LastKnownGood == nil || d.Record.LastKnownGood.TemplateHash != "new" || d.Action != RollOut {
		t.Errorf("after completion: %s, record %+v %+v", d.Action, d.Record.LastKnownGood, d.Record.FailedRollout)
	}
}

// A first rollout waits for what it awaits; a running scheduler never does.
func TestDecideWaitsOnlyBeforeTheFirstRollout(t *testing.T) {
	desired := &render.Objects{TemplateHash: "t", Deployment: &appsv1.Deployment{}}
	if d := Decide(Inputs{Desired: desired, Awaiting: "the observer"}); d.Action != Wait || d.Deployment != nil || d.Message != "the observer" {
		t.Errorf("no Deployment yet: %s %q, want Wait", d.Action, d.Message)
	}
	live := deployment("t", appsv1.DeploymentStatus{})
	if d := Decide(Inputs{Desired: desired, Live: live, Awaiting: "the observer"}); d.Action != RollOut {
		t.Errorf("with a Deployment: %s, want RollOut", d.Action)
	}
}

func TestComplete(t *testing.T) {
	for _, tc := range []struct {
		status appsv1.DeploymentStatus
		want   bool
	}{
		{appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}, true},
		{appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 2}, false}, // an old pod still runs
		{appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 0}, false},
	} {
		if got := Complete(deployment("t", tc.status)); got != tc.want {
			t.Errorf("Complete(%+v) = %v, want %v", tc.status, got, tc.want)
		}
	}
}

func TestStaleConfigMaps(t *testing.T) {
	now := time.Now()
	// made is a config ConfigMap as the operator makes it: its name and
	// annotation are the hash of its data, and it is immutable.
	made := func(data string, age time.Duration) *corev1.ConfigMap {
		sum := sha256.Sum256([]byte(data))
		hash := hex.EncodeToString(sum[:])
		return &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: names.ConfigMapNameFor(hash), CreationTimestamp: metav1.NewTime(now.Add(-age)),
				Labels: map[string]string{names.ManagedByLabel: names.ManagedByValue}, Annotations: map[string]string{names.ConfigHashAnnotation: hash}},
			Data: map[string]string{names.ConfigKey: data}, Immutable: ptr.To(true),
		}
	}
	a, b, c, d, e := made("a", time.Minute), made("b", 2*time.Minute), made("c", 3*time.Minute), made("d", 4*time.Minute), made("e", 5*time.Minute)
	former := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "secondary-scheduler-config", CreationTimestamp: metav1.NewTime(now.Add(-6 * time.Minute)),
		Labels: map[string]string{names.ManagedByLabel: names.ManagedByValue}}}
	unlabelled := made("f", 7*time.Minute)
	unlabelled.Labels = nil
	// Labelled and named like ours, but its data is not what its name says:
	// someone else's, never deleted.
	forged := made("g", 8*time.Minute)
	forged.Data[names.ConfigKey] = "forged"
	mutable := made("h", 9*time.Minute)
	mutable.Immutable = nil
	users := made("i", 10*time.Minute)
	users.Name = "secondary-scheduler-config-mine"
	other := made("j", 11*time.Minute)
	other.Name = "other"
	all := []*corev1.ConfigMap{a, b, c, d, e, former, unlabelled, forged, mutable, users, other}

	keep := map[string]bool{a.Name: true, b.Name: true}
	got := StaleConfigMaps(all, keep, users.Name, 2)
	want := []string{former.Name, e.Name}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("stale = %v, want %v", got, want)
	}
	// Right after an upgrade the former ConfigMap is the only superseded
	// one, well within the retained count: it goes all the same.
	upgraded := []*corev1.ConfigMap{made("new", 0), former}
	if got := StaleConfigMaps(upgraded, map[string]bool{upgraded[0].Name: true}, "", RetainedConfigs); !slices.Equal(got, []string{former.Name}) {
		t.Errorf("after an upgrade, stale = %v, want the former %s", got, former.Name)
	}
	if got := StaleConfigMaps(all, nil, users.Name, 0); len(got) != 6 {
		t.Errorf("removal deletes %v, want the six config ConfigMaps the operator made", got)
	}
}
