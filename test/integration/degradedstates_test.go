package integration

import (
	"context"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestManagementStatesFromDegraded: from a Degraded state (a refused user
// config), Removed clears the complaint (nothing runs, so the ClusterOperator
// alert must not keep firing), Unmanaged reports Unknown, and Managed or Force
// (which the operator treats as Managed) bring the complaint back until the
// input is fixed.
func TestManagementStatesFromDegraded(t *testing.T) {
	o := startOperator(t)
	o.setUserConfig(t, "profiles: [null]\n")
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: userConfig})
	o.waitForDegraded(t, operatorv1.ConditionTrue, "profiles[0]: null entry")
	// kubectl describe secondaryscheduler cluster shows why.
	o.waitForEvent(t, corev1.EventTypeWarning, "InvalidInput", "profiles[0]: null entry")

	setState := func(state operatorv1.ManagementState) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = state })
	}
	waitConditions := func(desc string, want map[string]operatorv1.ConditionStatus, reason string) {
		t.Helper()
		framework.WaitFor(context.Background(), t, desc, func() (bool, error) {
			for condType, status := range want {
				c := o.condition(t, condType)
				if c == nil || c.Status != status {
					return false, fmt.Errorf("%s is %+v, want %s", condType, c, status)
				}
			}
			if c := o.condition(t, targetconfigcontroller.ConditionType); reason != "" && c.Reason != reason {
				return false, fmt.Errorf("%s has reason %q, want %q", c.Type, c.Reason, reason)
			}
			return true, nil
		})
	}

	setState(operatorv1.Removed)
	waitConditions("Removed to clear Degraded", map[string]operatorv1.ConditionStatus{
		targetconfigcontroller.ConditionType: operatorv1.ConditionFalse, "Degraded": operatorv1.ConditionFalse,
	}, "Removed")

	setState(operatorv1.Managed)
	o.waitForDegraded(t, operatorv1.ConditionTrue, "profiles[0]: null entry")
	waitConditions("Managed with the bad input to be Degraded again", map[string]operatorv1.ConditionStatus{
		"Degraded": operatorv1.ConditionTrue,
	}, "InvalidInput")

	setState(operatorv1.Unmanaged)
	waitConditions("Unmanaged to report Unknown", map[string]operatorv1.ConditionStatus{
		"Degraded": operatorv1.ConditionUnknown,
	}, "")

	setState(operatorv1.Force)
	waitConditions("Force with the bad input to be Degraded again", map[string]operatorv1.ConditionStatus{
		"Degraded": operatorv1.ConditionTrue,
	}, "InvalidInput")

	setState(operatorv1.Managed)
	o.setUserConfig(t, "profiles:\n- schedulerName: fixed\n")
	waitConditions("the fixed input to clear Degraded", map[string]operatorv1.ConditionStatus{
		targetconfigcontroller.ConditionType: operatorv1.ConditionFalse, "Degraded": operatorv1.ConditionFalse,
	}, "AsExpected")
	o.waitForEvent(t, corev1.EventTypeNormal, "Resolved", "InvalidInput no longer applies")
}

// waitForEvent waits for an event of this type and reason on the
// SecondaryScheduler whose message contains fragment.
func (o *operatorUnderTest) waitForEvent(t *testing.T, eventType, reason, fragment string) {
	t.Helper()
	ctx := context.Background()
	framework.WaitFor(ctx, t, eventType+" event "+reason+" on the SecondaryScheduler", func() (bool, error) {
		ss, err := o.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, secondaryschedulerv1.SingletonName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return framework.FindEvent(ctx, o.admin.Kube, metav1.NamespaceDefault,
			"involvedObject.kind=SecondaryScheduler,involvedObject.uid="+string(ss.UID), eventType, reason, fragment)
	})
}
