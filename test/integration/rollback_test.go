package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operandstatuscontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// This tier runs no kube-controller-manager and no kubelet: the tests below
// play them with the framework's operand helpers.

const (
	baseConfig = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: secondary-scheduler\n"
	// nopeConfig passes the operator's checks, but kube-scheduler refuses to
	// start with it: no plugin is called Nope.
	nopeConfig = baseConfig + "  plugins:\n    filter:\n      enabled: [{name: Nope}]\n"
	nopeError  = "plugin Nope does not exist"
)

// waitForTemplate waits until the Deployment's pod template is one that ok
// accepts and mounts the config ConfigMap of its own configuration.
func (o *operatorUnderTest) waitForTemplate(t *testing.T, desc string, ok func(r secondaryschedulerv1.Rollout) bool) *appsv1.Deployment {
	t.Helper()
	var d *appsv1.Deployment
	framework.WaitFor(context.Background(), t, desc, func() (bool, error) {
		var err error
		if d, err = o.admin.Kube.AppsV1().Deployments(operandNS).Get(context.Background(), operand, metav1.GetOptions{}); err != nil {
			return false, err
		}
		r := framework.RolloutOf(d)
		if name := configMapOf(d); name != names.ConfigMapNameFor(r.ConfigHash) {
			return false, fmt.Errorf("template %+v mounts ConfigMap %s", r, name)
		}
		return satisfied(ok(r), fmt.Sprintf("template %+v", r))
	})
	return d
}

// waitForNewConfig waits until status.configHash is none of before and the
// Deployment runs it.
func (o *operatorUnderTest) waitForNewConfig(t *testing.T, before ...string) *appsv1.Deployment {
	t.Helper()
	desired := o.waitForStatus(t, "a new status.configHash", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
		return s.ConfigHash != "" && !slices.Contains(before, s.ConfigHash), s.ConfigHash
	}).ConfigHash
	return o.waitForTemplate(t, "the Deployment to run configuration "+desired, func(r secondaryschedulerv1.Rollout) bool {
		return r.ConfigHash == desired
	})
}

// templateHistory records the configuration of every pod template the
// Deployment gets from now on until the test ends, "generation:config", to
// tell a rollback in one step from one that went back and forth.
func (o *operatorUnderTest) templateHistory(t *testing.T) func() []string {
	t.Helper()
	d := o.deployment(t)
	w, err := o.admin.Kube.AppsV1().Deployments(operandNS).Watch(context.Background(), metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", operand).String(),
		ResourceVersion: d.ResourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var history []string
	last := d.Generation
	framework.RunInBackground(t, func(ctx context.Context) {
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				if d, isDeployment := ev.Object.(*appsv1.Deployment); isDeployment && d.Generation > last {
					last = d.Generation
					mu.Lock()
					history = append(history, fmt.Sprintf("%d:%.12s", d.Generation, framework.RolloutOf(d).ConfigHash))
					mu.Unlock()
				}
			}
		}
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(history)
	}
}

