package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/cached"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

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
		// The config ConfigMap the pods run: named by the hash of the config in status.
		{"config ConfigMap", func() error {
			_, err := kube.CoreV1().ConfigMaps(operandNS).Get(ctx, o.configMapName(t), metav1.GetOptions{})
			return err
		}, func() error {
			return kube.CoreV1().ConfigMaps(operandNS).Delete(ctx, o.configMapName(t), metav1.DeleteOptions{})
		}},
		{"ServiceAccount", func() error {
			_, err := kube.CoreV1().ServiceAccounts(operandNS).Get(ctx, operand, metav1.GetOptions{})
			return err
		}, func() error {
			return kube.CoreV1().ServiceAccounts(operandNS).Delete(ctx, operand, metav1.DeleteOptions{})
		}},
		{"ClusterRoleBinding to the operand role", func() error {
			_, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, render.OperandBindingName(), metav1.GetOptions{})
			return err
		}, func() error {
			return kube.RbacV1().ClusterRoleBindings().Delete(ctx, render.OperandBindingName(), metav1.DeleteOptions{})
		}},
		{"ClusterRole extra", func() error {
			_, err := kube.RbacV1().ClusterRoles().Get(ctx, names.ExtraRBACName, metav1.GetOptions{})
			return err
		}, func() error {
			return kube.RbacV1().ClusterRoles().Delete(ctx, names.ExtraRBACName, metav1.DeleteOptions{})
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
	// The pods read their configuration once; an edit must not leave a running
	// scheduler and its ConfigMap telling different stories.
	t.Run("the config ConfigMap cannot be edited", func(t *testing.T) {
		d, cm := o.settled(t)
		if want := o.configMapName(t); cm.Name != want {
			t.Errorf("the Deployment mounts ConfigMap %s, want %s (status.configHash)", cm.Name, want)
		}
		if cm.Immutable == nil || !*cm.Immutable {
			t.Errorf("ConfigMap %s: immutable = %v, want true", cm.Name, cm.Immutable)
		}
		if got, want := cm.Annotations[names.ConfigHashAnnotation], d.Spec.Template.Annotations[names.ConfigHashAnnotation]; got != want {
			t.Errorf("ConfigMap %s: %s = %q, want the pod template's %q", cm.Name, names.ConfigHashAnnotation, got, want)
		}
		if cm.Labels[names.ManagedByLabel] != names.ManagedByValue {
			t.Errorf("ConfigMap %s: labels %v lack %s=%s", cm.Name, cm.Labels, names.ManagedByLabel, names.ManagedByValue)
		}
		want := cm.Data[names.ConfigKey]
		edited := cm.DeepCopy()
		edited.Data[names.ConfigKey] = "hand: edited\n"
		_, err := kube.CoreV1().ConfigMaps(operandNS).Update(ctx, edited, metav1.UpdateOptions{})
		framework.ExpectInvalid(t, err, "field is immutable")
		got, err := kube.CoreV1().ConfigMaps(operandNS).Get(ctx, cm.Name, metav1.GetOptions{})
		if err != nil || got.Data[names.ConfigKey] != want {
			t.Errorf("ConfigMap %s after a refused edit: %v, %v", cm.Name, got, err)
		}
	})
}

// configMapName is the config ConfigMap of the configuration in status.configHash.
func (o *operatorUnderTest) configMapName(t *testing.T) string {
	t.Helper()
	status := o.waitForStatus(t, "status.configHash", func(s *secondaryschedulerv1.SecondarySchedulerStatus) (bool, any) {
		return s.ConfigHash != "", s.ConfigHash
	})
	return names.ConfigMapNameFor(status.ConfigHash)
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
		hash := after.Spec.Template.Annotations[names.ConfigHashAnnotation]
		if hash == before.Spec.Template.Annotations[names.ConfigHashAnnotation] {
			t.Errorf("the pod template's %s did not change", names.ConfigHashAnnotation)
		}
		if got, want := configMapOf(after), names.ConfigMapNameFor(hash); got != want {
			t.Errorf("the pod template mounts ConfigMap %s, want %s, the new configuration's", got, want)
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

	t.Run("a sidecar the API server refuses is reported at its own field", func(t *testing.T) {
		valid := []corev1.Container{{Name: "fluxion", Image: "example.com/fluxion:v1", Args: []string{"--port=4242"}}}
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
			spec.Sidecars = []corev1.Container{{Name: "fluxion", Image: "example.com/fluxion:v1", Args: []string{"--port=4242"},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
					Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
				}}}
		})
		o.waitForDegraded(t, operatorv1.ConditionTrue, "spec.sidecars[0].resources.requests", "must be less than or equal to cpu limit",
			"The running scheduler is left as it is")
		if c := o.condition(t, targetconfigcontroller.ConditionType); c.Reason != "InvalidInput" || strings.Contains(c.Message, "spec.template") {
			t.Errorf("condition %+v: want reason InvalidInput naming only SecondaryScheduler fields", c)
		}
		if got := o.deployment(t).Generation; got != before.Generation {
			t.Errorf("the refused spec changed the Deployment: generation %d, was %d", got, before.Generation)
		}
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.Sidecars = valid })
		o.waitForDegraded(t, operatorv1.ConditionFalse)
	})

	t.Run("changes that do not alter the pod do not roll it", func(t *testing.T) {
		o.grantNamespacedRule(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
			spec.OperatorLogLevel = operatorv1.Debug
		})
		framework.Consistently(ctx, t, 2*time.Second, "the Deployment to keep its generation", func() (bool, error) {
			return o.deployment(t).Generation == before.Generation, nil
		})
	})

	t.Run("the Trial strategy finds nothing to try in the running scheduler", func(t *testing.T) {
		// The live Deployment carries the API server's defaults, which the
		// rendered one lacks: they are not a change to try.
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
			spec.Rollout = &secondaryschedulerv1.RolloutPolicy{Strategy: secondaryschedulerv1.RolloutTrial}
		})
		framework.WaitFor(ctx, t, "TrialBlocked False, AsExpected: nothing held", func() (bool, error) {
			ss, err := o.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, "cluster", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if r := ss.Status.TrialRequest; r != nil {
				return false, fmt.Errorf("status.trialRequest %+v: the running scheduler is tried against itself", r)
			}
			c := v1helpers.FindOperatorCondition(ss.Status.Conditions, targetconfigcontroller.TrialBlockedCondition)
			return c != nil && c.Status == operatorv1.ConditionFalse && c.Reason == "AsExpected", nil
		})
		framework.Consistently(ctx, t, 2*time.Second, "no trial request, the Deployment as it was", func() (bool, error) {
			ss, err := o.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, "cluster", metav1.GetOptions{})
			if err != nil || ss.Status.TrialRequest != nil {
				return false, fmt.Errorf("status.trialRequest %+v (%v)", ss.Status.TrialRequest, err)
			}
			return o.deployment(t).Generation == before.Generation, nil
		})
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.Rollout = nil })
	})

	t.Run("removed rules delete their Role", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.RBAC = nil })
		framework.WaitFor(ctx, t, "the extra Role and RoleBinding to be deleted", func() (bool, error) {
			_, errRole := o.admin.Kube.RbacV1().Roles(operandNS).Get(ctx, names.ExtraRBACName, metav1.GetOptions{})
			_, errBinding := o.admin.Kube.RbacV1().RoleBindings(operandNS).Get(ctx, names.ExtraRBACName, metav1.GetOptions{})
			return apierrors.IsNotFound(errRole) && apierrors.IsNotFound(errBinding), nil
		})
	})

	t.Run("a converged operator sends no request", func(t *testing.T) {
		o.waitNoWrites(t, 3*time.Second)
		o.requests.Reset()
		// Reads too: every Get of what it applies comes from its caches. A watch
		// the client re-opens (after its 5-10 min timeout) is the only request
		// allowed.
		framework.Consistently(ctx, t, 30*time.Second, "no request but watches in 30 s after convergence", func() (bool, error) {
			counts := o.requests.Counts()
			delete(counts, "watch")
			if len(counts) != 0 {
				return false, fmt.Errorf("requests %v, want none but watches; writes: %v", counts, o.requests.WriteRequests())
			}
			return true, nil
		})
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
		framework.Consistently(ctx, t, time.Second, "the Deployment and its config ConfigMap to stay as they were", func() (bool, error) {
			d := o.deployment(t)
			cm, err := o.mountedConfig(ctx, d)
			if err != nil {
				return false, err
			}
			return d.Generation == lastGood.Generation && cm.Name == lastGoodConfig.Name && cm.ResourceVersion == lastGoodConfig.ResourceVersion, nil
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
			name:     "YAML aliases",
			apply:    func(t *testing.T) { o.setUserConfig(t, good+"- schedulerName: &n b\n- schedulerName: *n\n") },
			restore:  func(t *testing.T) { o.setUserConfig(t, good) },
			messages: []string{"ConfigMap openshift-secondary-scheduler/my-scheduler-config", "line 5: YAML anchors and aliases"},
		},
		{
			// Within the 1 MiB bound, but each value a node of any parser's tree.
			name: "more entries than the bound",
			apply: func(t *testing.T) {
				o.setUserConfig(t, good+"  percentageOfNodesToScore: [\n"+strings.Repeat("1,", schedulerconfig.MaxIndicators)+"1]\n")
			},
			restore:  func(t *testing.T) { o.setUserConfig(t, good) },
			messages: []string{"ConfigMap openshift-secondary-scheduler/my-scheduler-config", "line 6: more than 16384 of the characters that begin YAML entries"},
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
			messages: []string{"spec.rbac.clusterRules[0]", "get secrets", "secondary-scheduler-operator-grantable", "Nothing was applied"},
		},
		{
			name: "the default scheduler's lease in the args",
			apply: func(t *testing.T) {
				o.setArgs(t, "-v=4", "--leader-elect-resource-name=kube-scheduler", "--leader_elect_resource_namespace=kube-system")
			},
			restore:  func(t *testing.T) { o.setArgs(t) },
			messages: []string{"spec.schedulerContainer.args[1]: --leader-elect-resource-name is the operator's", "spec.schedulerContainer.args[2]: --leader-elect-resource-namespace"},
		},
		{
			name:     "another config file in the args",
			apply:    func(t *testing.T) { o.setArgs(t, "--config=/tmp/mine.yaml") },
			restore:  func(t *testing.T) { o.setArgs(t) },
			messages: []string{"spec.schedulerContainer.args[0]: --config is the operator's", "spec.schedulerConfig"},
		},
		{
			name:     "a misspelt flag",
			apply:    func(t *testing.T) { o.setArgs(t, "--feature-gate=X=true") },
			restore:  func(t *testing.T) { o.setArgs(t) },
			messages: []string{"spec.schedulerContainer.args[0]: --feature-gate is not a kube-scheduler flag"},
		},
		{
			name: "a privileged sidecar",
			apply: func(t *testing.T) {
				o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
					spec.Sidecars = []corev1.Container{{Name: "root", Image: "example.com/root:v1", SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}
				})
			},
			restore: func(t *testing.T) {
				o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.Sidecars = nil })
			},
			messages: []string{"spec.sidecars[0]", `Pod Security "baseline"`, "privileged"},
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
	managed, managedConfig := o.settled(t)

	t.Run("Unmanaged writes nothing", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = operatorv1.Unmanaged })
		// The operator may still be acknowledging the state change; then it must stay silent.
		o.waitNoWrites(t, time.Second)
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
				"config ConfigMap":        getErr(kube.CoreV1().ConfigMaps(operandNS).Get(ctx, managedConfig.Name, metav1.GetOptions{})),
				"ServiceAccount":          getErr(kube.CoreV1().ServiceAccounts(operandNS).Get(ctx, operand, metav1.GetOptions{})),
				"ClusterRoleBinding":      getErr(kube.RbacV1().ClusterRoleBindings().Get(ctx, render.OperandBindingName(), metav1.GetOptions{})),
				"ClusterRole extra":       getErr(kube.RbacV1().ClusterRoles().Get(ctx, names.ExtraRBACName, metav1.GetOptions{})),
				"kube-system RoleBinding": getErr(kube.RbacV1().RoleBindings("kube-system").Get(ctx, "secondary-scheduler-extension-apiserver-authentication-reader", metav1.GetOptions{})),
			} {
				if !apierrors.IsNotFound(err) {
					return false, fmt.Errorf("%s still there (%v)", name, err)
				}
			}
			names, err := o.configMapNames(ctx)
			return satisfied(err == nil && len(names) == 0, fmt.Sprintf("config ConfigMaps %v (%v)", names, err))
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
		framework.WaitFor(ctx, t, "the config ConfigMap to be recreated", func() (bool, error) {
			cm, err := o.mountedConfig(ctx, o.deployment(t))
			return err == nil && cm.Data[names.ConfigKey] == managedConfig.Data[names.ConfigKey], err
		})
	})

	t.Run("deleting the SecondaryScheduler orphans nothing", func(t *testing.T) {
		if err := o.admin.Operator.OperatorV1().SecondarySchedulers().Delete(ctx, "cluster", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.WaitFor(ctx, t, "the cluster-scoped objects to be deleted", func() (bool, error) {
			for _, name := range []string{render.OperandBindingName(), names.ExtraRBACName} {
				if _, err := kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return false, fmt.Errorf("ClusterRoleBinding %s still there (%v)", name, err)
				}
			}
			_, err := kube.RbacV1().ClusterRoles().Get(ctx, names.ExtraRBACName, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	})
}

func getErr[T any](_ T, err error) error { return err }

// setArgs sets spec.schedulerContainer.args (none: unset).
func (o *operatorUnderTest) setArgs(t *testing.T, args ...string) {
	t.Helper()
	o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
		spec.SchedulerContainer = nil
		if len(args) > 0 {
			spec.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{Args: args}
		}
	})
}

