package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// simctlRole holds exactly the rules simulatorcontroller's package documentation
// asks of the operator: the tests run the controller with nothing more.
var simctlRole = &rbacv1.ClusterRole{
	ObjectMeta: metav1.ObjectMeta{Name: "test-simulator-controller"},
	Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{simv1alpha1.GroupName}, Resources: []string{"simulators"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{simv1alpha1.GroupName}, Resources: []string{"simulators/status", "simulators/finalizers"}, Verbs: []string{"update"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch", "create", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "watch", "create", "update"}},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}, Verbs: []string{"get", "list", "watch", "create", "update"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}},
	},
}

// simctlSetup starts the controller as a ServiceAccount holding simctlRole only,
// watching a new namespace it returns.
func simctlSetup(t *testing.T, prefix string) (*framework.Env, string, *framework.RequestCounter) {
	t.Helper()
	env := framework.Shared(t)
	ns, counter := simctlSetupIn(t, env, prefix, simctlRole)
	return env, ns, counter
}

func simctlSetupIn(t *testing.T, env *framework.Env, prefix string, role *rbacv1.ClusterRole) (string, *framework.RequestCounter) {
	t.Helper()
	ns := env.CreateNamespace(t, prefix)
	return ns, simctlStart(t, env, ns, role)
}

// simctlStart starts the controller in ns as a ServiceAccount holding role only.
func simctlStart(t *testing.T, env *framework.Env, ns string, role *rbacv1.ClusterRole) *framework.RequestCounter {
	t.Helper()
	_, err := env.Admin.Kube.RbacV1().ClusterRoles().Create(context.Background(), role, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	cfg := env.ServiceAccountConfig(t, ns, "simulator-controller", framework.ClusterRoleIn(ns, role.Name))
	counter, _ := framework.RunSimulatorController(t, cfg, ns, 2, simulatorcontroller.ClientQPS)
	return counter
}

// TestSimulatorOwnerReferencesNeedFinalizers: with the admission plugin OpenShift
// enables (OwnerReferencesPermissionEnforcement), setting blockOwnerDeletion takes
// update on simulators/finalizers. Without it nothing is created, and the status
// says why; with it (simctlRole) the Simulator starts.
func TestSimulatorOwnerReferencesNeedFinalizers(t *testing.T) {
	env := framework.StartForTest(t, framework.Options{WithoutOpenShiftCRDs: true, ExtraAPIServerArgs: map[string][]string{
		"enable-admission-plugins": {"OwnerReferencesPermissionEnforcement"},
	}})
	without := simctlRole.DeepCopy()
	without.Name = "test-simulator-controller-without-finalizers"
	without.Rules[1].Resources = []string{"simulators/status"}
	ns, _ := simctlSetupIn(t, env, "sim-no-finalizers", without)
	simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}})
	simctlWaitStatus(t, env, ns, "sim", "Pending: forbidden", simctlPhase(simv1alpha1.SimulatorPending, true, "forbidden"))

	ns, _ = simctlSetupIn(t, env, "sim-finalizers", simctlRole)
	simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}})
	simctlWaitStatus(t, env, ns, "sim", "Creating", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))
}

