package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// setDeploymentStatus plays the Deployment controller: envtest runs none.
// It reports on the settled Deployment: a new SecondaryScheduler's Deployment
// is written again once its observed config arrives, and a status written for
// the first generation would describe a rollout that never ends.
func (o *operatorUnderTest) setDeploymentStatus(t *testing.T, mutate func(d *appsv1.Deployment)) {
	t.Helper()
	ctx := context.Background()
	o.settled(t)
	framework.WaitFor(ctx, t, "the Deployment status update", func() (bool, error) {
		d := o.deployment(t)
		mutate(d)
		_, err := o.admin.Kube.AppsV1().Deployments(operandNS).UpdateStatus(ctx, d, metav1.UpdateOptions{})
		return err == nil, err
	})
}

// addPod plays the ReplicaSet controller and the kubelet: a pod of the operand
// in the given state.
func (o *operatorUnderTest) addPod(t *testing.T, name string, status corev1.PodStatus) {
	t.Helper()
	ctx := context.Background()
	d := o.deployment(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: operandNS, Labels: d.Spec.Selector.MatchLabels},
		// The operand namespace enforces the restricted pod security level.
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			Containers: []corev1.Container{{Name: operand, Image: d.Spec.Template.Spec.Containers[0].Image, SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			}}},
		},
	}
	created, err := o.admin.Kube.CoreV1().Pods(operandNS).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		zero := int64(0)
		_ = o.admin.Kube.CoreV1().Pods(operandNS).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	})
	created.Status = status
	if _, err := o.admin.Kube.CoreV1().Pods(operandNS).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitForConditions waits until every condition type has the status, and its
// message holds the fragments given for it.
func (o *operatorUnderTest) waitForConditions(t *testing.T, want map[string]operatorv1.ConditionStatus, fragments map[string][]string) {
	t.Helper()
	framework.WaitFor(context.Background(), t, fmt.Sprintf("conditions %v with %q", want, fragments), func() (bool, error) {
		for conditionType, status := range want {
			c := o.condition(t, conditionType)
			if c == nil || c.Status != status {
				return false, fmt.Errorf("%s is %+v", conditionType, c)
			}
			for _, f := range fragments[conditionType] {
				if !strings.Contains(c.Message, f) && c.Reason != f {
					return false, fmt.Errorf("%s lacks %q: %+v", conditionType, f, c)
				}
			}
		}
		return true, nil
	})
}

func (o *operatorUnderTest) clusterOperatorCondition(t *testing.T, conditionType configv1.ClusterStatusConditionType) (*configv1.ClusterOperatorStatusCondition, *configv1.ClusterOperator) {
	t.Helper()
	co, err := o.admin.OpenShift.ConfigV1().ClusterOperators().Get(context.Background(), "secondary-scheduler", metav1.GetOptions{})
	if err != nil {
		return nil, nil
	}
	for i := range co.Status.Conditions {
		if co.Status.Conditions[i].Type == conditionType {
			return &co.Status.Conditions[i], co
		}
	}
	return nil, co
}

