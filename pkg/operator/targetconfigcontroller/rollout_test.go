package targetconfigcontroller

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

func deployment(template string, status appsv1.DeploymentStatus) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)}}
	d.Spec.Template.Annotations = map[string]string{render.TemplateHashAnnotation: template, render.ConfigHashAnnotation: "cfg-" + template}
	status.ObservedGeneration = 2
	d.Status = status
	return d
}

func pod(template string, statuses ...corev1.ContainerStatus) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p-" + template, Annotations: map[string]string{render.TemplateHashAnnotation: template}},
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
			o := observeRollout(tc.d, tc.pods)
			if o.completed != tc.wantCompleted {
				t.Errorf("completed = %v, want %v", o.completed, tc.wantCompleted)
			}
			if (tc.wantFailure == "") != (o.failure == "") || !strings.HasPrefix(o.failure, tc.wantFailure) {
				t.Errorf("failure = %q, want prefix %q", o.failure, tc.wantFailure)
			}
		})
	}
}

func TestObserveRolloutKeepsTheEndOfALongMessage(t *testing.T) {
	log := strings.Repeat("I1201 a log line\n", 500) + `E1201 "command failed" err="FilterPlugin \"Nope\" does not exist"`
	o := observeRollout(deployment("new", appsv1.DeploymentStatus{Replicas: 2}), []*corev1.Pod{pod("new", crashed(1, log))})
	if len(o.failure) > maxFailureMessage || !strings.HasSuffix(o.failure, `FilterPlugin \"Nope\" does not exist"`) ||
		!strings.Contains(o.failure, "exited with code 1: [...] ") {
		t.Errorf("failure of %d bytes: %q; want at most %d ending with the error", len(o.failure), o.failure, maxFailureMessage)
	}
}

func TestDecideRollout(t *testing.T) {
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "c2"}
	failed := &secondaryschedulerv1.FailedRollout{TemplateHash: "t2", ConfigHash: "c2", Message: "boom"}
	good := &secondaryschedulerv1.Rollout{TemplateHash: "t1", ConfigHash: "c1"}
	exists := func(string) bool { return true }
	tests := []struct {
		name         string
		status       secondaryschedulerv1.SecondarySchedulerStatus
		exists       func(string) bool
		wantRollback string
		wantDegraded string
	}{
		{"nothing failed", secondaryschedulerv1.SecondarySchedulerStatus{LastKnownGood: good}, exists, "", ""},
		{"another template failed: the input changed, try it", secondaryschedulerv1.SecondarySchedulerStatus{
			LastKnownGood: good, FailedRollout: &secondaryschedulerv1.FailedRollout{TemplateHash: "t0"}}, exists, "", ""},
		{"desired failed: roll back", secondaryschedulerv1.SecondarySchedulerStatus{LastKnownGood: good, FailedRollout: failed},
			exists, "c1", "Rolled back to configuration c1"},
		{"nothing ran before", secondaryschedulerv1.SecondarySchedulerStatus{FailedRollout: failed}, exists, "", "nothing to roll back to"},
		{"same config ran before", secondaryschedulerv1.SecondarySchedulerStatus{
			LastKnownGood: &secondaryschedulerv1.Rollout{TemplateHash: "t1", ConfigHash: "c2"}, FailedRollout: failed}, exists, "", "something else in the pod template"},
		{"last good ConfigMap gone", secondaryschedulerv1.SecondarySchedulerStatus{LastKnownGood: good, FailedRollout: failed},
			func(string) bool { return false }, "", "is gone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := decideRollout(desired, &tc.status, tc.exists)
			if d.rollbackTo != tc.wantRollback {
				t.Errorf("rollbackTo = %q, want %q", d.rollbackTo, tc.wantRollback)
			}
			if (tc.wantDegraded == "") != (d.degraded == "") || !strings.Contains(d.degraded, tc.wantDegraded) {
				t.Errorf("degraded = %q, want it to contain %q", d.degraded, tc.wantDegraded)
			}
		})
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
			ObjectMeta: metav1.ObjectMeta{Name: render.ConfigMapNameFor(hash), CreationTimestamp: metav1.NewTime(now.Add(-age)),
				Labels: map[string]string{render.ManagedByLabel: render.ManagedByValue}, Annotations: map[string]string{render.ConfigHashAnnotation: hash}},
			Data: map[string]string{render.ConfigKey: data}, Immutable: ptr.To(true),
		}
	}
	a, b, c, d, e := made("a", time.Minute), made("b", 2*time.Minute), made("c", 3*time.Minute), made("d", 4*time.Minute), made("e", 5*time.Minute)
	former := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "secondary-scheduler-config", CreationTimestamp: metav1.NewTime(now.Add(-6 * time.Minute)),
		Labels: map[string]string{render.ManagedByLabel: render.ManagedByValue}}}
	unlabelled := made("f", 7*time.Minute)
	unlabelled.Labels = nil
	// Labelled and named like ours, but its data is not what its name says:
	// someone else's, never deleted.
	forged := made("g", 8*time.Minute)
	forged.Data[render.ConfigKey] = "forged"
	mutable := made("h", 9*time.Minute)
	mutable.Immutable = nil
	users := made("i", 10*time.Minute)
	users.Name = "secondary-scheduler-config-mine"
	other := made("j", 11*time.Minute)
	other.Name = "other"
	all := []*corev1.ConfigMap{a, b, c, d, e, former, unlabelled, forged, mutable, users, other}

	keep := map[string]bool{a.Name: true, b.Name: true}
	got := staleConfigMaps(all, keep, users.Name, 2)
	want := []string{e.Name, former.Name}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("stale = %v, want %v", got, want)
	}
	if got := staleConfigMaps(all, nil, users.Name, 0); len(got) != 6 {
		t.Errorf("removal deletes %v, want the six config ConfigMaps the operator made", got)
	}
}

func TestBoundMessage(t *testing.T) {
	if got := boundMessage("short"); got != "short" {
		t.Errorf("boundMessage changed a short message: %q", got)
	}
	got := boundMessage(strings.Repeat("problem\n", 5000))
	if len(got) > maxConditionMessage || !strings.Contains(got, "[truncated]") || !strings.HasSuffix(got, "more bytes)") {
		t.Errorf("bounded message of %d bytes ends %q", len(got), got[len(got)-60:])
	}
}
