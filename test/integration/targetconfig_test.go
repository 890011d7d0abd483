package integration

import (
	"context"
	"fmt"
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

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const (
	operandNS  = render.OperandNamespace
	operand    = render.OperandName
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
	env := framework.Shared(t)
	cfg, requests := framework.CountRequests(env.OperatorConfig(t))
	framework.RunOperator(t, cfg)
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

func (o *operatorUnderTest) updateSpec(t *testing.T, mutate func(spec *secondaryschedulerv1.SecondarySchedulerSpec)) {
	t.Helper()
	ctx := context.Background()
	framework.WaitFor(ctx, t, "the SecondaryScheduler update", func() (bool, error) {
		ss, err := o.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		mutate(&ss.Spec)
		_, err = o.admin.Operator.OperatorV1().SecondarySchedulers().Update(ctx, ss, metav1.UpdateOptions{})
		return err == nil, err
	})
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

// settled waits until the operator has stopped changing the Deployment and the
// merged ConfigMap (a new SecondaryScheduler may still get observed config), and
// returns them.
func (o *operatorUnderTest) settled(t *testing.T) (*appsv1.Deployment, *corev1.ConfigMap) {
	t.Helper()
	ctx := context.Background()
	var d *appsv1.Deployment
	var cm *corev1.ConfigMap
	framework.WaitFor(ctx, t, "the operand to settle", func() (bool, error) {
		before := o.deployment(t)
		beforeCM, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Get(ctx, render.ConfigMapName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		time.Sleep(1500 * time.Millisecond)
		d = o.deployment(t)
		cm, err = o.admin.Kube.CoreV1().ConfigMaps(operandNS).Get(ctx, render.ConfigMapName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return d.Generation == before.Generation && cm.ResourceVersion == beforeCM.ResourceVersion, nil
	})
	return d, cm
}

func (o *operatorUnderTest) condition(t *testing.T, conditionType string) *operatorv1.OperatorCondition {
	t.Helper()
	ss, err := o.admin.Operator.OperatorV1().SecondarySchedulers().Get(context.Background(), "cluster", metav1.GetOptions{})
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
	ctx := context.Background()
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: userConfig, Namespace: operandNS},
		Data:       map[string]string{render.ConfigKey: config},
	}
	_, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Update(ctx, cm, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		_, err = o.admin.Kube.CoreV1().ConfigMaps(operandNS).Create(ctx, cm, metav1.CreateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestOperandIsCreatedAndRepaired(t *testing.T) {
	o := startOperator(t)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{
		RBAC: &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}},
		}},
	})
	ctx := context.Background()
	kube := o.admin.Kube

	type object struct {
		name string
		get  func() error
		del  func() error
	}
	objects := []object{
		{"Deployment", func() error {
			_, err := kube.AppsV1().Deployments(operandNS).Get(ctx, operand, metav1.GetOptions{})
			return err
		},
			func() error { return kube.AppsV1().Deployments(operandNS).Delete(ctx, operand, metav1.DeleteOptions{}) }},
		{"ConfigMap", func() error {
			_, err := kube.CoreV1().ConfigMaps(operandNS).Get(ctx, render.ConfigMapName, metav1.GetOptions{})
			return err
		}, func() error {
			return kube.CoreV1().ConfigMaps(operandNS).Delete(ctx, render.ConfigMapName, metav1.DeleteOptions{})
		}},
		{"ServiceAccount", func() error {
			_, err := kube.CoreV1().ServiceAccounts(operandNS).Get(ctx, operand, metav1.GetOptions{})
			return err
		}, func() error {
			return kube.CoreV1().ServiceAccounts(operandNS).Delete(ctx, operand, metav1.DeleteOptions{})
		}},
		{"ClusterRoleBinding system:kube-scheduler", func() error {
			_, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, "secondary-scheduler-system-kube-scheduler", metav1.GetOptions{})
			return err
		}, func() error {
			return kube.RbacV1().ClusterRoleBindings().Delete(ctx, "secondary-scheduler-system-kube-scheduler", metav1.DeleteOptions{})
		}},
		{"ClusterRole extra", func() error {
			_, err := kube.RbacV1().ClusterRoles().Get(ctx, render.ExtraRBACName, metav1.GetOptions{})
			return err
		}, func() error {
			return kube.RbacV1().ClusterRoles().Delete(ctx, render.ExtraRBACName, metav1.DeleteOptions{})
		}},
		{"RoleBinding in kube-system", func() error {
			_, err := kube.RbacV1().RoleBindings("kube-system").Get(ctx, "secondary-scheduler-extension-apiserver-authentication-reader", metav1.GetOptions{})
			return err
		}, func() error {
			return kube.RbacV1().RoleBindings("kube-system").Delete(ctx, "secondary-scheduler-extension-apiserver-authentication-reader", metav1.DeleteOptions{})
		}},
		{"Service", func() error {
			_, err := kube.CoreV1().Services(operandNS).Get(ctx, "secondary-scheduler-metrics", metav1.GetOptions{})
			return err
		}, func() error {
			return kube.CoreV1().Services(operandNS).Delete(ctx, "secondary-scheduler-metrics", metav1.DeleteOptions{})
		}},
	}
	for _, obj := range objects {
		framework.WaitFor(ctx, t, obj.name+" to be created", func() (bool, error) { return obj.get() == nil, nil })
	}
	for _, obj := range objects {
		t.Run("delete "+obj.name, func(t *testing.T) {
			if err := obj.del(); err != nil {
				t.Fatal(err)
			}
			framework.WaitFor(ctx, t, obj.name+" to be restored", func() (bool, error) { return obj.get() == nil, nil })
		})
	}

	t.Run("edited Deployment is reverted", func(t *testing.T) {
		d := o.deployment(t)
		d.Spec.Template.Spec.Containers[0].Image = "example.com/hand-edited:v1"
		if _, err := kube.AppsV1().Deployments(operandNS).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.WaitFor(ctx, t, "the image to be reverted", func() (bool, error) {
			d := o.deployment(t)
			return d.Spec.Template.Spec.Containers[0].Image == "registry.k8s.io/kube-scheduler:v1.36.2", nil
		})
	})
	t.Run("edited ConfigMap is reverted", func(t *testing.T) {
		cm, err := kube.CoreV1().ConfigMaps(operandNS).Get(ctx, render.ConfigMapName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := cm.Data[render.ConfigKey]
		cm.Data[render.ConfigKey] = "hand: edited\n"
		if _, err := kube.CoreV1().ConfigMaps(operandNS).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.WaitFor(ctx, t, "the merged config to be restored", func() (bool, error) {
			cm, err := kube.CoreV1().ConfigMaps(operandNS).Get(ctx, render.ConfigMapName, metav1.GetOptions{})
			return err == nil && cm.Data[render.ConfigKey] == want, err
		})
	})
}

func TestRolloutsFollowInputsAndNothingElse(t *testing.T) {
	o := startOperator(t)
	o.setUserConfig(t, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: secondary-scheduler\n  plugins:\n    score:\n      disabled: [{name: NodeResourcesBalancedAllocation}]\n")
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: userConfig})
	ctx := context.Background()
	framework.WaitFor(ctx, t, "status.configHash and schedulerNames", func() (bool, error) {
		ss, err := o.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, "cluster", metav1.GetOptions{})
		return err == nil && ss.Status.ConfigHash != "" && len(ss.Status.SchedulerNames) == 1 && ss.Status.SchedulerNames[0] == "secondary-scheduler", err
	})
	o.waitForDegraded(t, operatorv1.ConditionFalse)
	before, _ := o.settled(t)

	t.Run("user ConfigMap change rolls the Deployment", func(t *testing.T) {
		o.setUserConfig(t, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: secondary-scheduler\n- schedulerName: gang-scheduler\n")
		after := o.waitForRollout(t, before, "the config change to roll the Deployment")
		if after.Spec.Template.Annotations[render.ConfigHashAnnotation] == before.Spec.Template.Annotations[render.ConfigHashAnnotation] {
			t.Errorf("the pod template's %s did not change", render.ConfigHashAnnotation)
		}
		framework.WaitFor(ctx, t, "both schedulerNames in status", func() (bool, error) {
			ss, err := o.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, "cluster", metav1.GetOptions{})
			return err == nil && strings.Join(ss.Status.SchedulerNames, ",") == "gang-scheduler,secondary-scheduler", err
		})
		before = after
	})

	t.Run("a sidecar rolls the Deployment", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
			spec.Sidecars = []corev1.Container{{Name: "fluxion", Image: "example.com/fluxion:v1", Args: []string{"--port=4242"}}}
		})
		after := o.waitForRollout(t, before, "the sidecar to reach the Deployment")
		containers := after.Spec.Template.Spec.Containers
		if len(containers) != 2 || containers[1].Name != "fluxion" || containers[1].Args[0] != "--port=4242" {
			t.Fatalf("containers = %+v, want the scheduler and the sidecar as written", containers)
		}
		before = after
	})

	t.Run("changes that do not alter the pod do not roll it", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
			spec.OperatorLogLevel = operatorv1.Debug
			spec.RBAC = &secondaryschedulerv1.SchedulerRBAC{NamespacedRules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
			}}
		})
		framework.WaitFor(ctx, t, "the extra Role", func() (bool, error) {
			_, err := o.admin.Kube.RbacV1().Roles(operandNS).Get(ctx, render.ExtraRBACName, metav1.GetOptions{})
			return err == nil, nil
		})
		framework.Consistently(ctx, t, 2*time.Second, "the Deployment to keep its generation", func() (bool, error) {
			return o.deployment(t).Generation == before.Generation, nil
		})
	})

	t.Run("removed rules delete their Role", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.RBAC = nil })
		framework.WaitFor(ctx, t, "the extra Role and RoleBinding to be deleted", func() (bool, error) {
			_, errRole := o.admin.Kube.RbacV1().Roles(operandNS).Get(ctx, render.ExtraRBACName, metav1.GetOptions{})
			_, errBinding := o.admin.Kube.RbacV1().RoleBindings(operandNS).Get(ctx, render.ExtraRBACName, metav1.GetOptions{})
			return apierrors.IsNotFound(errRole) && apierrors.IsNotFound(errBinding), nil
		})
	})

	t.Run("a converged operator sends no writes", func(t *testing.T) {
		framework.WaitFor(ctx, t, "the operator to converge", func() (bool, error) {
			o.requests.Reset()
			time.Sleep(3 * time.Second)
			return o.requests.Writes() == 0, nil
		})
		o.requests.Reset()
		time.Sleep(30 * time.Second)
		if n := o.requests.Writes(); n != 0 {
			t.Errorf("%d writes in 30 s after convergence: %v", n, o.requests.WriteRequests())
		}
		t.Logf("requests in 30 s after convergence: %v", o.requests.Counts())
	})
}