func TestStatusFollowsTheOperand(t *testing.T) {
	o := startOperator(t)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})
	ctx := context.Background()
	T, F, U := operatorv1.ConditionTrue, operatorv1.ConditionFalse, operatorv1.ConditionUnknown

	t.Run("a new Deployment is progressing and not available", func(t *testing.T) {
		o.waitForConditions(t, map[string]operatorv1.ConditionStatus{"Available": F, "Progressing": T, "Degraded": F}, nil)
	})

	t.Run("healthy", func(t *testing.T) {
		o.setDeploymentStatus(t, framework.RolloutComplete)
		o.waitForConditions(t, map[string]operatorv1.ConditionStatus{"Available": T, "Progressing": F, "Degraded": F}, nil)
		framework.WaitFor(ctx, t, "readyReplicas and observedGeneration", func() (bool, error) {
			ss, err := o.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, "cluster", metav1.GetOptions{})
			return err == nil && ss.Status.ReadyReplicas == 1 && ss.Status.ObservedGeneration == ss.Generation, err
		})
		framework.WaitFor(ctx, t, "ClusterOperator Available=True with the operand version", func() (bool, error) {
			c, co := o.clusterOperatorCondition(t, configv1.OperatorAvailable)
			if c == nil || c.Status != configv1.ConditionTrue {
				return false, fmt.Errorf("Available is %+v", c)
			}
			for _, v := range co.Status.Versions {
				if v.Name == "secondary-scheduler" && v.Version == "registry.k8s.io/kube-scheduler:v1.36.2" {
					return len(co.Status.RelatedObjects) > 0, nil
				}
			}
			return false, fmt.Errorf("versions %+v", co.Status.Versions)
		})
	})

	t.Run("rolling out", func(t *testing.T) {
		o.setDeploymentStatus(t, func(d *appsv1.Deployment) {
			d.Status.ObservedGeneration = d.Generation - 1
			d.Status.UpdatedReplicas = 0
		})
		o.waitForConditions(t, map[string]operatorv1.ConditionStatus{"Progressing": T, "Available": T},
			map[string][]string{"Progressing": {"rolling out", "0 of 1 pods updated"}})
		o.setDeploymentStatus(t, framework.RolloutComplete)
	})

	t.Run("crash loop", func(t *testing.T) {
		o.setDeploymentStatus(t, func(d *appsv1.Deployment) {
			framework.RolloutComplete(d)
			d.Status.AvailableReplicas, d.Status.ReadyReplicas = 0, 0
		})
		o.addPod(t, "crashing", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			Name: operand, RestartCount: 5,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}},
		}}})
		o.waitForConditions(t, map[string]operatorv1.ConditionStatus{"Available": F, "Degraded": T},
			map[string][]string{"Available": {"crashing", "CrashLoopBackOff"}, "Degraded": {`pod crashing container "secondary-scheduler"`, "CrashLoopBackOff", "last exit code 1"}})
		framework.WaitFor(ctx, t, "ClusterOperator Available=False", func() (bool, error) {
			c, _ := o.clusterOperatorCondition(t, configv1.OperatorAvailable)
			return satisfied(c != nil && c.Status == configv1.ConditionFalse && strings.Contains(c.Message, "CrashLoopBackOff"), c)
		})
		if err := o.admin.Kube.CoreV1().Pods(operandNS).Delete(ctx, "crashing", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("image pull failure", func(t *testing.T) {
		o.addPod(t, "no-image", corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			Name:  operand,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.k8s.io/kube-scheduler:v1.36.2"`}},
		}}})
		o.waitForConditions(t, map[string]operatorv1.ConditionStatus{"Degraded": T},
			map[string][]string{"Degraded": {"pod no-image", "ImagePullBackOff", "Back-off pulling image"}})
		if err := o.admin.Kube.CoreV1().Pods(operandNS).Delete(ctx, "no-image", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		o.setDeploymentStatus(t, framework.RolloutComplete)
		o.waitForConditions(t, map[string]operatorv1.ConditionStatus{"Available": T, "Degraded": F}, nil)
	})

	t.Run("Unmanaged is Unknown", func(t *testing.T) {
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = operatorv1.Unmanaged })
		o.waitForConditions(t, map[string]operatorv1.ConditionStatus{"Available": U, "Progressing": U, "Degraded": U}, nil)
		framework.WaitFor(ctx, t, "ClusterOperator Available=Unknown", func() (bool, error) {
			c, _ := o.clusterOperatorCondition(t, configv1.OperatorAvailable)
			return satisfied(c != nil && c.Status == configv1.ConditionUnknown, c)
		})
		o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.ManagementState = operatorv1.Managed })
	})

	t.Run("metrics", func(t *testing.T) {
		o.waitForConditions(t, map[string]operatorv1.ConditionStatus{"Available": T}, nil)
		// The Simulator controller's series appear once it has synced a Simulator.
		simctlCreate(t, o.env, o.env.CreateNamespace(t, "metrics"), &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}})
		server := httptest.NewServer(legacyregistry.Handler())
		defer server.Close()
		framework.WaitFor(ctx, t, "every series on /metrics", func() (bool, error) {
			resp, err := http.Get(server.URL)
			if err != nil {
				return false, err
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				return false, err
			}
			for _, series := range []string{
				"secondary_scheduler_operator_build_info{",
				`secondary_scheduler_operator_controller_syncs_total{controller="TargetConfigController",result="success"}`,
				`secondary_scheduler_operator_controller_sync_duration_seconds_count{controller="OperandStatusController"}`,
				`secondary_scheduler_operator_controller_syncs_total{controller="SimulatorController",result="success"}`,
				"secondary_scheduler_operator_scheduler_config_valid 1",
				"secondary_scheduler_operator_operand_ready_replicas 1",
				`secondary_scheduler_operator_simulators{phase="Creating"}`,
				`workqueue_queue_duration_seconds_count{name="TargetConfigController"}`,
			} {
				if !strings.Contains(string(body), series) {
					return false, fmt.Errorf("/metrics lacks %s", series)
				}
			}
			return true, nil
		})
	})
}

// satisfied turns a check into WaitFor's answer, with what was seen when it fails.
func satisfied(ok bool, seen interface{}) (bool, error) {
	if ok {
		return true, nil
	}
	return false, fmt.Errorf("saw %+v", seen)
}

func TestOperatorLogLevelChangesVerbosityWithoutRestart(t *testing.T) {
	o := startOperator(t)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})
	ctx := context.Background()
	o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.OperatorLogLevel = operatorv1.Debug })
	framework.WaitFor(ctx, t, "klog verbosity 4 (Debug)", func() (bool, error) {
		return satisfied(klog.V(4).Enabled() && !klog.V(5).Enabled(), "a different verbosity")
	})
	o.updateSpec(t, func(spec *secondaryschedulerv1.SecondarySchedulerSpec) { spec.OperatorLogLevel = operatorv1.Normal })
	framework.WaitFor(ctx, t, "klog verbosity 2 (Normal)", func() (bool, error) {
		return satisfied(klog.V(2).Enabled() && !klog.V(3).Enabled(), "a different verbosity")
	})
}