func simctlCreate(t *testing.T, env *framework.Env, ns string, sim *simv1alpha1.Simulator) *simv1alpha1.Simulator {
	t.Helper()
	created, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Create(context.Background(), sim, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func simctlGet(t *testing.T, env *framework.Env, ns, name string) *simv1alpha1.Simulator {
	t.Helper()
	sim, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// simctlWaitStatus waits until the Simulator's status passes check (nil error).
func simctlWaitStatus(t *testing.T, env *framework.Env, ns, name, desc string, check func(*simv1alpha1.SimulatorStatus) error) *simv1alpha1.Simulator {
	t.Helper()
	var sim *simv1alpha1.Simulator
	framework.WaitFor(context.Background(), t, desc, func() (bool, error) {
		sim = simctlGet(t, env, ns, name)
		if sim.Status.ObservedGeneration != sim.Generation {
			return false, fmt.Errorf("observedGeneration %d of %d", sim.Status.ObservedGeneration, sim.Generation)
		}
		if err := check(&sim.Status); err != nil {
			return false, err
		}
		return true, nil
	})
	return sim
}

// simctlPhase is a status check: the phase, the conditions and a message part.
func simctlPhase(phase simv1alpha1.SimulatorPhase, degraded bool, message string) func(*simv1alpha1.SimulatorStatus) error {
	return func(s *simv1alpha1.SimulatorStatus) error {
		msg := ptr.Deref(s.Message, "")
		available := meta.IsStatusConditionTrue(s.Conditions, simulatorcontroller.ConditionAvailable)
		isDegraded := meta.IsStatusConditionTrue(s.Conditions, simulatorcontroller.ConditionDegraded)
		if s.Phase != phase || !strings.Contains(msg, message) || isDegraded != degraded || available != (phase == simv1alpha1.SimulatorAvailable) {
			return fmt.Errorf("phase %s, message %q, Available %t, Degraded %t", s.Phase, msg, available, isDegraded)
		}
		return nil
	}
}

// simctlPod waits for the one Pod of a Simulator that is not being deleted.
// simctlAvailable creates a default Simulator, plays the kubelet to make its
// Pod ready, and waits until it is Available (the controller's last write:
// it records no event for it); it returns the Pod.
func simctlAvailable(t *testing.T, env *framework.Env, ns, name string) *corev1.Pod {
	t.Helper()
	simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}})
	pod := simctlPod(t, env, ns, name)
	simctlKubelet(t, env, pod, simctlReady(true))
	simctlWaitStatus(t, env, ns, name, "Available", simctlPhase(simv1alpha1.SimulatorAvailable, false, ""))
	return pod
}

// simctlNetworkPolicy waits for the NetworkPolicy of Simulator name.
func simctlNetworkPolicy(t *testing.T, env *framework.Env, ns, name string) *networkingv1.NetworkPolicy {
	t.Helper()
	var policy *networkingv1.NetworkPolicy
	framework.WaitFor(context.Background(), t, "the NetworkPolicy of Simulator "+name, func() (bool, error) {
		var err error
		policy, err = env.Admin.Kube.NetworkingV1().NetworkPolicies(ns).Get(context.Background(), name, metav1.GetOptions{})
		return err == nil, err
	})
	return policy
}

func simctlPod(t *testing.T, env *framework.Env, ns, name string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	framework.WaitFor(context.Background(), t, "the Pod of Simulator "+name, func() (bool, error) {
		pods, err := env.Admin.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: simulatorrender.SimulatorLabel + "=" + name})
		if err != nil {
			return false, err
		}
		var live []corev1.Pod
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				live = append(live, p)
			}
		}
		if len(live) != 1 {
			return false, fmt.Errorf("%d Pods", len(live))
		}
		pod = &live[0]
		return true, nil
	})
	return pod
}

