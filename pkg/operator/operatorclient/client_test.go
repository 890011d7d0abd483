package operatorclient

import (
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
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

// busySecondaryScheduler is a SecondaryScheduler as a running operator keeps
// it: an administrator's spec with sidecars and RBAC, and a status written by
// managers controllers, each owning its own conditions.
func busySecondaryScheduler(managers int) *secondaryschedulerv1.SecondaryScheduler {
	ss := &secondaryschedulerv1.SecondaryScheduler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "operator.openshift.io/v1", Kind: "SecondaryScheduler"},
		ObjectMeta: metav1.ObjectMeta{Name: "cluster", UID: "u1", ResourceVersion: "7"},
	}
	ss.Spec.ManagementState = operatorv1.Managed
	ss.Spec.SchedulerImage = "registry.k8s.io/scheduler-plugins/kube-scheduler:v0.33.5"
	ss.Spec.SchedulerConfig = "secondary-scheduler-config"
	for i := range 4 {
		ss.Spec.Sidecars = append(ss.Spec.Sidecars, corev1.Container{
			Name: fmt.Sprintf("sidecar-%d", i), Image: "registry.example.com/sidecar:v1",
			Args: []string{"--listen=:9000", "--verbose"},
			Env:  []corev1.EnvVar{{Name: "MODE", Value: "serve"}, {Name: "LEVEL", Value: "2"}},
		})
	}
	ss.Spec.RBAC = &secondaryschedulerv1.SchedulerRBAC{}
	for i := range 10 {
		ss.Spec.RBAC.ClusterRules = append(ss.Spec.RBAC.ClusterRules, rbacv1.PolicyRule{
			APIGroups: []string{fmt.Sprintf("group%d.example.com", i)}, Resources: []string{"things", "others"}, Verbs: []string{"get", "list", "watch"},
		})
	}
	ss.ManagedFields = append(ss.ManagedFields, metav1.ManagedFieldsEntry{
		Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "operator.openshift.io/v1", FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{".":{},"f:managementState":{},"f:schedulerImage":{},"f:schedulerConfig":{},"f:sidecars":{},"f:rbac":{".":{},"f:clusterRules":{}}}}`)},
	})
	at := metav1.NewTime(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	for m := range managers {
		var owned []string
		for _, suffix := range []string{"Available", "Progressing", "Degraded"} {
			cond := operatorv1.OperatorCondition{Type: fmt.Sprintf("Manager%d%s", m, suffix), Status: operatorv1.ConditionFalse,
				LastTransitionTime: at, Reason: "AsExpected", Message: "all is as the manager expects it to be"}
			ss.Status.Conditions = append(ss.Status.Conditions, cond)
			owned = append(owned, fmt.Sprintf(`"k:{\"type\":\"%s\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}`, cond.Type))
		}
		ss.ManagedFields = append(ss.ManagedFields, metav1.ManagedFieldsEntry{
			Manager: fmt.Sprintf("manager-%d", m), Operation: metav1.ManagedFieldsOperationApply, APIVersion: "operator.openshift.io/v1",
			Subresource: "status", FieldsType: "FieldsV1",
			FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{` + strings.Join(owned, ",") + `}}}`)},
		})
	}
	ss.Status.ConfigHash = "0123456789abcdef"
	ss.Status.SchedulerNames = []string{"secondary-scheduler"}
	ss.ManagedFields = append(ss.ManagedFields, metav1.ManagedFieldsEntry{
		Manager: "manager-0", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "operator.openshift.io/v1",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:logLevel":{}}}`)},
	}, metav1.ManagedFieldsEntry{
		Manager: "manager-0", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "operator.openshift.io/v1",
		Subresource: "status", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:configHash":{},"f:schedulerNames":{}}}`)},
	})
	return ss
}

// The extraction from the status alone is the extraction from the whole
// object, for each manager, whatever else it owns.
func TestStatusOfExtractsTheSame(t *testing.T) {
	ss := busySecondaryScheduler(8)
	for _, manager := range []string{"manager-0", "manager-3", "manager-7", "kubectl", "nobody"} {
		whole, err := secondaryschedulerapply.ExtractSecondarySchedulerStatus(ss, manager)
		if err != nil {
			t.Fatal(err)
		}
		part, err := secondaryschedulerapply.ExtractSecondarySchedulerStatus(statusOf(ss, manager), manager)
		if err != nil {
			t.Fatal(err)
		}
		if jsonOf(whole) != jsonOf(part) {
			t.Errorf("%s: from the status alone %s, from the whole object %s", manager, jsonOf(part), jsonOf(whole))
		}
	}
	if owned, _ := secondaryschedulerapply.ExtractSecondarySchedulerStatus(statusOf(ss, "manager-3"), "manager-3"); owned.Status == nil || len(owned.Status.Conditions) != 3 {
		t.Errorf("manager-3 owns %s, want its three conditions", jsonOf(owned))
	}
}

// BenchmarkExtractStatus prints what one controller's extraction of its
// status costs, from the whole object and from the status alone.
func BenchmarkExtractStatus(b *testing.B) {
	ss := busySecondaryScheduler(8)
	for _, tc := range []struct {
		name string
		of   func() *secondaryschedulerv1.SecondaryScheduler
	}{
		{"whole-object", func() *secondaryschedulerv1.SecondaryScheduler { return ss }},
		{"status-only", func() *secondaryschedulerv1.SecondaryScheduler { return statusOf(ss, "manager-3") }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := secondaryschedulerapply.ExtractSecondarySchedulerStatus(tc.of(), "manager-3"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
