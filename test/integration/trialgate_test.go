package integration

import (
	"context"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// A Deployment deleted while a change is held for a trial (no kubelet here:
// the trial stays running) comes back at the last known good configuration,
// still held under the same request, and so does it after a Removed/Managed
// round trip: neither is a way around the gate.
func TestDeletedDeploymentComesBackAsItLastRan(t *testing.T) {
	o := startOperator(t)
	t.Cleanup(func() { deleteSecondaryScheduler(t, o) })
	t.Cleanup(func() { _ = o.admin.DeleteSchedulerPods(context.Background()) })
	o.setUserConfig(t, baseConfig)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: userConfig,
		Rollout: &secondaryschedulerv1.RolloutPolicy{Strategy: secondaryschedulerv1.RolloutTrial}})
	d, _ := o.settled(t)
	good := framework.RolloutOf(d)
	o.admin.AddTemplatePod(t, "good", d, framework.RunningStatus())
	o.admin.SetRolloutStatus(t, good, framework.RolloutComplete)
	o.waitForStatus(t, "status.lastKnownGood", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
		return s.LastKnownGood != nil && *s.LastKnownGood == good, s.LastKnownGood
	})

	o.setUserConfig(t, baseConfig+"percentageOfNodesToScore: 50\n")
	held := o.waitForStatus(t, "the change held for a trial", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
		return s.TrialRequest != nil && s.TrialRequest.Candidate.ConfigHash != good.ConfigHash, s.TrialRequest
	}).TrialRequest

	stillHeld := func(t *testing.T, what string) {
		t.Helper()
		d := o.waitForTemplate(t, what, func(r secondaryschedulerv1.Rollout) bool { return r == good })
		if got := d.Spec.Template.Annotations[names.ConfigHashAnnotation]; got != good.ConfigHash {
			t.Errorf("config hash annotation %s, want %s", got, good.ConfigHash)
		}
		o.waitForStatus(t, "the change still held under the same request", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
			c := findCondition(s, targetconfigcontroller.ConditionType)
			return s.TrialRequest != nil && s.TrialRequest.Key == held.Key && c != nil && c.Reason == "HeldForTrial",
				fmt.Sprintf("request %+v, condition %+v", s.TrialRequest, c)
		})
	}
	deleteDeployment := func(t *testing.T) {
		t.Helper()
		err := o.admin.Kube.AppsV1().Deployments(operandNS).Delete(context.Background(), operand, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}

	t.Run("deleted", func(t *testing.T) {
		deleteDeployment(t)
		stillHeld(t, "the Deployment recreated at the last known good template")
	})
	t.Run("Removed, then Managed", func(t *testing.T) {
		o.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.ManagementState = operatorv1.Removed })
		framework.WaitFor(context.Background(), t, "the Deployment deleted under Removed", func() (bool, error) {
			_, err := o.admin.Kube.AppsV1().Deployments(operandNS).Get(context.Background(), operand, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		o.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.ManagementState = operatorv1.Managed })
		stillHeld(t, "the Deployment back at the last known good template")
	})
}

func findCondition(s *secondaryschedulerv1.SecondarySchedulerStatus, conditionType string) *operatorv1.OperatorCondition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == conditionType {
			return &s.Conditions[i]
		}
	}
	return nil
}
