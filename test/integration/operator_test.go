package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const (
	operandNS  = names.OperandNamespace
	operand    = names.OperandName
	userConfig = "my-scheduler-config"
)

// operatorUnderTest runs the operator in-process under exactly the RBAC that
// manifests/ ship, with every request it sends counted.
type operatorUnderTest struct {
	env      *framework.Env
	admin    *framework.Clients
	requests *framework.RequestCounter
}

func startOperator(t *testing.T) *operatorUnderTest {
	t.Helper()
	return startOperatorWith(t, operator.DefaultOptions())
}

// startOperatorWith is startOperator with opts.
func startOperatorWith(t *testing.T, opts operator.Options) *operatorUnderTest {
	t.Helper()
	env := framework.Shared(t)
	cfg, requests := framework.CountRequests(env.OperatorConfig(t))
	framework.RunOperatorWith(t, cfg, opts)
	return &operatorUnderTest{env: env, admin: env.Admin, requests: requests}
}

// createSecondaryScheduler creates the singleton (see framework.CreateSecondaryScheduler)
// and, once it is gone at the end of the test, the user's ConfigMap.
func (o *operatorUnderTest) createSecondaryScheduler(t *testing.T, spec secondaryschedulerv1.SecondarySchedulerSpec) {
	t.Helper()
	t.Cleanup(func() {
		_ = o.admin.Kube.CoreV1().ConfigMaps(operandNS).Delete(context.Background(), userConfig, metav1.DeleteOptions{})
	})
	o.env.CreateSecondaryScheduler(t, spec)
}

func (o *operatorUnderTest) get(ctx context.Context) (*secondaryschedulerv1.SecondaryScheduler, error) {
	return o.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, secondaryschedulerv1.SingletonName, metav1.GetOptions{})
}

// waitForStatus waits until the SecondaryScheduler's status passes ok, which
// returns whether it does and what to show when it does not.
func (o *operatorUnderTest) waitForStatus(t *testing.T, desc string, ok func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any)) *secondaryschedulerv1.SecondarySchedulerStatus {
	t.Helper()
	var status *secondaryschedulerv1.SecondarySchedulerStatus
	framework.WaitFor(context.Background(), t, desc, func() (bool, error) {
		ss, err := o.get(context.Background())
		if err != nil {
			return false, err
		}
		status = &ss.Status
		return satisfied(ok(status))
	})
	return status
}

func (o *operatorUnderTest) updateSpec(t *testing.T, mutate func(spec *secondaryschedulerv1.SecondarySchedulerSpec)) {
	t.Helper()
	if err := o.admin.UpdateSecondaryScheduler(context.Background(), mutate); err != nil {
		t.Fatalf("updating the SecondaryScheduler: %v", err)
	}
}

func (o *operatorUnderTest) deployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	var d *appsv1.Deployment
	framework.WaitFor(context.Background(), t, "the operand Deployment", func() (bool, error) {
		var err error
		d, err = o.admin.Kube.AppsV1().Deployments(operandNS).Get(context.Background(), operand, metav1.GetOptions{})
		return err == nil, err
	})
	return d
}

// waitForRollout waits until the Deployment's pod template differs from before.
func (o *operatorUnderTest) waitForRollout(t *testing.T, before *appsv1.Deployment, desc string) *appsv1.Deployment {
	t.Helper()
	var after *appsv1.Deployment
	framework.WaitFor(context.Background(), t, desc, func() (bool, error) {
		d, err := o.admin.Kube.AppsV1().Deployments(operandNS).Get(context.Background(), operand, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		after = d
		return d.Generation > before.Generation, nil
	})
	return after
}

// configMapOf names the config ConfigMap the Deployment's pod template mounts:
// the configuration its pods run.
func configMapOf(d *appsv1.Deployment) string {
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == secondaryschedulerv1.ConfigVolumeName && v.ConfigMap != nil {
			return v.ConfigMap.Name
		}
	}
	return ""
}

// mountedConfig is the config ConfigMap the Deployment mounts.
func (o *operatorUnderTest) mountedConfig(ctx context.Context, d *appsv1.Deployment) (*corev1.ConfigMap, error) {
	name := configMapOf(d)
	if name == "" {
		return nil, fmt.Errorf("the Deployment mounts no volume %s", secondaryschedulerv1.ConfigVolumeName)
	}
	return o.admin.Kube.CoreV1().ConfigMaps(operandNS).Get(ctx, name, metav1.GetOptions{})
}

