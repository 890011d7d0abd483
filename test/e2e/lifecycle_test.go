package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestManagementStateTransitions walks every managementState transition with
// the real controller-manager: Unmanaged leaves a hand edit alone and Managed
// repairs it; Removed deletes everything the operator owns but the user's
// ConfigMap; Unmanaged after Removed creates nothing; Managed brings back
// exactly what was owned before.
func TestManagementStateTransitions(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	owned, user := c.faultBaseline(ctx, t)
	setState := func(state operatorv1.ManagementState) {
		c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.ManagementState = state })
	}
	deployments := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace)
	replicas := func() (int32, error) {
		d, err := deployments.Get(ctx, names.OperandName, metav1.GetOptions{})
		if err != nil {
			return 0, err
		}
		return ptr.Deref(d.Spec.Replicas, 1), nil
	}
	want, err := replicas()
	if err != nil {
		t.Fatal(err)
	}

	// Managed → Unmanaged: a hand edit stays.
	setState(operatorv1.Unmanaged)
	// Unmanaged is in force once the operator has stopped writing.
	c.waitOperatorQuiet(t, time.Now(), 2*time.Second)
	scaled := want + 2
	if _, err := deployments.Patch(ctx, names.OperandName, "application/merge-patch+json",
		[]byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, scaled)), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Consistently(ctx, t, 5*time.Second, "the hand edit to stay while Unmanaged", func() (bool, error) {
		got, err := replicas()
		return got == scaled, err
	})

	// Unmanaged → Managed: repaired.
	setState(operatorv1.Managed)
	c.waitReconciled(t)
	if got, err := replicas(); err != nil || got != want {
		t.Fatalf("Managed again: %d replicas (%v), want %d", got, err, want)
	}

	// Managed → Removed: nothing owned is left, the user's ConfigMap is.
	setState(operatorv1.Removed)
	c.waitNothingOwned(ctx, t, nil)
	c.userConfigIntact(ctx, t, user)

	// Removed → Unmanaged: nothing is created.
	setState(operatorv1.Unmanaged)
	framework.Consistently(ctx, t, 5*time.Second, "nothing to be created while Unmanaged after Removed", func() (bool, error) {
		objects, configMaps := c.ownedObjects(ctx, t)
		if len(objects)+len(configMaps) > 0 {
			return false, fmt.Errorf("created: %v %v", objects, configMaps)
		}
		return true, nil
	})

	// Unmanaged → Managed: exactly what was owned before.
	setState(operatorv1.Managed)
	c.waitReconciled(t)
	c.checkOwned(ctx, t, owned)
	c.checkOneSchedulerPod(ctx, t)
	c.userConfigIntact(ctx, t, user)
}

// TestDriftOfEachKindIsRepaired deletes each object the operator owns, one at a
// time, with the real controller-manager and garbage collector running, and
// waits until it exists again (a new UID) and everything has converged.
func TestDriftOfEachKindIsRepaired(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	_, user := c.editEachOwned(t, "drift: each owned object deleted", func(kind, name string) func() error {
		args := []string{strings.ToLower(kind), name, "-n", names.OperandNamespace}
		uid, err := c.kubectl(append([]string{"get", "-o", "jsonpath={.metadata.uid}"}, args...)...)
		if err != nil {
			t.Fatalf("%s/%s: %v", kind, name, err)
		}
		if out, err := c.kubectl(append([]string{"delete", "--wait=false"}, args...)...); err != nil {
			t.Fatalf("deleting %s/%s: %v\n%s", kind, name, err, out)
		}
		return func() error {
			again, err := c.kubectl(append([]string{"get", "-o", "jsonpath={.metadata.uid}"}, args...)...)
			if err != nil || again == uid {
				return fmt.Errorf("not created again: uid %q (%v)", again, err)
			}
			return nil
		}
	})
	c.checkOneSchedulerPod(ctx, t)
	c.userConfigIntact(ctx, t, user)
}
