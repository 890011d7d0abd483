package e2e

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

func TestSplitWrites(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write := func(verb, resource, sub, name string, at time.Duration, code int32) auditv1.Event {
		return auditv1.Event{
			Verb:                     verb,
			ObjectRef:                &auditv1.ObjectReference{Resource: resource, Subresource: sub, Name: name},
			ResponseStatus:           &metav1.Status{Code: code},
			RequestReceivedTimestamp: metav1.NewMicroTime(t0.Add(at)),
		}
	}
	deploy := func(at time.Duration) auditv1.Event {
		return write("update", "deployments", "", "secondary-scheduler", at, 200)
	}
	status := func(at time.Duration) auditv1.Event {
		return write("update", "secondaryschedulers", "status", "cluster", at, 200)
	}
	expected := []expectedWrite{
		{verb: "update", resource: "deployments", name: "secondary-scheduler"},
		{verb: "update", resource: "secondaryschedulers/status", name: "cluster"},
	}
	killed := t0.Add(10 * time.Second)
	for _, tc := range []struct {
		name    string
		events  []auditv1.Event
		mid     bool
		missing string
	}{
		{"the Deployment before, the status after", []auditv1.Event{deploy(time.Second), status(20 * time.Second)}, true, ""},
		{"begun before, written again after the restart", []auditv1.Event{status(time.Second), deploy(2 * time.Second), deploy(20 * time.Second), status(21 * time.Second)}, true, ""},
		{"all before: a kill after the change", []auditv1.Event{deploy(time.Second), status(2 * time.Second)}, false, ""},
		{"all after: a kill before the change", []auditv1.Event{deploy(11 * time.Second), status(12 * time.Second)}, false, ""},
		{"a refused write did not land", []auditv1.Event{deploy(time.Second), write("update", "secondaryschedulers", "status", "cluster", 20*time.Second, 409)},
			false, "update secondaryschedulers/status cluster (1 of 1)"},
		{"another object's write does not count", []auditv1.Event{deploy(time.Second), write("update", "deployments", "", "other", 20*time.Second, 200)},
			false, "update secondaryschedulers/status cluster (1 of 1)"},
		{"split, one not seen landing", []auditv1.Event{status(time.Second), write("update", "deployments", "", "secondary-scheduler", 20*time.Second, 504),
			write("update", "secondaryschedulers", "status", "cluster", 30*time.Second, 200)}, true, "update deployments secondary-scheduler (1 of 1)"},
		{"split, a write answered 504 not counted", []auditv1.Event{deploy(time.Second), write("update", "secondaryschedulers", "status", "cluster", 20*time.Second, 504),
			write("update", "secondaryschedulers", "status", "cluster", 30*time.Second, 200)}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := splitWrites(expected, tc.events, killed)
			if s.midChange() != tc.mid || s.missing() != tc.missing {
				t.Errorf("%s: mid-change %v, missing %q; want %v, %q", s, s.midChange(), s.missing(), tc.mid, tc.missing)
			}
		})
	}
	twice := []expectedWrite{{verb: "update", resource: "deployments", name: "secondary-scheduler", count: 2}}
	s := splitWrites(twice, []auditv1.Event{deploy(time.Second), deploy(2 * time.Second), deploy(20 * time.Second)}, killed)
	if s.String() != "update deployments secondary-scheduler ×2: 2 before, 1 after" || !s.midChange() {
		t.Errorf("three writes of two expected: %s (mid-change %v)", s, s.midChange())
	}
}