func (o *operatorUnderTest) deletePod(t *testing.T, name string, gracePeriod *int64) {
	t.Helper()
	err := o.admin.Kube.CoreV1().Pods(operandNS).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: gracePeriod})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFailedRolloutIsRolledBack(t *testing.T) {
	o := startOperator(t)
	o.setUserConfig(t, baseConfig)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: userConfig})
	t.Cleanup(func() { _ = o.admin.DeleteSchedulerPods(context.Background()) })
	o.waitForDegraded(t, operatorv1.ConditionFalse)
	ctx := context.Background()
	var good, bad, fixed secondaryschedulerv1.Rollout
	var rolledBack *appsv1.Deployment

	t.Run("a completed rollout is the last known good", func(t *testing.T) {
		d, _ := o.settled(t)
		good = framework.RolloutOf(d)
		o.admin.AddTemplatePod(t, "first", d, framework.RunningStatus())
		o.admin.SetRolloutStatus(t, good, framework.RolloutComplete)
		o.waitForStatus(t, "status.lastKnownGood", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
			return s.LastKnownGood != nil && *s.LastKnownGood == good && s.ConfigHash == good.ConfigHash && s.FailedRollout == nil, s
		})
	})

	wantMessage := "pod nope container secondary-scheduler exited with code 1: " + nopeError
	t.Run("a configuration the scheduler refuses is rolled back", func(t *testing.T) {
		history := o.templateHistory(t)
		o.setUserConfig(t, nopeConfig)
		d := o.waitForNewConfig(t, good.ConfigHash)
		if bad = framework.RolloutOf(d); bad.TemplateHash == good.TemplateHash {
			t.Fatalf("a new configuration kept template %s", bad.TemplateHash)
		}
		o.admin.SetRolloutStatus(t, bad, framework.RolloutStarted)
		o.admin.AddTemplatePod(t, "nope", d, framework.CrashLoopStatus(1, nopeError))

		rolledBack = o.waitForTemplate(t, "the Deployment back on the last known good template", func(r secondaryschedulerv1.Rollout) bool {
			return r == good
		})
		// The failed template must not come back: each time would start
		// another scheduler pod that fails.
		if n := rolledBack.Generation - d.Generation; n != 1 {
			t.Errorf("the rollback took %d template changes, want 1; templates (generation:config) %v; failed config %.12s, last known good %.12s",
				n, history(), bad.ConfigHash, good.ConfigHash)
		}
		o.waitForStatus(t, "status.failedRollout", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
			f := s.FailedRollout
			return f != nil && f.ConfigHash == bad.ConfigHash && f.TemplateHash == bad.TemplateHash &&
				f.Message == wantMessage && !f.FailedAt.IsZero() &&
				s.LastKnownGood != nil && *s.LastKnownGood == good && s.ConfigHash == bad.ConfigHash, s
		})
		o.waitForDegraded(t, operatorv1.ConditionTrue, wantMessage, "Rolled back to configuration "+good.ConfigHash[:12])
		if c := o.condition(t, targetconfigcontroller.ConditionType); c.Reason != "RolloutFailed" {
			t.Errorf("%s reason %q, want RolloutFailed", targetconfigcontroller.ConditionType, c.Reason)
		}
		// diff shows the same decision for the same input.
		out, err := runDiff(t, o.diffReaderKubeconfig(t), o.diffInput(t, nopeConfig, nil))
		if err != nil {
			t.Fatalf("diff: %v", err)
		}
		expectFragments(t, out, "Decision: would roll back to configuration "+good.ConfigHash[:12]+" (RolloutFailed)", nopeError)
		for hash, fragment := range map[string]string{good.ConfigHash: "secondary-scheduler", bad.ConfigHash: "Nope"} {
			cm, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Get(ctx, names.ConfigMapNameFor(hash), metav1.GetOptions{})
			if err != nil {
				t.Errorf("the ConfigMap of configuration %s: %v", hash, err)
				continue
			}
			if cm.Immutable == nil || !*cm.Immutable || !strings.Contains(cm.Data[names.ConfigKey], fragment) {
				t.Errorf("ConfigMap %s: immutable %v, config.yaml without %q:\n%s", cm.Name, cm.Immutable, fragment, cm.Data[names.ConfigKey])
			}
		}
	})

	t.Run("the failed template is not retried until the input changes", func(t *testing.T) {
		// The Deployment controller scales the failed pod away; the old one serves on.
		o.deletePod(t, "nope", ptr.To[int64](0))
		o.admin.SetRolloutStatus(t, good, framework.RolloutComplete)
		// A change outside the pod template makes the controller sync again:
		// it applies the Role in the same sync that decides the Deployment.
		o.grantNamespacedRule(t, nil)
		// The pod that serves runs the last known good configuration, not the merged one.
		framework.WaitFor(ctx, t, "the pod on the rolled-back configuration to be reported", func() (bool, error) {
			c := o.condition(t, operandstatuscontroller.ConditionStaleConfig)
			return satisfied(c != nil && c.Status == operatorv1.ConditionTrue &&
				strings.Contains(c.Message, names.ConfigMapNameFor(good.ConfigHash)+" (first)") &&
				strings.Contains(c.Message, "rolled-back configuration") &&
				gauges(t, "secondary_scheduler_operator_operand_pods_on_stale_config", "")[""] == 1, c)
		})
		framework.Consistently(ctx, t, 2*time.Second, "the Deployment to stay rolled back", func() (bool, error) {
			d := o.deployment(t)
			ss, err := o.get(ctx)
			if err != nil {
				return false, err
			}
			c := o.condition(t, targetconfigcontroller.ConditionType)
			return satisfied(framework.RolloutOf(d) == good && d.Generation == rolledBack.Generation &&
				ss.Status.FailedRollout != nil && ss.Status.FailedRollout.TemplateHash == bad.TemplateHash &&
				c != nil && c.Status == operatorv1.ConditionTrue && c.Reason == "RolloutFailed",
				fmt.Sprintf("template %+v generation %d, failedRollout %+v, condition %+v", framework.RolloutOf(d), d.Generation, ss.Status.FailedRollout, c))
		})

		o.setUserConfig(t, baseConfig+"- schedulerName: gang-scheduler\n")
		d := o.waitForNewConfig(t, good.ConfigHash, bad.ConfigHash)
		fixed = framework.RolloutOf(d)
		if n := d.Generation - rolledBack.Generation; n != 1 {
			t.Errorf("the fixed configuration took %d template changes, want 1", n)
		}
		o.admin.SetRolloutStatus(t, fixed, framework.RolloutStarted)
		o.admin.AddTemplatePod(t, "fixed", d, framework.RunningStatus())
		o.admin.SetRolloutStatus(t, fixed, framework.RolloutComplete)
		o.waitForStatus(t, "Degraded and failedRollout to clear", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
			c := v1helpers.FindOperatorCondition(s.Conditions, targetconfigcontroller.ConditionType)
			return c != nil && c.Status == operatorv1.ConditionFalse && s.FailedRollout == nil &&
				s.LastKnownGood != nil && *s.LastKnownGood == fixed, fmt.Sprintf("condition %+v, status %+v", c, s)
		})
	})

	t.Run("superseded config ConfigMaps are pruned", func(t *testing.T) {
		// The first pod is terminating: without a kubelet it stays so, and
		// keeps the first configuration mounted.
		o.deletePod(t, "first", nil)
		seen := []string{good.ConfigHash, bad.ConfigHash, fixed.ConfigHash}
		var changes []string
		for i := range 4 {
			o.setUserConfig(t, baseConfig+fmt.Sprintf("- schedulerName: profile-%d\n", i))
			h := framework.RolloutOf(o.waitForNewConfig(t, seen...)).ConfigHash
			seen, changes = append(seen, h), append(changes, h)
		}
		// Kept: the desired one (the Deployment mounts it), the last known good
		// (pod "fixed" mounts it), the one terminating pod "first" mounts, and
		// the 3 newest others. The failed one is older than those by the
		// seconds the subtest above took, so it is gone.
		want := []string{changes[3], fixed.ConfigHash, good.ConfigHash, changes[0], changes[1], changes[2]}
		o.waitForConfigMaps(t, want)
		o.deletePod(t, "first", ptr.To[int64](0))
		o.waitForConfigMaps(t, slices.DeleteFunc(want, func(h string) bool { return h == good.ConfigHash }))
		if _, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Get(ctx, userConfig, metav1.GetOptions{}); err != nil {
			t.Errorf("the user's ConfigMap: %v", err)
		}
	})
}

// waitForConfigMaps waits until the config ConfigMaps are exactly those of
// these configurations.
func (o *operatorUnderTest) waitForConfigMaps(t *testing.T, hashes []string) {
	t.Helper()
	var want []string
	for _, h := range hashes {
		want = append(want, names.ConfigMapNameFor(h))
	}
	slices.Sort(want)
	framework.WaitFor(context.Background(), t, fmt.Sprintf("config ConfigMaps %v", want), func() (bool, error) {
		names, err := o.configMapNames(context.Background())
		return satisfied(err == nil && slices.Equal(names, want), fmt.Sprintf("%v (%v)", names, err))
	})
}
