package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestUsersServiceNamedLikeASimulatorIsLeftAlone: on the full stack, a
// user's Service that takes a Simulator's name, labelled as the operator
// labels its own, is never adopted, updated or deleted by the operator
// binary: the Simulator says NameConflict, and once the user deletes their
// Service the Simulator gets its own.
func TestUsersServiceNamedLikeASimulatorIsLeftAlone(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	ns := c.createNamespace(t, "sim-conflict")
	const name = "taken"
	theirs, err := c.admin.Kube.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"app": "theirs", simulatorrender.SimulatorLabel: name, simulatorcontroller.ManagedByLabel: simulatorcontroller.ManagedByValue,
		}},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "theirs"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sims := c.admin.Operator.SimulationV1alpha1().Simulators(ns)
	if _, err := sims.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the Simulator to report the name conflict", func() (bool, error) {
		sim, err := sims.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond := meta.FindStatusCondition(sim.Status.Conditions, simulatorcontroller.ConditionDegraded)
		if cond == nil || cond.Reason != simulatorcontroller.ReasonNameConflict {
			return false, fmt.Errorf("Degraded %+v", cond)
		}
		if !strings.Contains(cond.Message, "Service "+name) {
			t.Fatalf("NameConflict does not name the Service: %s", cond.Message)
		}
		return true, nil
	})
	framework.ServiceUntouched(ctx, t, c.admin.Kube, theirs, 3*time.Second)
	if err := c.admin.Kube.CoreV1().Services(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the Simulator's own Service once the name is free", func() (bool, error) {
		svc, err := c.admin.Kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if len(svc.OwnerReferences) != 1 || svc.OwnerReferences[0].Kind != "Simulator" {
			return false, fmt.Errorf("owners %v", svc.OwnerReferences)
		}
		return true, nil
	})
}