// configMapNames lists the config ConfigMaps the operator made (its label and
// its name prefix), sorted.
func (o *operatorUnderTest) configMapNames(ctx context.Context) ([]string, error) {
	list, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{names.ManagedByLabel: names.ManagedByValue}).String(),
	})
	if err != nil {
		return nil, err
	}
	var found []string
	for _, cm := range list.Items {
		if names.IsConfigMapName(cm.Name) {
			found = append(found, cm.Name)
		}
	}
	slices.Sort(found)
	return found, nil
}

// settled waits until the operator has stopped changing the Deployment and
// the config ConfigMap it mounts (a new SecondaryScheduler may still get
// observed config), and returns them.
func (o *operatorUnderTest) settled(t *testing.T) (*appsv1.Deployment, *corev1.ConfigMap) {
	t.Helper()
	ctx := context.Background()
	type state struct {
		generation int64
		configMap  string
		version    string
	}
	var d *appsv1.Deployment
	var cm *corev1.ConfigMap
	framework.WaitForStable(ctx, t, 1500*time.Millisecond, "the operand", func() (state, error) {
		var err error
		if d, err = o.admin.Kube.AppsV1().Deployments(operandNS).Get(ctx, operand, metav1.GetOptions{}); err != nil {
			return state{}, err
		}
		if cm, err = o.mountedConfig(ctx, d); err != nil {
			return state{}, err
		}
		return state{d.Generation, cm.Name, cm.ResourceVersion}, nil
	})
	return d, cm
}

// waitNoWrites waits until the operator has sent no write for a whole window
// (counted by its client), each window starting once the last one ended.
func (o *operatorUnderTest) waitNoWrites(t *testing.T, window time.Duration) {
	t.Helper()
	framework.WaitFor(context.Background(), t, fmt.Sprintf("the operator to send no write for %s", window), func() (bool, error) {
		o.requests.Reset()
		time.Sleep(window)
		if n := o.requests.Writes(); n != 0 {
			return false, fmt.Errorf("%d writes: %v", n, o.requests.WriteRequests())
		}
		return true, nil
	})
}

func (o *operatorUnderTest) condition(t *testing.T, conditionType string) *operatorv1.OperatorCondition {
	t.Helper()
	ss, err := o.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v1helpers.FindOperatorCondition(ss.Status.Conditions, conditionType)
}

// waitForDegraded waits for TargetConfigControllerDegraded=status with every fragment in its message.
func (o *operatorUnderTest) waitForDegraded(t *testing.T, status operatorv1.ConditionStatus, fragments ...string) {
	t.Helper()
	framework.WaitFor(context.Background(), t, fmt.Sprintf("%s=%s with %q", targetconfigcontroller.ConditionType, status, fragments), func() (bool, error) {
		c := o.condition(t, targetconfigcontroller.ConditionType)
		if c == nil || c.Status != status {
			return false, fmt.Errorf("condition is %+v", c)
		}
		for _, f := range fragments {
			if !strings.Contains(c.Message, f) {
				return false, fmt.Errorf("message %q lacks %q", c.Message, f)
			}
		}
		return true, nil
	})
}

func (o *operatorUnderTest) setUserConfig(t *testing.T, config string) {
	t.Helper()
	o.writeConfigMap(t, userConfig, nil, config)
}

// writeConfigMap creates or replaces a ConfigMap of the operand namespace
// holding a scheduler configuration.
func (o *operatorUnderTest) writeConfigMap(t *testing.T, name string, labels map[string]string, config string) {
	t.Helper()
	ctx := context.Background()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operandNS, Labels: labels},
		Data:       map[string]string{names.ConfigKey: config},
	}
	_, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Update(ctx, cm, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		_, err = o.admin.Kube.CoreV1().ConfigMaps(operandNS).Create(ctx, cm, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// grantNamespacedRule changes the spec outside the pod template (a namespaced
// spec.rbac rule, plus whatever also does) and waits for the operator to apply
// the Role: proof that a sync ran without touching the Deployment's template.
func (o *operatorUnderTest) grantNamespacedRule(t *testing.T, also func(spec *secondaryschedulerv1.SecondarySchedulerSpec)) {
	t.Helper()
	o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
		if also != nil {
			also(spec)
		}
		spec.RBAC = &secondaryschedulerv1.SchedulerRBAC{NamespacedRules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
		}}
	})
	framework.WaitFor(context.Background(), t, "the extra Role", func() (bool, error) {
		_, err := o.admin.Kube.RbacV1().Roles(operandNS).Get(context.Background(), names.ExtraRBACName, metav1.GetOptions{})
		return err == nil, err
	})
}
