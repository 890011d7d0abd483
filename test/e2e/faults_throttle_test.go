package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The operator's ServiceAccount, as API Priority and Fairness matches it.
var operatorSubject = flowcontrolv1.Subject{
	Kind:           flowcontrolv1.SubjectKindServiceAccount,
	ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Namespace: operatorLeaseNamespace, Name: "secondary-scheduler-operator"},
}

// starveOperator gives the operator's ServiceAccount a priority level of no
// seats, which API Priority and Fairness serves one request at a time (a
// request is dispatched only when none runs) and refuses (429) the rest, and
// keeps that one seat busy with requests of its own as the ServiceAccount, so
// that most of the operator's requests are refused. Its lease keeps the usual
// priority level: the operator is throttled, not deposed. It returns a
// function that lifts the throttle.
func (c *cluster) starveOperator(t *testing.T) (lift func()) {
	t.Helper()
	ctx := context.Background()
	fc := c.admin.Kube.FlowcontrolV1()
	const name = "e2e-operator-starved"
	level := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
			Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
				// No seat of its own and none to borrow: every request is refused.
				NominalConcurrencyShares: ptr.To[int32](0),
				LendablePercent:          ptr.To[int32](0),
				BorrowingLimitPercent:    ptr.To[int32](0),
				LimitResponse:            flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
			},
		},
	}
	leases := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-leases"},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "leader-election"},
			MatchingPrecedence:         90,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{operatorSubject},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"*"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
					Namespaces: []string{"*"},
				}},
			}},
		},
	}
	starved := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: name},
			MatchingPrecedence:         100,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects: []flowcontrolv1.Subject{operatorSubject},
				ResourceRules: []flowcontrolv1.ResourcePolicyRule{{
					Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
					ClusterScope: true, Namespaces: []string{"*"},
				}},
			}},
		},
	}
	if _, err := fc.PriorityLevelConfigurations().Create(ctx, level, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, fs := range []*flowcontrolv1.FlowSchema{leases, starved} {
		if _, err := fc.FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The API server applies a new FlowSchema a moment after it is written:
	// wait until a request as the operator is classified into the level.
	created, err := fc.PriorityLevelConfigurations().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	as := rest.CopyConfig(c.config)
	as.Impersonate = rest.ImpersonationConfig{UserName: serviceaccount.MakeUsername(operatorSubject.ServiceAccount.Namespace, operatorSubject.ServiceAccount.Name)}
	as.QPS, as.Burst = -1, 0 // no client-side limit: the hog must keep the seat busy
	probe, err := kubernetes.NewForConfig(as)
	if err != nil {
		t.Fatal(err)
	}
	httpClient, err := rest.HTTPClientFor(as)
	if err != nil {
		t.Fatal(err)
	}
	probeURL := as.Host + "/api/v1/namespaces/" + names.OperandNamespace + "/configmaps"
	framework.WaitForWithin(ctx, t, time.Minute, "API Priority and Fairness to classify the operator's requests into "+name, func() (bool, error) {
		resp, err := httpClient.Get(probeURL)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		// The response names the priority level that served it, by UID.
		if level := resp.Header.Get("X-Kubernetes-PF-PriorityLevel-UID"); level != string(created.UID) {
			return false, fmt.Errorf("served at priority level %q (%s)", level, resp.Status)
		}
		return true, nil
	})
	hogCtx, stopHog := context.WithCancel(ctx)
	var hogs sync.WaitGroup
	for range 4 {
		hogs.Add(1)
		go func() {
			defer hogs.Done()
			for hogCtx.Err() == nil {
				_ = probe.CoreV1().RESTClient().Get().Namespace(names.OperandNamespace).Resource("configmaps").MaxRetries(0).Do(hogCtx).Error()
			}
		}()
	}
	lifted := false
	lift = func() {
		if lifted {
			return
		}
		lifted = true
		stopHog()
		hogs.Wait()
		for _, fs := range []string{starved.Name, leases.Name} {
			if err := fc.FlowSchemas().Delete(ctx, fs, metav1.DeleteOptions{}); err != nil {
				t.Errorf("deleting FlowSchema %s: %v", fs, err)
			}
		}
		if err := fc.PriorityLevelConfigurations().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("deleting PriorityLevelConfiguration %s: %v", name, err)
		}
	}
	t.Cleanup(lift)
	return lift
}

// TestFaultAPIThrottled: API Priority and Fairness refuses most requests of
// the operator (all but those for its lease are throttled) while it rolls out
// a spec change. The operator backs off instead of looping (the API server's
// audit log counts its requests, refused ones included), keeps its lease, and
// has the change rolled out once the throttle is lifted (measured).
func TestFaultAPIThrottled(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	owned, user := c.faultBaseline(ctx, t)
	leader, err := c.leaseHolder(ctx)
	if err != nil {
		t.Fatal(err)
	}

	lift := c.starveOperator(t)
	throttled := time.Now()
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.LogLevel = operatorv1.Debug })
	const window = 30 * time.Second
	time.Sleep(window)
	during := c.operatorRequests(t, throttled)
	refused := 0
	for _, ev := range during {
		if ev.ResponseStatus != nil && ev.ResponseStatus.Code == 429 {
			refused++
		}
	}
	perSecond := float64(len(during)) / time.Since(throttled).Seconds()
	t.Logf("FAULT throttled: in %s the operator sent %d requests (%.1f/s), %d refused with 429: %s",
		time.Since(throttled).Round(time.Second), len(during), perSecond, refused, requestsByKind(during))
	// client-go waits out Retry-After and the controllers' queues back off
	// exponentially; a hot loop would send hundreds a second.
	if refused == 0 {
		t.Fatal("the API server refused none of the operator's requests: the throttle did not hold, or the operator did not try")
	}
	if perSecond > 10 {
		t.Errorf("the throttled operator sent %.1f requests a second: a hot loop", perSecond)
	}
	if holder, err := c.leaseHolder(ctx); err != nil || holder != leader {
		t.Fatalf("the lease went from %q to %q (%v) while the operator was throttled", leader, holder, err)
	}

	lift()
	lifted := time.Now()
	c.waitReconciled(t)
	t.Logf("FAULT throttled: the change made while throttled was rolled out %s after the throttle was lifted",
		time.Since(lifted).Round(time.Millisecond))
	c.checkOwned(ctx, t, owned)
	c.checkOneSchedulerPod(ctx, t)
	c.userConfigIntact(ctx, t, user)
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.LogLevel = operatorv1.Normal })
	c.waitReconciled(t)
}
