package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics/legacyregistry"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/unservedpodscontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestUnservedPods: envtest runs no scheduler, so every pod stays Pending, as
// one whose schedulerName nobody serves does. Under the shipped RBAC, the
// operator warns on a pod with a mistyped schedulerName (naming the closest
// served name), counts it in the metric and the PodsUnserved condition, forgets
// it once it is deleted, and reports pods of its own profile while the
// scheduler has no available pod, with the distinct reason. Pods of the default
// scheduler are not its business.
func TestUnservedPods(t *testing.T) {
	opts := operator.DefaultOptions()
	opts.UnservedPodGrace = 2 * time.Second
	o := startOperatorWith(t, opts)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})
	o.setDeploymentStatus(t, framework.RolloutComplete)
	ctx := context.Background()
	o.waitForStatus(t, "the served schedulerNames in status", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
		return len(s.SchedulerNames) > 0, s.SchedulerNames
	})
	ns := o.env.CreateNamespace(t, "unserved")
	pod := func(name, scheduler string) *corev1.Pod {
		p, err := o.admin.Kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{SchedulerName: scheduler,
				Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	typo := pod("typo", "secondary-schedular")
	plain := pod("plain", corev1.DefaultSchedulerName)

	o.waitForPodEvent(t, ns, typo.Name, unservedpodscontroller.ReasonNoSuchScheduler, `did you mean "secondary-scheduler"?`)
	o.waitForUnserved(t, operatorv1.ConditionTrue, unservedpodscontroller.ReasonNoSuchScheduler, ns+"/typo")
	// The name served has a series, 0 included.
	expectUnservedMetric(t, map[string]int{"secondary-schedular": 1, "secondary-scheduler": 0})
	if c := o.condition(t, unservedpodscontroller.ConditionType); strings.Contains(c.Message, "plain") {
		t.Errorf("a default-scheduler pod is reported: %s", c.Message)
	}

	if err := o.admin.Kube.CoreV1().Pods(ns).Delete(ctx, typo.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	o.waitForUnserved(t, operatorv1.ConditionFalse, "AsExpected", "")
	expectUnservedMetric(t, map[string]int{"secondary-scheduler": 0})

	// Our own profile while the scheduler has no available pod.
	ours := pod("ours", "secondary-scheduler")
	framework.Consistently(ctx, t, 4*time.Second, "a pod of a served profile with a running scheduler to be left alone", func() (bool, error) {
		if c := o.condition(t, unservedpodscontroller.ConditionType); c == nil || c.Status != operatorv1.ConditionFalse {
			return false, fmt.Errorf("condition %+v", c)
		}
		return true, nil
	})
	o.setDeploymentStatus(t, func(d *appsv1.Deployment) {
		d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1, UnavailableReplicas: 1}
	})
	o.waitForPodEvent(t, ns, ours.Name, unservedpodscontroller.ReasonSchedulerDown, "no available pod")
	o.waitForUnserved(t, operatorv1.ConditionTrue, unservedpodscontroller.ReasonSchedulerDown, ns+"/ours")
	expectUnservedMetric(t, map[string]int{"secondary-scheduler": 1})

	// The default scheduler's pod was never warned about.
	events, err := o.admin.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + plain.Name})
	if err != nil {
		t.Fatal(err)
	}
	if len(events.Items) > 0 {
		t.Errorf("events on the default scheduler's pod: %+v", events.Items)
	}
}

func (o *operatorUnderTest) waitForUnserved(t *testing.T, status operatorv1.ConditionStatus, reason, fragment string) {
	t.Helper()
	framework.WaitFor(context.Background(), t, fmt.Sprintf("%s=%s %s", unservedpodscontroller.ConditionType, status, reason), func() (bool, error) {
		c := o.condition(t, unservedpodscontroller.ConditionType)
		if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, fragment) {
			return false, fmt.Errorf("condition %+v", c)
		}
		return true, nil
	})
}

// waitForPodEvent waits for a Warning of this reason on the pod, with fragment
// in its message.
func (o *operatorUnderTest) waitForPodEvent(t *testing.T, ns, pod, reason, fragment string) {
	t.Helper()
	framework.WaitFor(context.Background(), t, "Warning "+reason+" on pod "+pod, func() (bool, error) {
		return framework.FindEvent(context.Background(), o.admin.Kube, ns, "involvedObject.kind=Pod,involvedObject.name="+pod,
			corev1.EventTypeWarning, reason, fragment)
	})
}

// expectUnservedMetric checks unserved_pods in the operator's registry (it runs
// in this process): exactly the series of want.
func expectUnservedMetric(t *testing.T, want map[string]int) {
	t.Helper()
	got := gauges(t, "secondary_scheduler_operator_unserved_pods", "scheduler_name")
	if len(got) != len(want) {
		t.Errorf("unserved_pods %v, want %v", got, want)
	}
	for name, n := range want {
		if got[name] != float64(n) {
			t.Errorf("unserved_pods{scheduler_name=%q} = %v, want %d (all: %v)", name, got[name], n, got)
		}
	}
}

// gauges reads the series of a gauge from the operator's registry (it runs in
// this process), by the value of one label ("" for a gauge without labels).
func gauges(t *testing.T, name, label string) map[string]float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			key := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					key = l.GetValue()
				}
			}
			out[key] = m.GetGauge().GetValue()
		}
	}
	return out
}
