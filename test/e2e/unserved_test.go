package e2e

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/unservedpodscontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestUnservedPods, with the operator started by hack/test-e2e.sh with
// --unserved-pod-grace=5s:
//
//   - a pod with a mistyped schedulerName gets a Warning naming the closest
//     served name, and is counted in unserved_pods and the PodsUnserved
//     condition; deleting it (a schedulerName cannot change) clears both;
//   - with the operand's scheduler stopped (every node cordoned, its pod
//     deleted), a pod of our own profile counts as unserved, reason SchedulerDown.
func TestUnservedPods(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	ns := c.binPackingRolledOut(t, "e2e-unserved")

	typo := c.createPod(t, ns, "typo", "secondary-schedular")
	c.waitPodWarning(t, ns, typo, unservedpodscontroller.ReasonNoSuchScheduler, `did you mean "secondary-scheduler"?`)
	c.waitUnserved(t, "True", unservedpodscontroller.ReasonNoSuchScheduler, ns+"/"+typo)
	c.waitMetric(t, `secondary_scheduler_operator_unserved_pods{scheduler_name="secondary-schedular"} 1`, true)

	if err := c.admin.Kube.CoreV1().Pods(ns).Delete(ctx, typo, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	c.waitUnserved(t, "False", "AsExpected", "")
	c.waitMetric(t, `secondary_scheduler_operator_unserved_pods{scheduler_name="secondary-schedular"}`, false)

	// Stop the scheduler: no node takes its replacement pod.
	c.cordonAll(t, true)
	t.Cleanup(func() {
		c.cordonAll(t, false)
		c.waitReconciled(t)
	})
	c.deleteRunningOperandPods(t)
	ours := c.createPod(t, ns, "ours", "secondary-scheduler")
	c.waitPodWarning(t, ns, ours, unservedpodscontroller.ReasonSchedulerDown, "no available pod")
	c.waitUnserved(t, "True", unservedpodscontroller.ReasonSchedulerDown, ns+"/"+ours)
	c.waitMetric(t, `secondary_scheduler_operator_unserved_pods{scheduler_name="secondary-scheduler"} 1`, true)
}

func (c *cluster) waitPodWarning(t *testing.T, ns, pod, reason, fragment string) {
	t.Helper()
	framework.WaitForWithin(context.Background(), t, time.Minute, "Warning "+reason+" on pod "+pod, func() (bool, error) {
		return framework.FindEvent(context.Background(), c.admin.Kube, ns, "involvedObject.kind=Pod,involvedObject.name="+pod,
			corev1.EventTypeWarning, reason, fragment)
	})
}

func (c *cluster) waitUnserved(t *testing.T, status, reason, fragment string) {
	t.Helper()
	framework.WaitForWithin(context.Background(), t, time.Minute, unservedpodscontroller.ConditionType+"="+status, func() (bool, error) {
		ss, err := c.getCR(context.Background())
		if err != nil {
			return false, err
		}
		cond := condition(ss.Status.Conditions, unservedpodscontroller.ConditionType)
		if cond == nil || string(cond.Status) != status || cond.Reason != reason || !strings.Contains(cond.Message, fragment) {
			return false, fmt.Errorf("condition %+v", cond)
		}
		return true, nil
	})
}

// waitMetric waits until the operator's /metrics (read with the admin's client
// certificate) has a line starting with series, or has none.
func (c *cluster) waitMetric(t *testing.T, series string, present bool) {
	t.Helper()
	client := c.adminMetricsClient(t)
	line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series))
	framework.WaitForWithin(context.Background(), t, time.Minute, fmt.Sprintf("%s on /metrics: %v", series, present), func() (bool, error) {
		code, body := get(t, client, "https://"+c.operatorAddress+"/metrics", "")
		if code != http.StatusOK {
			return false, fmt.Errorf("GET /metrics: %d", code)
		}
		if line.MatchString(body) != present {
			return false, fmt.Errorf("/metrics has:\n%s", grepLines(body, "unserved_pods"))
		}
		return true, nil
	})
}
