package integration

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The trial controller on a real API server, under the operator's own RBAC
// (no kubelet here: a trial Pod never answers, so a trial stays running):
// an operator that stops mid-trial and cannot clean up (every request it
// sends from then on is cut, as for a killed process) leaves its trial's Pods,
// Secrets and NetworkPolicies; the operator started after it deletes them,
// and Unmanaged stops the trial it runs and leaves no trial object.
func TestTrialControllerCleansUpAfterARestartAndOnUnmanaged(t *testing.T) {
	env := framework.Shared(t)
	cfg := env.OperatorConfig(t)
	var cut atomic.Bool
	killed := rest.CopyConfig(cfg)
	killed.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if cut.Load() {
				return nil, errors.New("the operator process is gone")
			}
			return rt.RoundTrip(r)
		})
	})
	framework.RunOperator(t, killed)
	o := &operatorUnderTest{env: env, admin: env.Admin}
	o.setUserConfig(t, "profiles:\n- schedulerName: trial-restart\n")
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: userConfig})
	o.waitForStatus(t, "the first rollout", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
		return s.ConfigHash != "", s.ConfigHash
	})
	o.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.Rollout = &secondaryschedulerv1.RolloutPolicy{Strategy: secondaryschedulerv1.RolloutTrial}
	})
	o.setUserConfig(t, "profiles:\n- schedulerName: trial-restart\npercentageOfNodesToScore: 50\n")
	o.waitForStatus(t, "a trial request and its trial running", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
		return s.TrialRequest != nil && s.LastTrial != nil && s.LastTrial.Key == s.TrialRequest.Key &&
			s.LastTrial.Verdict == secondaryschedulerv1.TrialRunning, s.LastTrial
	})
	var left map[types.UID]string
	framework.WaitFor(context.Background(), t, "the three arms' Pod, Secret and NetworkPolicy", func() (bool, error) {
		var err error
		left, err = trialObjects(o)
		return len(left) == 3*3, err
	})

	cut.Store(true)
	framework.RunOperator(t, cfg)
	t.Cleanup(func() { deleteSecondaryScheduler(t, o) }) // while the restarted operator runs
	framework.WaitFor(context.Background(), t, "the stopped operator's trial objects to be gone", func() (bool, error) {
		now, err := trialObjects(o)
		for uid, what := range left {
			if _, ok := now[uid]; ok {
				return false, errors.New(what + " is still there")
			}
		}
		return err == nil, err
	})

	o.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.ManagementState = operatorv1.Unmanaged })
	framework.WaitFor(context.Background(), t, "no trial object under Unmanaged", func() (bool, error) {
		now, err := trialObjects(o)
		if len(now) > 0 {
			return false, errors.New("left: " + values(now))
		}
		return err == nil, err
	})
	// And none comes back while it stays Unmanaged.
	framework.Consistently(context.Background(), t, 2*time.Second, "no trial object while Unmanaged", func() (bool, error) {
		now, err := trialObjects(o)
		if len(now) > 0 {
			return false, errors.New("trial objects " + values(now))
		}
		return err == nil, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// trialObjects are the trial Pods, Secrets and NetworkPolicies of the operand
// namespace, by UID.
func trialObjects(o *operatorUnderTest) (map[types.UID]string, error) {
	ctx, kube := context.Background(), o.admin.Kube
	sel := metav1.ListOptions{LabelSelector: podruntime.Selector().String()}
	out := map[types.UID]string{}
	pods, err := kube.CoreV1().Pods(operandNS).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		out[p.UID] = "Pod " + p.Name
	}
	secrets, err := kube.CoreV1().Secrets(operandNS).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, s := range secrets.Items {
		out[s.UID] = "Secret " + s.Name
	}
	policies, err := kube.NetworkingV1().NetworkPolicies(operandNS).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	for _, p := range policies.Items {
		out[p.UID] = "NetworkPolicy " + p.Name
	}
	return out, nil
}

func values(m map[types.UID]string) string {
	s := ""
	for _, v := range m {
		s += v + "; "
	}
	return s
}

// deleteSecondaryScheduler deletes the SecondaryScheduler, Managed again so
// that the running operator finalizes it, and waits until it is gone.
func deleteSecondaryScheduler(t *testing.T, o *operatorUnderTest) {
	ctx := context.Background()
	client := o.admin.Operator.OperatorV1().SecondarySchedulers()
	if ss, err := client.Get(ctx, secondaryschedulerv1.SingletonName, metav1.GetOptions{}); err == nil && ss.Spec.ManagementState != operatorv1.Managed {
		ss.Spec.ManagementState = operatorv1.Managed
		_, _ = client.Update(ctx, ss, metav1.UpdateOptions{})
	}
	_ = client.Delete(ctx, secondaryschedulerv1.SingletonName, metav1.DeleteOptions{})
	framework.WaitFor(ctx, t, "the SecondaryScheduler to be finalized and gone", func() (bool, error) {
		_, err := client.Get(ctx, secondaryschedulerv1.SingletonName, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
