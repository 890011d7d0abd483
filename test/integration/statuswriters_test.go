package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/genericoperatorclient"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// staleClient is the operator's client of the SecondaryScheduler over a cache
// the test sets by hand: its informer never runs, so the cache holds whatever
// copy the test put there last, however old.
type staleClient struct {
	*operatorclient.Client
	setCache func(*secondaryschedulerv1.SecondaryScheduler)
	clock    *clocktesting.FakePassiveClock
}

func newStaleClient(t *testing.T, clients *framework.Clients) staleClient {
	t.Helper()
	informer := externalversions.NewSharedInformerFactory(clients.Operator, 0).Operator().V1().SecondarySchedulers()
	indexer := informer.Informer().GetIndexer()
	clk := clocktesting.NewFakePassiveClock(time.Now().Truncate(time.Second))
	return staleClient{
		clock:  clk,
		Client: operatorclient.New(clk, clients.Operator.OperatorV1(), informer),
		setCache: func(ss *secondaryschedulerv1.SecondaryScheduler) {
			if err := indexer.Update(ss.DeepCopy()); err != nil {
				t.Fatal(err)
			}
		},
	}
}

// statusWriters starts a test of the status writers: a SecondaryScheduler, the
// operator's config (its requests counted) and clients, and a live read.
func statusWriters(t *testing.T) (*rest.Config, *framework.Clients, *framework.RequestCounter, func() *secondaryschedulerv1.SecondaryScheduler) {
	env := framework.Shared(t)
	cfg, requests := framework.CountRequests(env.OperatorConfig(t))
	env.CreateSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})
	live := func() *secondaryschedulerv1.SecondaryScheduler {
		t.Helper()
		ss, err := env.Admin.Operator.OperatorV1().SecondarySchedulers().Get(context.Background(), secondaryschedulerv1.SingletonName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return ss
	}
	return cfg, framework.MustClients(t, cfg), requests, live
}

// rolloutRecord is the target config controller's own status: what it applies
// after a rollout.
func rolloutRecord(configHash string, schedulerNames ...string) *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration {
	return secondaryschedulerapply.SecondarySchedulerStatus().
		WithConditions(applyoperatorv1.OperatorCondition().WithType(targetconfigcontroller.ConditionType).
			WithStatus(operatorv1.ConditionFalse).WithReason("AsExpected")).
		WithSchedulerNames(schedulerNames...).
		WithConfigHash(configHash).
		WithLastKnownGood(secondaryschedulerapply.Rollout().WithConfigHash(configHash).WithTemplateHash("t-" + configHash))
}