// The operator writes its Deployment as a strategic merge patch naming the
// UID it was computed on (TestDeploymentPatchNamesTheUID): the API server
// refuses such a patch on a Deployment made under the same name since, which
// stays as it was, and takes it on the one it was meant for.
func TestADeploymentPatchNamingAnEarlierUIDIsRefused(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	deployments := env.Admin.Kube.AppsV1().Deployments(env.CreateNamespace(t, "patch-uid"))
	labels := map[string]string{"app": "d"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1),
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}},
	}}
	earlier, err := deployments.Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := deployments.Delete(ctx, d.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(ctx, t, "the first Deployment gone", func() (bool, error) {
		_, err := deployments.Get(ctx, d.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	later, err := deployments.Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patchFor := func(uid types.UID) []byte {
		return []byte(fmt.Sprintf(`{"metadata":{"uid":%q},"spec":{"replicas":3}}`, uid))
	}
	if _, err := deployments.Patch(ctx, d.Name, types.StrategicMergePatchType, patchFor(earlier.UID), metav1.PatchOptions{}); err == nil {
		t.Fatal("a patch naming the earlier Deployment's UID was taken by the later one")
	}
	got, err := deployments.Get(ctx, d.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != later.UID || *got.Spec.Replicas != 1 {
		t.Errorf("after the refused patch: UID %s replicas %d, want %s and 1", got.UID, *got.Spec.Replicas, later.UID)
	}
	if got, err = deployments.Patch(ctx, d.Name, types.StrategicMergePatchType, patchFor(later.UID), metav1.PatchOptions{}); err != nil || *got.Spec.Replicas != 3 {
		t.Errorf("the patch naming the Deployment's own UID: %v, want it taken (replicas 3)", err)
	}
}

// TestACachedDeleteLeavesAnObjectMadeUnderTheNameSince: what the operator
// deletes (a superseded config ConfigMap, its extra RBAC) it judges from its
// cache; if the object is replaced under the same name before the delete
// lands, the replacement, someone else's, stays, and the sync goes on: the
// object judged is gone.
func TestACachedDeleteLeavesAnObjectMadeUnderTheNameSince(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	configMaps := env.Admin.Kube.CoreV1().ConfigMaps(env.CreateNamespace(t, "cached-delete"))
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "superseded"}, Data: map[string]string{"k": "operator's"}}
	judged, err := configMaps.Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	staleCache := func(string) (*corev1.ConfigMap, error) { return judged, nil }
	if err := configMaps.Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cm.Data["k"] = "someone else's"
	replacement, err := configMaps.Create(ctx, cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	if err := cached.Delete(ctx, recorder, "ConfigMap", replacement.Namespace, cm.Name, staleCache, configMaps); err != nil {
		t.Errorf("deleting from a cache that holds the earlier ConfigMap, which is gone: %v", err)
	}
	if got, err := configMaps.Get(ctx, cm.Name, metav1.GetOptions{}); err != nil || got.UID != replacement.UID {
		t.Errorf("the replacement: %v (err %v), want it left", got, err)
	}
	if n := len(recorder.Events()); n != 0 {
		t.Errorf("%d events for a deletion that did not happen: %v", n, recorder.Events())
	}
	current := func(string) (*corev1.ConfigMap, error) { return replacement, nil }
	if err := cached.Delete(ctx, recorder, "ConfigMap", replacement.Namespace, cm.Name, current, configMaps); err != nil {
		t.Errorf("deleting the ConfigMap the cache holds: %v", err)
	}
	if _, err := configMaps.Get(ctx, cm.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the ConfigMap the cache held is still there: %v", err)
	}
}
