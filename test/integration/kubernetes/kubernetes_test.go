// Package kubernetes runs the operator on plain Kubernetes: no ClusterOperator,
// APIServer or Scheduler API. It must work, report on the SecondaryScheduler and
// not loop on what is missing.
package kubernetes

import (
	"context"
	"fmt"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

func TestMain(m *testing.M) {
	framework.RunMain(m, framework.Options{WithoutOpenShiftCRDs: true})
}

func TestOperatorOnPlainKubernetes(t *testing.T) {
	env := framework.Shared(t)
	if env.OpenShiftCRDs {
		t.Fatal("this package must run without the OpenShift CRDs")
	}
	cfg, requests := framework.CountRequests(env.OperatorConfig(t))
	framework.RunOperator(t, cfg)
	ctx := context.Background()
	admin := env.Admin
	env.CreateSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})

	var d *appsv1.Deployment
	framework.WaitFor(ctx, t, "the operand Deployment", func() (bool, error) {
		var err error
		d, err = admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
		return err == nil, nil
	})
	for _, arg := range d.Spec.Template.Spec.Containers[0].Args {
		if len(arg) > 17 && arg[:17] == "--tls-min-version" {
			t.Errorf("on Kubernetes nothing is observed, yet the scheduler got %s", arg)
		}
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if _, err := admin.Kube.AppsV1().Deployments(names.OperandNamespace).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(ctx, t, "Available=True, Progressing=False, Degraded=False on the SecondaryScheduler", func() (bool, error) {
		ss, err := admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for conditionType, want := range map[string]operatorv1.ConditionStatus{"Available": "True", "Progressing": "False", "Degraded": "False"} {
			if c := v1helpers.FindOperatorCondition(ss.Status.Conditions, conditionType); c == nil || c.Status != want {
				return false, fmt.Errorf("%s is %+v", conditionType, c)
			}
		}
		return true, nil
	})

	// Nothing missing may make it loop: once converged it sends nothing at all.
	framework.WaitFor(ctx, t, "the operator to converge", func() (bool, error) {
		requests.Reset()
		time.Sleep(3 * time.Second)
		return requests.Writes() == 0, nil
	})
	requests.Reset()
	framework.Consistently(ctx, t, 10*time.Second, "no write in 10 s after convergence", requests.NoWrites)
	t.Logf("requests in 10 s after convergence: %v", requests.Counts())
}
