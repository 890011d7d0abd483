package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const (
	binPackingConfigMap = "bin-packing"
	rollbackTries       = 10
)

// TestFailedRolloutIsRolledBack: a configuration that passes the operator's
// checks but that the real kube-scheduler refuses (a plugin this build does
// not have) is rolled out, its new pod crash-loops, and the operator takes the
// rollout back to the last configuration that ran. Throughout, the old
// scheduler pod keeps binding pods; Degraded names the binary's own error; the
// failed configuration is not retried while the input stays; a fixed input
// clears Degraded. Repeated rollbackTries times, it prints the time from the
// bad ConfigMap written to the Deployment's template back on the good one.
func TestFailedRolloutIsRolledBack(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)
	c.playKubelet(t)
	ns := c.createNamespace(t, "e2e-rollback")
	c.waitBound(t, ns, c.createPod(t, ns, "before", names.DefaultSchedulerName))

	good := c.waitLastKnownGood(t)
	original := c.userConfig(t)
	t.Cleanup(func() { c.setUserConfig(t, original) })
	var samples []time.Duration
	for i := range rollbackTries {
		bad := withUnknownFilterPlugin(t, original, fmt.Sprintf("NoSuchPlugin%d", i))
		badHash := c.renderedConfigHash(t, bad)
		took := c.timeRollback(t, bad, badHash, good.ConfigHash)
		samples = append(samples, took)

		// The message is the log's tail, where klog escapes the quotes.
		wantError := fmt.Sprintf(`FilterPlugin \"NoSuchPlugin%d\" does not exist`, i)
		framework.WaitFor(ctx, t, "status.failedRollout to name the config and kube-scheduler's error", func() (bool, error) {
			ss, err := c.getCR(ctx)
			if err != nil {
				return false, err
			}
			f := ss.Status.FailedRollout
			return f != nil && f.ConfigHash == badHash && strings.Contains(f.Message, wantError), nil
		})
		c.waitCondition(t, targetconfigcontroller.ConditionType, operatorv1.ConditionTrue, "RolloutFailed", "does not exist")
		if i == 0 {
			// The old pod serves while the failed config stays refused.
			c.waitBound(t, ns, c.createPod(t, ns, "after-rollback", names.DefaultSchedulerName))
			framework.Consistently(ctx, t, 5*time.Second, "the failed configuration is not retried while the input stays", func() (bool, error) {
				d, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				return d.Spec.Template.Annotations[names.ConfigHashAnnotation] == good.ConfigHash, nil
			})
		}

		c.setUserConfig(t, original)
		c.waitCondition(t, targetconfigcontroller.ConditionType, operatorv1.ConditionFalse, "AsExpected", "")
		c.waitReconciled(t)
	}
	c.waitBound(t, ns, c.createPod(t, ns, "after", names.DefaultSchedulerName))

	slices.Sort(samples)
	t.Logf("bad config written -> template back on the last good config, n=%d: p50 %v, p99 %v, max %v",
		len(samples), samples[len(samples)/2], samples[(len(samples)*99+99)/100-1], samples[len(samples)-1])
}

// TestRefusedConfigNeverRollsOut: what kube-scheduler would refuse (or serve
// as default-scheduler) is refused before any rollout: Degraded names the
// field, and the Deployment's template does not change.
func TestRefusedConfigNeverRollsOut(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	c.applyExample(t, "bin-packing")
	before := c.waitReconciled(t)
	original := c.userConfig(t)
	t.Cleanup(func() { c.setUserConfig(t, original) })
	for _, tc := range []struct{ config, message string }{
		{"profiles: [null]\n", "profiles[0]: null entry"},
		{"percentageOfNodesToScore: 101\n", "percentageOfNodesToScore: Invalid value: 101"},
	} {
		c.setUserConfig(t, tc.config)
		c.waitCondition(t, targetconfigcontroller.ConditionType, operatorv1.ConditionTrue, "InvalidInput", tc.message)
		framework.Consistently(ctx, t, 3*time.Second, "the Deployment stays as it was", func() (bool, error) {
			d, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return d.Generation == before.Generation, nil
		})
	}
	c.setUserConfig(t, original)
	c.waitReconciled(t)
}

