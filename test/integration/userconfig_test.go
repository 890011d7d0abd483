package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestUsersConfigMapIsNeverDeleted: the OpenShift docs have users name their
// ConfigMap secondary-scheduler-config, the name the operator's own had
// before configurations were named by their hash. Deleting the operator's
// config ConfigMaps (Removed, the SecondaryScheduler deleted) must never take
// the user's with them, even when it carries the operator's label, as a copy
// of an earlier release's ConfigMap would.
func TestUsersConfigMapIsNeverDeleted(t *testing.T) {
	o := startOperator(t)
	ctx := context.Background()
	const name = names.ConfigMapName
	config := baseConfig + "- schedulerName: docs-scheduler\n"
	for _, tc := range []struct {
		name   string
		labels map[string]string
	}{
		{"unlabelled", nil},
		{"labelled like the operator's own", map[string]string{names.ManagedByLabel: names.ManagedByValue}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Cleanup(func() {
				_ = o.admin.Kube.CoreV1().ConfigMaps(operandNS).Delete(context.Background(), name, metav1.DeleteOptions{})
			})
			o.writeConfigMap(t, name, tc.labels, config)
			written, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			// Nothing may write it either: its resourceVersion stays.
			survives := func(step string) {
				t.Helper()
				cm, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatalf("%s: the user's ConfigMap %s: %v", step, name, err)
				}
				if cm.ResourceVersion != written.ResourceVersion || cm.Data[names.ConfigKey] != config {
					t.Fatalf("%s: the user's ConfigMap was changed (resourceVersion %s, was %s):\n%s",
						step, cm.ResourceVersion, written.ResourceVersion, cm.Data[names.ConfigKey])
				}
			}
			// The operator's config ConfigMaps: the user's is no longer one of
			// them, whatever its name and label.
			operatorConfigMaps := func() ([]string, error) {
				names, err := o.configMapNames(ctx)
				return slices.DeleteFunc(names, func(n string) bool { return n == name }), err
			}
			running := func(step string) {
				t.Helper()
				framework.WaitFor(ctx, t, step+": the Deployment to run the user's configuration", func() (bool, error) {
					ss, err := o.get(ctx)
					if err != nil {
						return false, err
					}
					if !slices.Contains(ss.Status.SchedulerNames, "docs-scheduler") {
						return false, fmt.Errorf("schedulerNames %v", ss.Status.SchedulerNames)
					}
					d, err := o.admin.Kube.AppsV1().Deployments(operandNS).Get(ctx, operand, metav1.GetOptions{})
					if err != nil {
						return false, err
					}
					mounted := configMapOf(d)
					return satisfied(mounted == names.ConfigMapNameFor(ss.Status.ConfigHash) && mounted != name, mounted)
				})
				survives(step)
			}
			removed := func(step string) {
				t.Helper()
				framework.WaitFor(ctx, t, step+": the Deployment and the operator's config ConfigMaps to be deleted", func() (bool, error) {
					_, err := o.admin.Kube.AppsV1().Deployments(operandNS).Get(ctx, operand, metav1.GetOptions{})
					if !apierrors.IsNotFound(err) {
						return false, fmt.Errorf("the Deployment: %v", err)
					}
					names, err := operatorConfigMaps()
					return satisfied(err == nil && len(names) == 0, fmt.Sprintf("%v (%v)", names, err))
				})
				survives(step)
			}

			o.env.CreateSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: name})
			running("Managed")
			o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = operatorv1.Removed })
			removed("Removed")
			o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = operatorv1.Managed })
			running("Managed again")
			if err := o.admin.Operator.OperatorV1().SecondarySchedulers().Delete(ctx, secondaryschedulerv1.SingletonName, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			framework.WaitFor(ctx, t, "the SecondaryScheduler to be finalized and gone", func() (bool, error) {
				_, err := o.get(ctx)
				return apierrors.IsNotFound(err), nil
			})
			removed("SecondaryScheduler deleted")
		})
	}
}
