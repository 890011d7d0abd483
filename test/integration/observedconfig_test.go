package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

func TestObservedClusterConfigRollsTheOperand(t *testing.T) {
	o := startOperator(t)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})
	ctx := context.Background()
	openshift := o.admin.OpenShift.ConfigV1()
	t.Cleanup(func() {
		_ = openshift.APIServers().Delete(context.Background(), "cluster", metav1.DeleteOptions{})
		_ = openshift.Schedulers().Delete(context.Background(), "cluster", metav1.DeleteOptions{})
	})

	t.Run("without an APIServer object the Intermediate TLS profile applies", func(t *testing.T) {
		framework.WaitFor(ctx, t, "--tls-min-version=VersionTLS12", func() (bool, error) {
			args := o.deployment(t).Spec.Template.Spec.Containers[0].Args
			return satisfied(slices.Contains(args, "--tls-min-version=VersionTLS12"), args)
		})
	})

	t.Run("the Modern TLS profile", func(t *testing.T) {
		before, _ := o.settled(t)
		_, err := openshift.APIServers().Create(ctx, &configv1.APIServer{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
			Spec: configv1.APIServerSpec{TLSSecurityProfile: &configv1.TLSSecurityProfile{
				Type: configv1.TLSProfileModernType, Modern: &configv1.ModernTLSProfile{},
			}},
		}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		after := o.waitForRollout(t, before, "the TLS profile to roll the Deployment")
		args := after.Spec.Template.Spec.Containers[0].Args
		if !slices.Contains(args, "--tls-min-version=VersionTLS13") {
			t.Errorf("args %v lack --tls-min-version=VersionTLS13", args)
		}
	})

	t.Run("the HighNodeUtilization scheduler profile", func(t *testing.T) {
		before, _ := o.settled(t)
		_, err := openshift.Schedulers().Create(ctx, &configv1.Scheduler{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
			Spec:       configv1.SchedulerSpec{Profile: configv1.HighNodeUtilization},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o.waitForRollout(t, before, "the scheduler profile to roll the Deployment")
		framework.WaitFor(ctx, t, "MostAllocated scoring in the merged config", func() (bool, error) {
			cm, err := o.mountedConfig(ctx, o.deployment(t))
			if err != nil {
				return false, err
			}
			config := cm.Data[names.ConfigKey]
			return satisfied(strings.Contains(config, "MostAllocated"), fmt.Sprintf("config.yaml:\n%s", config))
		})
	})
}