// simctlKubelet writes a Pod's status as the kubelet (or the scheduler) would.
func simctlKubelet(t *testing.T, env *framework.Env, pod *corev1.Pod, status corev1.PodStatus) {
	t.Helper()
	err := retry.RetryOnConflict(framework.ConflictBackoff, func() error {
		current, err := env.Admin.Kube.CoreV1().Pods(pod.Namespace).Get(context.Background(), pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		current.Status = status
		_, err = env.Admin.Kube.CoreV1().Pods(pod.Namespace).UpdateStatus(context.Background(), current, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// simctlGone is a WaitFor condition on the error of a GET: true once NotFound.
func simctlGone(err error) (bool, error) {
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err == nil {
		return false, fmt.Errorf("still exists")
	}
	return false, err
}

func simctlReady(ready bool) corev1.PodStatus {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
			{Type: corev1.PodReady, Status: status},
		},
	}
}

func TestSimulatorCreatesPodAndService(t *testing.T) {
	env, ns, _ := simctlSetup(t, "sim-create")
	sim := simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}})
	wantURL := fmt.Sprintf("http://sim.%s.svc:3131", ns)

	got := simctlWaitStatus(t, env, ns, "sim", "Creating with the URL", func(s *simv1alpha1.SimulatorStatus) error {
		if err := simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod)(s); err != nil {
			return err
		}
		if s.KubeAPIServerURL != wantURL {
			return fmt.Errorf("kubeAPIServerURL %q", s.KubeAPIServerURL)
		}
		return nil
	})

	// The Pod the API server accepted is the rendered one, defaults aside.
	rendered, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: got})
	if err != nil {
		t.Fatal(err)
	}
	pod := simctlPod(t, env, ns, "sim")
	if pod.Name != rendered.Pod.Name || pod.Annotations[simulatorrender.SpecHashAnnotation] != rendered.SpecHash {
		t.Errorf("pod %s annotations %v, want %s with hash %s", pod.Name, pod.Annotations, rendered.Pod.Name, rendered.SpecHash)
	}
	var names []string
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name+"="+c.Image)
	}
	if want := []string{"simulator=" + simv1alpha1.DefaultImage, "etcd=" + simulatorrender.DefaultEtcdImage}; !slices.Equal(names, want) {
		t.Errorf("containers %v, want %v", names, want)
	}
	vars := map[string]string{}
	for _, e := range pod.Spec.Containers[0].Env {
		vars[e.Name] = e.Value
	}
	for k, v := range map[string]string{
		"KUBE_API_HOST": "0.0.0.0", "KUBE_API_PORT": "3131", "PORT": "1212",
		"KUBE_SCHEDULER_SIMULATOR_ETCD_URL": "http://127.0.0.1:2379", "CORS_ALLOWED_ORIGIN_LIST": "http://localhost:3000",
	} {
		if vars[k] != v {
			t.Errorf("env %s=%q, want %q", k, vars[k], v)
		}
	}
	if p := pod.Spec.Containers[0].ReadinessProbe; p == nil || p.TCPSocket == nil || p.TCPSocket.Port.IntVal != 1212 {
		t.Errorf("readiness probe %+v", p)
	}
	if p := pod.Spec.Containers[0].StartupProbe; p == nil || p.TCPSocket == nil || p.TCPSocket.Port.IntVal != 3131 {
		t.Errorf("startup probe %+v", p)
	}
	simctlExpectOwned(t, &pod.ObjectMeta, sim)

	svc, err := env.Admin.Kube.CoreV1().Services(ns).Get(context.Background(), "sim", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.ClusterIP == "" || svc.Spec.Selector[simulatorrender.SimulatorLabel] != "sim" {
		t.Errorf("service spec %+v", svc.Spec)
	}
	var ports []string
	for _, p := range svc.Spec.Ports {
		ports = append(ports, fmt.Sprintf("%s:%d->%s", p.Name, p.Port, p.TargetPort.String()))
	}
	if want := []string{"kube-apiserver:3131->3131", "simulator:1212->1212"}; !slices.Equal(ports, want) {
		t.Errorf("service ports %v, want %v", ports, want)
	}
	simctlExpectOwned(t, &svc.ObjectMeta, sim)
}

// simctlExpectOwned checks what the garbage collector needs to delete an object
// with its Simulator (envtest runs no garbage collector: the e2e tier proves it).
func simctlExpectOwned(t *testing.T, obj *metav1.ObjectMeta, sim *simv1alpha1.Simulator) {
	t.Helper()
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.UID != sim.UID || ref.Kind != "Simulator" || ref.APIVersion != simv1alpha1.SchemeGroupVersion.String() || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Errorf("%s: owner references %+v, want a controller reference to Simulator %s (%s)", obj.Name, obj.OwnerReferences, sim.Name, sim.UID)
	}
	if obj.Labels[simulatorrender.SimulatorLabel] != sim.Name {
		t.Errorf("%s: labels %v", obj.Name, obj.Labels)
	}
}