// timeRollback writes bad and watches the Deployment: its template must move
// to badHash, then back to goodHash. It returns the time from the write to the
// template back on goodHash.
func (c *cluster) timeRollback(t *testing.T, bad, badHash, goodHash string) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), reconcileTimeout)
	defer cancel()
	deployments := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace)
	list, err := deployments.List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", names.OperandName).String()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := deployments.Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", names.OperandName).String(),
		ResourceVersion: list.ResourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	start := time.Now()
	c.setUserConfig(t, bad)
	sawBad := false
	for ev := range w.ResultChan() {
		d, ok := ev.Object.(*appsv1.Deployment)
		if !ok {
			continue
		}
		switch d.Spec.Template.Annotations[names.ConfigHashAnnotation] {
		case badHash:
			sawBad = true
		case goodHash:
			if sawBad {
				return time.Since(start)
			}
		}
	}
	t.Fatalf("the Deployment did not go to config %s and back to %s within %s (saw the bad one: %v)",
		badHash[:12], goodHash[:12], reconcileTimeout, sawBad)
	return 0
}

func (c *cluster) waitLastKnownGood(t *testing.T) *secondaryschedulerv1.Rollout {
	t.Helper()
	var lkg *secondaryschedulerv1.Rollout
	framework.WaitFor(context.Background(), t, "status.lastKnownGood to record the running template", func() (bool, error) {
		ss, err := c.getCR(context.Background())
		if err != nil {
			return false, err
		}
		if g := ss.Status.LastKnownGood; g != nil && g.ConfigHash == ss.Status.ConfigHash {
			lkg = g
			return true, nil
		}
		return false, nil
	})
	return lkg
}

func (c *cluster) waitCondition(t *testing.T, condType string, status operatorv1.ConditionStatus, reason, message string) {
	t.Helper()
	framework.WaitFor(context.Background(), t, fmt.Sprintf("%s=%s %s %q", condType, status, reason, message), func() (bool, error) {
		ss, err := c.getCR(context.Background())
		if err != nil {
			return false, err
		}
		cond := condition(ss.Status.Conditions, condType)
		return cond != nil && cond.Status == status && cond.Reason == reason && strings.Contains(cond.Message, message), nil
	})
}

func (c *cluster) waitBound(t *testing.T, ns, pod string) {
	t.Helper()
	framework.WaitForWithin(context.Background(), t, time.Minute, "the secondary scheduler to bind pod "+pod, func() (bool, error) {
		node, err := c.nodeOf(context.Background(), ns, pod)
		return node != "", err
	})
}

func (c *cluster) userConfig(t *testing.T) string {
	t.Helper()
	cm, err := c.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(context.Background(), binPackingConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm.Data[names.ConfigKey]
}

func (c *cluster) setUserConfig(t *testing.T, config string) {
	t.Helper()
	cms := c.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace)
	err := retry.RetryOnConflict(framework.ConflictBackoff, func() error {
		cm, err := cms.Get(context.Background(), binPackingConfigMap, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cm.Data[names.ConfigKey] = config
		_, err = cms.Update(context.Background(), cm, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// renderedConfigHash is the hash the operator gives the merged configuration
// with config as the user's layer.
func (c *cluster) renderedConfigHash(t *testing.T, config string) string {
	t.Helper()
	ss, err := c.getCR(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	objs, err := render.Render(render.Inputs{SecondaryScheduler: ss, UserConfig: &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: binPackingConfigMap, Namespace: names.OperandNamespace},
		Data:       map[string]string{names.ConfigKey: config},
	}})
	if err != nil {
		t.Fatalf("the operator must accept the configuration (only the binary can refuse it): %v", err)
	}
	return objs.ConfigHash
}

// withUnknownFilterPlugin enables a filter plugin the upstream kube-scheduler
// does not have in every profile of config.
func withUnknownFilterPlugin(t *testing.T, config, plugin string) string {
	t.Helper()
	var cfg map[string]interface{}
	if err := yaml.Unmarshal([]byte(config), &cfg); err != nil {
		t.Fatal(err)
	}
	profiles, _ := cfg["profiles"].([]interface{})
	for _, p := range profiles {
		profile := p.(map[string]interface{})
		plugins, _ := profile["plugins"].(map[string]interface{})
		if plugins == nil {
			plugins = map[string]interface{}{}
			profile["plugins"] = plugins
		}
		plugins["filter"] = map[string]interface{}{"enabled": []interface{}{map[string]interface{}{"name": plugin}}}
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