func TestBadInputNeverReachesTheRunningScheduler(t *testing.T) {
	o := startOperator(t)
	good := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: secondary-scheduler\n"
	o.setUserConfig(t, good)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: userConfig})
	o.waitForDegraded(t, operatorv1.ConditionFalse)
	ctx := context.Background()
	lastGood, lastGoodConfig := o.settled(t)
	untouched := func(t *testing.T) {
		t.Helper()
		framework.Consistently(ctx, t, time.Second, "the Deployment and merged ConfigMap to stay as they were", func() (bool, error) {
			d := o.deployment(t)
			cm, err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Get(ctx, render.ConfigMapName, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return d.Generation == lastGood.Generation && cm.ResourceVersion == lastGoodConfig.ResourceVersion, nil
		})
	}

	for _, tc := range []struct {
		name     string
		apply    func(t *testing.T)
		restore  func(t *testing.T)
		messages []string
	}{
		{
			name:     "invalid YAML",
			apply:    func(t *testing.T) { o.setUserConfig(t, "profiles:\n- schedulerName: a\n  plugins: [\n") },
			restore:  func(t *testing.T) { o.setUserConfig(t, good) },
			messages: []string{"ConfigMap openshift-secondary-scheduler/my-scheduler-config", "config.yaml"},
		},
		{
			name: "duplicate schedulerName",
			apply: func(t *testing.T) {
				o.setUserConfig(t, good+"- schedulerName: gang\n- schedulerName: gang\n")
			},
			restore:  func(t *testing.T) { o.setUserConfig(t, good) },
			messages: []string{"ConfigMap openshift-secondary-scheduler/my-scheduler-config", "schedulerName", "duplicate", "gang"},
		},
		{
			name: "unknown field",
			apply: func(t *testing.T) {
				o.setUserConfig(t, good+"  percentageOfNodesToScor: 50\n")
			},
			restore:  func(t *testing.T) { o.setUserConfig(t, good) },
			messages: []string{"ConfigMap openshift-secondary-scheduler/my-scheduler-config", "percentageOfNodesToScor"},
		},
		{
			name: "missing ConfigMap",
			apply: func(t *testing.T) {
				if err := o.admin.Kube.CoreV1().ConfigMaps(operandNS).Delete(ctx, userConfig, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			},
			restore:  func(t *testing.T) { o.setUserConfig(t, good) },
			messages: []string{"my-scheduler-config"},
		},
		{
			name: "RBAC rule the operator does not hold",
			apply: func(t *testing.T) {
				o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
					spec.Sidecars = []corev1.Container{{Name: "greedy", Image: "example.com/greedy:v1"}}
					spec.RBAC = &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{
						{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list"}},
					}}
				})
			},
			restore: func(t *testing.T) {
				o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
					spec.Sidecars = nil
					spec.RBAC = nil
				})
			},
			messages: []string{"ClusterRole secondary-scheduler-extra", "secrets", "secondary-scheduler-operator-grantable"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.apply(t)
			restored := false
			t.Cleanup(func() {
				if !restored {
					tc.restore(t)
				}
			})
			o.waitForDegraded(t, operatorv1.ConditionTrue, tc.messages...)
			untouched(t)
			tc.restore(t)
			restored = true
			o.waitForDegraded(t, operatorv1.ConditionFalse)
		})
	}
}