func TestSimulatorPodTemplateTakesPrecedence(t *testing.T) {
	env, ns, _ := simctlSetup(t, "sim-template")
	simctlCreate(t, env, ns, &simv1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "sim"},
		Spec: simv1alpha1.SimulatorSpec{
			KubeSchedulerConfigurationPath: "/etc/simulator/scheduler.yaml",
			CORSAllowedOriginList:          []string{"http://localhost:3000", "https://ui.example.com"},
			PodTemplate: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"example.com/note": "kept"}},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}},
					InitContainers: []corev1.Container{{Name: "fetch-config", Image: "registry.example.com/tools:1",
						VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/simulator"}}}},
					Containers: []corev1.Container{
						{Name: "sidecar", Image: "registry.example.com/sidecar:1"},
						{Name: "simulator", Image: "registry.example.com/simulator:patched",
							Env:          []corev1.EnvVar{{Name: "PORT", Value: "9999"}, {Name: "KLOG_V", Value: "4"}},
							VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/simulator", ReadOnly: true}}},
						{Name: "etcd", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/etcd"}}},
					},
					Volumes: []corev1.Volume{
						{Name: "config", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "sim-etcd"}}},
					},
				},
			},
		},
	})
	pod := simctlPod(t, env, ns, "sim")
	var got []string
	for _, c := range pod.Spec.Containers {
		var env []string
		for _, e := range c.Env {
			env = append(env, e.Name+"="+e.Value)
		}
		var mounts []string
		for _, m := range c.VolumeMounts {
			mounts = append(mounts, m.Name+":"+m.MountPath)
		}
		got = append(got, fmt.Sprintf("%s %s env=%s mounts=%s", c.Name, c.Image, strings.Join(env, ","), strings.Join(mounts, ",")))
	}
	want := []string{
		"simulator registry.example.com/simulator:patched env=KUBE_API_HOST=0.0.0.0,KUBE_API_PORT=3131,PORT=9999," +
			"KUBE_SCHEDULER_SIMULATOR_ETCD_URL=http://127.0.0.1:2379,CORS_ALLOWED_ORIGIN_LIST=http://localhost:3000,https://ui.example.com," +
			"KUBE_SCHEDULER_CONFIG_PATH=/etc/simulator/scheduler.yaml,KLOG_V=4 mounts=config:/etc/simulator",
		"etcd " + simulatorrender.DefaultEtcdImage + " env= mounts=data:/var/lib/etcd",
		"sidecar registry.example.com/sidecar:1 env= mounts=",
	}
	if !slices.Equal(got, want) {
		t.Errorf("containers:\n got %q\nwant %q", got, want)
	}
	var volumes []string
	for _, v := range pod.Spec.Volumes {
		volumes = append(volumes, v.Name)
	}
	if !slices.Equal(volumes, []string{"config", "data"}) {
		t.Errorf("volumes %v: the template's, and no unused etcd emptyDir", volumes)
	}
	// (The API server adds its default NoExecute tolerations after ours.)
	if len(pod.Spec.InitContainers) != 1 || pod.Spec.NodeSelector["kubernetes.io/os"] != "linux" || pod.Spec.Tolerations[0].Key != "dedicated" ||
		pod.Labels["team"] != "a" || pod.Annotations["example.com/note"] != "kept" {
		t.Errorf("the rest of the template must be kept: labels %v annotations %v initContainers %d nodeSelector %v tolerations %v",
			pod.Labels, pod.Annotations, len(pod.Spec.InitContainers), pod.Spec.NodeSelector, pod.Spec.Tolerations)
	}
}