// TestStaleCacheRevertsNoOneElsesStatus reproduces the shape of the bug
// status.schedulerNames had: two writers of the status, the target config
// controller (its rollout record) and library-go's condition writers,
// interleaved while the operator's cache still holds an older
// SecondaryScheduler. library-go's dynamic client built its status update
// from that cached copy with a fresh resourceVersion and put the older
// schedulerNames back. Through the operator's client no writer changes a
// field it does not own, whatever its cache holds.
func TestStaleCacheRevertsNoOneElsesStatus(t *testing.T) {
	ctx := context.Background()
	cfg, clients, requests, live := statusWriters(t)
	wantNames := func(t *testing.T, want ...string) {
		t.Helper()
		if got := live().Status.SchedulerNames; !slices.Equal(got, want) {
			t.Errorf("status.schedulerNames = %v, want %v", got, want)
		}
	}
	wantCondition := func(t *testing.T, conditionType string, status operatorv1.ConditionStatus) {
		t.Helper()
		if c := v1helpers.FindOperatorCondition(live().Status.Conditions, conditionType); c == nil || c.Status != status {
			t.Errorf("condition %s = %+v, want status %s", conditionType, c, status)
		}
	}
	condition := func(conditionType string, status operatorv1.ConditionStatus) operatorv1.OperatorCondition {
		return operatorv1.OperatorCondition{Type: conditionType, Status: status, Reason: "Test"}
	}

	c := newStaleClient(t, clients)
	c.setCache(live())
	if _, err := c.ApplyStatus(ctx, targetconfigcontroller.FieldManager, rolloutRecord("h1", "secondary-scheduler")); err != nil {
		t.Fatal(err)
	}
	// The cache from here on: the SecondaryScheduler with the first record.
	stale := live()
	c.setCache(stale)

	// The target config controller rolls out a second profile; its write is
	// not in the cache yet when the other writers run.
	if _, err := c.ApplyStatus(ctx, targetconfigcontroller.FieldManager, rolloutRecord("h2", "gang-scheduler", "secondary-scheduler")); err != nil {
		t.Fatal(err)
	}
	wantNames(t, "gang-scheduler", "secondary-scheduler")

	t.Run("library-go's update of OperatorStatus keeps schedulerNames", func(t *testing.T) {
		// v1helpers.UpdateStatus: the stale resourceVersion conflicts, the
		// retry reads the SecondaryScheduler live, and the update carries the
		// live schedulerNames, not the cache's.
		if _, _, err := v1helpers.UpdateStatus(ctx, c, v1helpers.UpdateConditionFn(condition("UpdaterDegraded", operatorv1.ConditionTrue))); err != nil {
			t.Fatal(err)
		}
		wantCondition(t, "UpdaterDegraded", operatorv1.ConditionTrue)
		wantNames(t, "gang-scheduler", "secondary-scheduler")
	})

	t.Run("library-go's apply of OperatorStatus keeps schedulerNames", func(t *testing.T) {
		status := applyoperatorv1.OperatorStatus().WithConditions(applyoperatorv1.OperatorCondition().
			WithType("ApplierDegraded").WithStatus(operatorv1.ConditionTrue).WithReason("Test"))
		if err := c.ApplyOperatorStatus(ctx, "Applier", status); err != nil {
			t.Fatal(err)
		}
		wantCondition(t, "ApplierDegraded", operatorv1.ConditionTrue)
		wantNames(t, "gang-scheduler", "secondary-scheduler")
	})

	t.Run("the target config controller's apply keeps the others' conditions", func(t *testing.T) {
		// Its cache shows neither condition; its apply carries only its fields.
		if _, err := c.ApplyStatus(ctx, targetconfigcontroller.FieldManager, rolloutRecord("h3", "secondary-scheduler")); err != nil {
			t.Fatal(err)
		}
		wantNames(t, "secondary-scheduler")
		wantCondition(t, "UpdaterDegraded", operatorv1.ConditionTrue)
		wantCondition(t, "ApplierDegraded", operatorv1.ConditionTrue)
		wantCondition(t, targetconfigcontroller.ConditionType, operatorv1.ConditionFalse)
	})

	t.Run("a converged writer writes nothing", func(t *testing.T) {
		c.setCache(live())
		requests.Reset()
		status := applyoperatorv1.OperatorStatus().WithConditions(applyoperatorv1.OperatorCondition().
			WithType("ApplierDegraded").WithStatus(operatorv1.ConditionTrue).WithReason("Test"))
		if err := c.ApplyOperatorStatus(ctx, "Applier", status); err != nil {
			t.Fatal(err)
		}
		if applied, err := c.ApplyStatus(ctx, targetconfigcontroller.FieldManager, rolloutRecord("h3", "secondary-scheduler")); err != nil || applied {
			t.Errorf("the unchanged rollout record: applied=%v, err=%v", applied, err)
		}
		if _, _, err := v1helpers.UpdateStatus(ctx, c, v1helpers.UpdateConditionFn(condition("UpdaterDegraded", operatorv1.ConditionTrue))); err != nil {
			t.Fatal(err)
		}
		if n := requests.Writes(); n != 0 {
			t.Errorf("%d writes of an unchanged status: %v", n, requests.WriteRequests())
		}
	})

	t.Run("a condition's lastTransitionTime moves only with its status", func(t *testing.T) {
		apply := func(status operatorv1.ConditionStatus, reason string) operatorv1.OperatorCondition {
			t.Helper()
			c.setCache(live())
			if err := c.ApplyOperatorStatus(ctx, "Clocked", applyoperatorv1.OperatorStatus().WithConditions(
				applyoperatorv1.OperatorCondition().WithType("ClockedDegraded").WithStatus(status).WithReason(reason))); err != nil {
				t.Fatal(err)
			}
			return *v1helpers.FindOperatorCondition(live().Status.Conditions, "ClockedDegraded")
		}
		first := apply(operatorv1.ConditionFalse, "A")
		c.clock.SetTime(first.LastTransitionTime.Add(time.Hour))
		if same := apply(operatorv1.ConditionFalse, "B"); same.Reason != "B" || !same.LastTransitionTime.Equal(&first.LastTransitionTime) {
			t.Errorf("the same status: %+v, want lastTransitionTime %v", same, first.LastTransitionTime)
		}
		if changed := apply(operatorv1.ConditionTrue, "B"); !changed.LastTransitionTime.Time.Equal(c.clock.Now()) {
			t.Errorf("a new status: %+v, want lastTransitionTime %v", changed, c.clock.Now())
		}
	})

	// The control: the same interleaving through library-go's dynamic client,
	// which the operator used before, does revert the field. Should a library-go
	// bump fix it, this part can go.
	t.Run("control: library-go's dynamic client reverts schedulerNames", func(t *testing.T) {
		if _, err := c.ApplyStatus(ctx, targetconfigcontroller.FieldManager, rolloutRecord("h4", "gang-scheduler", "secondary-scheduler")); err != nil {
			t.Fatal(err)
		}
		before := live()
		if slices.Equal(before.Status.SchedulerNames, stale.Status.SchedulerNames) {
			t.Fatalf("schedulerNames %v are the stale copy's", before.Status.SchedulerNames)
		}
		gvk := secondaryschedulerv1.SchemeGroupVersion.WithKind("SecondaryScheduler")
		dynamicClient, informers, err := genericoperatorclient.NewClusterScopedOperatorClientWithConfigName(clock.RealClock{}, cfg,
			operatorclient.GVR, gvk, secondaryschedulerv1.SingletonName, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(stale)
		if err != nil {
			t.Fatal(err)
		}
		cached := &unstructured.Unstructured{Object: obj}
		cached.SetGroupVersionKind(gvk)
		if err := informers.ForResource(operatorclient.GVR).Informer().GetIndexer().Add(cached); err != nil {
			t.Fatal(err)
		}
		if _, _, err := v1helpers.UpdateStatus(ctx, dynamicClient, v1helpers.UpdateConditionFn(condition("UpdaterDegraded", operatorv1.ConditionFalse))); err != nil {
			t.Fatal(err)
		}
		after := live()
		if slices.Equal(after.Status.SchedulerNames, before.Status.SchedulerNames) {
			t.Fatalf("library-go's dynamic client kept schedulerNames %v: the interleaving no longer reproduces the bug", after.Status.SchedulerNames)
		}
		t.Logf("library-go's dynamic client wrote schedulerNames %v back over %v", after.Status.SchedulerNames, before.Status.SchedulerNames)
	})
}

// TestOwnStatusIsNotSentAgainWhileTheCacheIsBehind: the syncs that the
// Deployment's events bring right after a status apply find the cache without
// that apply. The operator's client compares with what its write returned
// until the cache catches up, and with the cache again once it holds a newer
// version, so another writer's change is still put right.
func TestOwnStatusIsNotSentAgainWhileTheCacheIsBehind(t *testing.T) {
	ctx := context.Background()
	_, clients, requests, live := statusWriters(t)
	c := newStaleClient(t, clients)
	c.setCache(live())
	apply := func(configHash string) bool {
		t.Helper()
		applied, err := c.ApplyStatus(ctx, targetconfigcontroller.FieldManager, rolloutRecord(configHash, "secondary-scheduler"))
		if err != nil {
			t.Fatal(err)
		}
		return applied
	}
	if !apply("h1") {
		t.Fatal("the first apply of h1 sent nothing")
	}

	requests.Reset()
	if apply("h1") {
		t.Error("h1 was applied again while the cache still held the version before it")
	}
	if n := requests.Writes(); n != 0 {
		t.Errorf("%d writes of a status already written: %v", n, requests.WriteRequests())
	}
	if !apply("h2") {
		t.Error("h2, a change, was not sent")
	}

	// Another writer takes configHash; once the cache holds that version, the
	// controller's next apply takes it back.
	if _, err := framework.Shared(t).Admin.Operator.OperatorV1().SecondarySchedulers().ApplyStatus(ctx, secondaryschedulerapply.SecondaryScheduler(secondaryschedulerv1.SingletonName).
		WithStatus(secondaryschedulerapply.SecondarySchedulerStatus().WithConfigHash("someone-else's")),
		metav1.ApplyOptions{FieldManager: "someone-else", Force: true}); err != nil {
		t.Fatal(err)
	}
	c.setCache(live())
	if !apply("h2") {
		t.Error("the other writer's configHash, in a cache newer than the controller's write, was not put right")
	}
	if got := live().Status.ConfigHash; got != "h2" {
		t.Errorf("status.configHash = %q, want h2", got)
	}
}
