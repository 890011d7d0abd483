package operatorclient

import (
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
)

// sameStatus decides whether an apply is sent (test/integration checks the
// extraction and the apply against a real API server; the fake clientset
// keeps no managed fields of the status subresource).
func TestSameStatus(t *testing.T) {
	at := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	cond := func(conditionType string, status operatorv1.ConditionStatus) *applyoperatorv1.OperatorConditionApplyConfiguration {
		return applyoperatorv1.OperatorCondition().WithType(conditionType).WithStatus(status).WithLastTransitionTime(metav1.NewTime(at))
	}
	gen := func(name string, generation int64) *applyoperatorv1.GenerationStatusApplyConfiguration {
		return applyoperatorv1.GenerationStatus().WithGroup("apps").WithResource("deployments").WithNamespace("ns").WithName(name).WithLastGeneration(generation)
	}
	status := secondaryschedulerapply.SecondarySchedulerStatus
	for _, tc := range []struct {
		name string
		a, b *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration
		same bool
	}{
		{"nothing owned, nothing applied", nil, status(), true},
		{"nothing owned, a field applied", nil, status().WithConfigHash("h"), false},
		{"conditions in another order", status().WithConditions(cond("A", "True"), cond("B", "False")),
			status().WithConditions(cond("B", "False"), cond("A", "True")), true},
		{"a condition's status", status().WithConditions(cond("A", "True")), status().WithConditions(cond("A", "False")), false},
		{"a reason left out is an empty reason", status().WithConditions(cond("A", "True").WithReason("")),
			status().WithConditions(cond("A", "True")), true},
		{"generations in another order", status().WithGenerations(gen("a", 1), gen("b", 2)),
			status().WithGenerations(gen("b", 2), gen("a", 1)), true},
		{"a generation", status().WithGenerations(gen("a", 1)), status().WithGenerations(gen("a", 2)), false},
		// schedulerNames is an atomic list: its order is the configuration's.
		{"schedulerNames in another order", status().WithSchedulerNames("a", "b"), status().WithSchedulerNames("b", "a"), false},
		{"schedulerNames", status().WithSchedulerNames("a"), status().WithSchedulerNames("a"), true},
		// The API keeps seconds: a time remembered in nanoseconds is the time it wrote.
		{"failedAt below the second", status().WithFailedRollout(secondaryschedulerapply.FailedRollout().WithFailedAt(metav1.NewTime(at))),
			status().WithFailedRollout(secondaryschedulerapply.FailedRollout().WithFailedAt(metav1.NewTime(at.Add(300 * time.Millisecond)))), true},
		{"a field owned and left out", status().WithConfigHash("h").WithReadyReplicas(1), status().WithReadyReplicas(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			same, err := sameStatus(tc.a, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if same != tc.same {
				t.Errorf("sameStatus = %v, want %v", same, tc.same)
			}
		})
	}
}

// ownedStatus extracts a field manager's status once per version of the
// object, and again for every other version or object.
func TestOwnedStatusPerVersion(t *testing.T) {
	version := func(uid, resourceVersion, hash string) *secondaryschedulerv1.SecondaryScheduler {
		return &secondaryschedulerv1.SecondaryScheduler{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster", UID: types.UID(uid), ResourceVersion: resourceVersion,
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationApply,
					APIVersion: "operator.openshift.io/v1", Subresource: "status", FieldsType: "FieldsV1",
					FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:configHash":{}}}`)}}}},
			Status: secondaryschedulerv1.SecondarySchedulerStatus{ConfigHash: hash},
		}
	}
	c := &Client{}
	hashOf := func(ss *secondaryschedulerv1.SecondaryScheduler) (*secondaryschedulerapply.SecondarySchedulerApplyConfiguration, string) {
		t.Helper()
		owned, err := c.ownedStatus(ss, "m")
		if err != nil {
			t.Fatal(err)
		}
		if owned.Status == nil || owned.Status.ConfigHash == nil {
			t.Fatalf("extracted %+v, want configHash", owned)
		}
		return owned, *owned.Status.ConfigHash
	}
	first, h := hashOf(version("u1", "1", "a"))
	if h != "a" {
		t.Errorf("configHash %q, want a", h)
	}
	if again, _ := hashOf(version("u1", "1", "a")); again != first {
		t.Error("the same version was extracted again")
	}
	if _, h := hashOf(version("u1", "2", "b")); h != "b" {
		t.Errorf("a new resourceVersion gave configHash %q, want b", h)
	}
	if _, h := hashOf(version("u2", "2", "c")); h != "c" {
		t.Errorf("another object at the same resourceVersion gave configHash %q, want c", h)
	}
}