func TestSimulatorPhasesFollowThePod(t *testing.T) {
	env, ns, _ := simctlSetup(t, "sim-phases")
	simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}})
	pod := simctlPod(t, env, ns, "sim")
	simctlWaitStatus(t, env, ns, "sim", "Creating", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))

	steps := []struct {
		name     string
		status   corev1.PodStatus
		phase    simv1alpha1.SimulatorPhase
		degraded bool
		message  string
	}{
		{"unschedulable", corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			Message: "0/3 nodes are available: 3 Insufficient memory."}}},
			simv1alpha1.SimulatorCreating, true, "cannot be scheduled: 0/3 nodes are available: 3 Insufficient memory."},
		{"image pull back-off", corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "simulator", Image: simv1alpha1.DefaultImage,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}}},
			simv1alpha1.SimulatorCreating, true, fmt.Sprintf(`container "simulator" cannot pull image %q (ImagePullBackOff)`, simv1alpha1.DefaultImage)},
		{"crash loop", corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "etcd", RestartCount: 3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2, Reason: "Error"}}}}},
			simv1alpha1.SimulatorCreating, true, `container "etcd" is crash-looping, last exit code 2 (Error)`},
		{"running, not ready", simctlReady(false), simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod},
		{"ready", simctlReady(true), simv1alpha1.SimulatorAvailable, false, "its kube-apiserver is at http://sim." + ns + ".svc:3131"},
		{"not ready again", simctlReady(false), simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod},
	}
	for _, s := range steps {
		simctlKubelet(t, env, pod, s.status)
		simctlWaitStatus(t, env, ns, "sim", s.name+": "+string(s.phase), simctlPhase(s.phase, s.degraded, s.message))
	}
}

// TestSimulatorEndedPodIsReplacedAfterABackoff: a Pod that ended for good (a
// restartPolicy that lets the simulator exit, an eviction) is replaced, but
// not at once: after 10 s, then 20 s, as a crash loop backs off; meanwhile
// the Simulator says when.
func TestSimulatorEndedPodIsReplacedAfterABackoff(t *testing.T) {
	env, ns, _ := simctlSetup(t, "sim-backoff")
	simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}})
	pod := simctlPod(t, env, ns, "sim")
	for round, backoff := range []time.Duration{10 * time.Second, 20 * time.Second} {
		// FinishedAt has whole seconds: the back-off runs from there.
		ended := time.Now().Truncate(time.Second)
		simctlKubelet(t, env, pod, corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "simulator", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(ended)}}}}})
		simctlWaitStatus(t, env, ns, "sim", "the back-off reported", simctlPhase(simv1alpha1.SimulatorCreating, false, "replacing it in"))
		var replaced *corev1.Pod
		framework.WaitForWithin(context.Background(), t, time.Minute, "the ended Pod replaced", func() (bool, error) {
			pods, err := env.Admin.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{LabelSelector: simulatorrender.SimulatorLabel + "=sim"})
			if err != nil {
				return false, err
			}
			for i, p := range pods.Items {
				if p.UID != pod.UID && p.DeletionTimestamp == nil {
					replaced = &pods.Items[i]
					return true, nil
				}
			}
			return false, fmt.Errorf("%d Pods, none new", len(pods.Items))
		})
		if after := replaced.CreationTimestamp.Sub(ended); after < backoff-time.Second {
			t.Fatalf("round %d: the ended Pod was replaced %s after it ended, before its back-off of %s", round+1, after, backoff)
		}
		t.Logf("round %d: replaced %s after it ended (back-off %s)", round+1, replaced.CreationTimestamp.Sub(ended), backoff)
		pod = replaced
	}
}