func TestManagementStates(t *testing.T) {
	o := startOperator(t)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{
		RBAC: &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list"}},
		}},
	})
	ctx := context.Background()
	kube := o.admin.Kube
	managed, _ := o.settled(t)

	t.Run("Unmanaged writes nothing", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = operatorv1.Unmanaged })
		// The operator may still be acknowledging the state change; then it must stay silent.
		time.Sleep(time.Second)
		d := o.deployment(t)
		d.Spec.Template.Spec.Containers[0].Image = "example.com/hand-edited:v1"
		if _, err := kube.AppsV1().Deployments(operandNS).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		o.requests.Reset()
		framework.Consistently(ctx, t, 3*time.Second, "the hand edit to stay", func() (bool, error) {
			return o.deployment(t).Spec.Template.Spec.Containers[0].Image == "example.com/hand-edited:v1", nil
		})
		if n := o.requests.Writes(); n != 0 {
			t.Errorf("Unmanaged, the operator wrote %d times: %v", n, o.requests.WriteRequests())
		}
	})

	t.Run("Removed deletes every operand object but the namespace", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = operatorv1.Removed })
		framework.WaitFor(ctx, t, "every operand object to be deleted", func() (bool, error) {
			for name, err := range map[string]error{
				"Deployment":              getErr(kube.AppsV1().Deployments(operandNS).Get(ctx, operand, metav1.GetOptions{})),
				"ConfigMap":               getErr(kube.CoreV1().ConfigMaps(operandNS).Get(ctx, render.ConfigMapName, metav1.GetOptions{})),
				"ServiceAccount":          getErr(kube.CoreV1().ServiceAccounts(operandNS).Get(ctx, operand, metav1.GetOptions{})),
				"ClusterRoleBinding":      getErr(kube.RbacV1().ClusterRoleBindings().Get(ctx, "secondary-scheduler-system-kube-scheduler", metav1.GetOptions{})),
				"ClusterRole extra":       getErr(kube.RbacV1().ClusterRoles().Get(ctx, render.ExtraRBACName, metav1.GetOptions{})),
				"kube-system RoleBinding": getErr(kube.RbacV1().RoleBindings("kube-system").Get(ctx, "secondary-scheduler-extension-apiserver-authentication-reader", metav1.GetOptions{})),
			} {
				if !apierrors.IsNotFound(err) {
					return false, fmt.Errorf("%s still there (%v)", name, err)
				}
			}
			return true, nil
		})
		if _, err := kube.CoreV1().Namespaces().Get(ctx, operandNS, metav1.GetOptions{}); err != nil {
			t.Errorf("the operand namespace must stay: %v", err)
		}
	})

	t.Run("back to Managed recreates it", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = operatorv1.Managed })
		d := o.deployment(t)
		if d.Spec.Template.Spec.Containers[0].Image != managed.Spec.Template.Spec.Containers[0].Image {
			t.Errorf("recreated with image %q", d.Spec.Template.Spec.Containers[0].Image)
		}
	})

	t.Run("deleting the SecondaryScheduler orphans nothing", func(t *testing.T) {
		if err := o.admin.Operator.OperatorV1().SecondarySchedulers().Delete(ctx, "cluster", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.WaitFor(ctx, t, "the cluster-scoped objects to be deleted", func() (bool, error) {
			for _, name := range []string{"secondary-scheduler-system-kube-scheduler", "secondary-scheduler-system-volume-scheduler", render.ExtraRBACName} {
				if _, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return false, fmt.Errorf("ClusterRoleBinding %s still there (%v)", name, err)
				}
			}
			_, err := kube.RbacV1().ClusterRoles().Get(ctx, render.ExtraRBACName, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	})
}

func getErr[T any](_ T, err error) error { return err }