func TestSimulatorSpecChangeRecreatesThePod(t *testing.T) {
	env, ns, _ := simctlSetup(t, "sim-change")
	first := simctlAvailable(t, env, ns, "sim")

	update := func(mutate func(*simv1alpha1.Simulator)) {
		t.Helper()
		err := retry.RetryOnConflict(framework.ConflictBackoff, func() error {
			sim := simctlGet(t, env, ns, "sim")
			mutate(sim)
			_, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Update(context.Background(), sim, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	// Setting a field to its default renders the same Pod: it keeps running.
	update(func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("") })
	simctlWaitStatus(t, env, ns, "sim", "the new generation observed, still Available", simctlPhase(simv1alpha1.SimulatorAvailable, false, ""))
	if pod := simctlPod(t, env, ns, "sim"); pod.UID != first.UID {
		t.Fatalf("a change that does not alter the Pod replaced it")
	}

	// Any change of the Pod replaces it and goes back to Creating.
	update(func(s *simv1alpha1.Simulator) { s.Spec.Image = "registry.example.com/simulator:v2" })
	simctlWaitStatus(t, env, ns, "sim", "Creating after the change", simctlPhase(simv1alpha1.SimulatorCreating, false, ""))
	framework.WaitFor(context.Background(), t, "the first Pod deleted", func() (bool, error) {
		_, err := env.Admin.Kube.CoreV1().Pods(ns).Get(context.Background(), first.Name, metav1.GetOptions{})
		return simctlGone(err)
	})
	second := simctlPod(t, env, ns, "sim")
	if second.Spec.Containers[0].Image != "registry.example.com/simulator:v2" || second.Name == first.Name {
		t.Fatalf("second pod %s image %s", second.Name, second.Spec.Containers[0].Image)
	}
	simctlKubelet(t, env, second, simctlReady(true))
	simctlWaitStatus(t, env, ns, "sim", "Available again", simctlPhase(simv1alpha1.SimulatorAvailable, false, ""))
}

func TestSimulatorRepairsDriftAndConverges(t *testing.T) {
	env, ns, counter := simctlSetup(t, "sim-drift")
	pod := simctlAvailable(t, env, ns, "sim")

	counter.Reset()
	framework.Consistently(context.Background(), t, 3*time.Second, "a converged controller writes nothing", counter.NoWrites)

	// The Service edited by hand: put back.
	svc, err := env.Admin.Kube.CoreV1().Services(ns).Get(context.Background(), "sim", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Ports = svc.Spec.Ports[:1]
	svc.Spec.Selector = map[string]string{"app": "other"}
	if _, err := env.Admin.Kube.CoreV1().Services(ns).Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(context.Background(), t, "the Service repaired", func() (bool, error) {
		svc, err := env.Admin.Kube.CoreV1().Services(ns).Get(context.Background(), "sim", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if len(svc.Spec.Ports) != 2 || svc.Spec.Selector[simulatorrender.SimulatorLabel] != "sim" {
			return false, fmt.Errorf("ports %v selector %v", svc.Spec.Ports, svc.Spec.Selector)
		}
		return true, nil
	})

	// The Pod deleted: created again, and Creating until ready.
	if err := env.Admin.Kube.CoreV1().Pods(ns).Delete(context.Background(), pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	simctlWaitStatus(t, env, ns, "sim", "Creating", simctlPhase(simv1alpha1.SimulatorCreating, false, ""))
	if again := simctlPod(t, env, ns, "sim"); again.UID == pod.UID {
		t.Fatal("the Pod was not recreated")
	}

	// The Simulator deleted: the controller writes nothing more (its Pod and
	// Service go with the garbage collector, through their owner references).
	if err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Delete(context.Background(), "sim", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(context.Background(), t, "the Simulator gone", func() (bool, error) {
		_, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Get(context.Background(), "sim", metav1.GetOptions{})
		return simctlGone(err)
	})
	time.Sleep(500 * time.Millisecond) // let the controller see the delete
	counter.Reset()
	if err := env.Admin.Kube.CoreV1().Services(ns).Delete(context.Background(), "sim", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Consistently(context.Background(), t, 2*time.Second, "nothing recreated for a deleted Simulator", counter.NoWrites)
}

// TestSimulatorInvalidSpec: inputs the CRD's rules let through and the controller
// refuses (every rule the CRD also has is covered by the unit test of Validate),
// and inputs the API server refuses at once, which Validate refuses too.
func TestSimulatorInvalidSpec(t *testing.T) {
	env, ns, _ := simctlSetup(t, "sim-invalid")
	for _, sim := range []*simv1alpha1.Simulator{
		{ObjectMeta: metav1.ObjectMeta{Name: "1-starts-with-a-digit"}},
		{ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("long", 16)}},
		{ObjectMeta: metav1.ObjectMeta{Name: "with.dot"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "cors-comma"}, Spec: simv1alpha1.SimulatorSpec{CORSAllowedOriginList: []string{"http://a.example,http://b.example"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "etcd-comma"}, Spec: simv1alpha1.SimulatorSpec{EtcdURL: ptr.To("http://a:2379,http://b:2379")}},
	} {
		_, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Create(context.Background(), sim, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Errorf("creating Simulator %q: %v, want the API server to refuse it as invalid", sim.Name, err)
		}
		if errs := simulatorrender.Validate(sim); len(errs) == 0 {
			t.Errorf("Simulator %q: the API server refuses it but Validate accepts it", sim.Name)
		}
	}
	for _, tc := range []struct {
		name    string
		spec    simv1alpha1.SimulatorSpec
		message string
	}{
		{"etcd-port", simv1alpha1.SimulatorSpec{KubeAPIServerPort: 2379}, "spec.kubeAPIServerPort"},
		{"etcd-url-space", simv1alpha1.SimulatorSpec{EtcdURL: ptr.To("http://etcd.example:2379 --x")}, "spec.etcdURL"},
		{"init-container", simv1alpha1.SimulatorSpec{PodTemplate: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "simulator", Image: "busybox"}}, Containers: []corev1.Container{}}}},
			"spec.podTemplate.spec.initContainers[0].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			simctlCreate(t, env, ns, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: tc.name}, Spec: tc.spec})
			simctlWaitStatus(t, env, ns, tc.name, "Pending, Degraded", func(s *simv1alpha1.SimulatorStatus) error {
				if err := simctlPhase(simv1alpha1.SimulatorPending, true, tc.message)(s); err != nil {
					return err
				}
				if c := meta.FindStatusCondition(s.Conditions, simulatorcontroller.ConditionDegraded); c.Reason != simulatorcontroller.ReasonInvalidSpec {
					return fmt.Errorf("Degraded reason %s", c.Reason)
				}
				return nil
			})
			// kubectl describe shows why: a Warning on the Simulator itself.
			framework.WaitFor(context.Background(), t, "a Warning event on the Simulator", func() (bool, error) {
				return framework.FindEvent(context.Background(), env.Admin.Kube, ns, "involvedObject.kind=Simulator,involvedObject.name="+tc.name,
					corev1.EventTypeWarning, simulatorcontroller.ReasonInvalidSpec, tc.message)
			})
			pods, err := env.Admin.Kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pods.Items {
				if p.Labels[simulatorrender.SimulatorLabel] == tc.name {
					t.Errorf("nothing may be created for an invalid spec: Pod %s", p.Name)
				}
			}
		})
	}
}

// TestSimulatorExamples: every example in examples/simulators is admitted, and the
// Pod each renders is accepted by the API server.
func TestSimulatorExamples(t *testing.T) {
	env := framework.Shared(t)
	const ns = "simulators" // the examples' namespace
	t.Cleanup(func() {
		if err := env.DeleteNamespace(context.Background(), ns); err != nil {
			t.Errorf("deleting namespace %s: %v", ns, err)
		}
	})
	var names []string
	for _, f := range []string{"basic.yaml", "external-etcd.yaml", "persistent-etcd.yaml", "scheduler-config.yaml", "newer-image-kwok.yaml"} {
		for _, obj := range env.ApplyFiles(t, "examples/simulators/"+f) {
			if obj.GetKind() == "Simulator" {
				names = append(names, obj.GetName())
			}
		}
	}
	framework.RunSimulatorController(t, env.Config, ns, 2, simulatorcontroller.ClientQPS)
	for _, name := range names {
		simctlWaitStatus(t, env, ns, name, name+" Creating", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))
	}
}
