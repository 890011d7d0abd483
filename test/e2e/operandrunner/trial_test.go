package operandrunner

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// trialPod is a trial Pod as the contract has it, reduced to what the runner reads.
func trialPod() *corev1.Pod {
	mount := []corev1.VolumeMount{{Name: "trial", MountPath: "/etc/trial", ReadOnly: true}}
	sidecar := func(name string, args ...string) corev1.Container {
		return corev1.Container{Name: name, Command: []string{name}, Args: args, VolumeMounts: mount,
			RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}
	}
	etcd := sidecar("etcd", "--data-dir=/var/lib/etcd")
	etcd.VolumeMounts = []corev1.VolumeMount{{Name: "etcd-data", MountPath: "/var/lib/etcd"}}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "secondary-scheduler-trial-current", Namespace: "openshift-secondary-scheduler", UID: "0123456789",
			Labels: map[string]string{TrialArmLabel: "current"}},
		Spec: corev1.PodSpec{
			RestartPolicy:  corev1.RestartPolicyNever,
			InitContainers: []corev1.Container{etcd, sidecar("kube-apiserver", "--tls-cert-file=/etc/trial/tls.crt")},
			Containers: []corev1.Container{{Name: "scheduler", Command: []string{"kube-scheduler"},
				Args: []string{"--config=/etc/trial/config.yaml", "--secure-port=0"}, VolumeMounts: mount}},
			Volumes: []corev1.Volume{
				{Name: "trial", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "secondary-scheduler-trial-current"}}},
				{Name: "etcd-data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
		},
	}
}

// The Secret's files go to the volume's directory with every path under the
// mount rewritten, so config.yaml names the host copy of the kubeconfig; the
// emptyDir stays empty; arguments name the host files.
func TestTrialPodVolumes(t *testing.T) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "secondary-scheduler-trial-current", Namespace: "openshift-secondary-scheduler"},
		Data: map[string][]byte{"config.yaml": []byte("clientConnection:\n  kubeconfig: /etc/trial/kubeconfig\n"), "tls.crt": []byte("PEM")}}
	pod := trialPod()
	tp, err := ReadTrialPod(context.Background(), fake.NewClientset(secret), pod)
	if err != nil {
		t.Fatal(err)
	}
	volumes := trialVolumes(tp, "/host/pod")
	if got, want := volumes["trial"].files["config.yaml"], "clientConnection:\n  kubeconfig: /host/pod/volumes/trial/kubeconfig\n"; got != want {
		t.Errorf("config.yaml written as %q, want %q", got, want)
	}
	if got := volumes["trial"].files["tls.crt"]; got != "PEM" {
		t.Errorf("tls.crt written as %q, want the Secret's data", got)
	}
	if v, ok := volumes["etcd-data"]; !ok || v.files != nil {
		t.Errorf("etcd-data: %+v (present %v), want an emptyDir", v, ok)
	}
	if tp.Volumes["trial"].files["config.yaml"] != string(secret.Data["config.yaml"]) {
		t.Errorf("trialVolumes changed what was read: %q", tp.Volumes["trial"].files["config.yaml"])
	}
	rw := volumeRewriter("/host/pod", tp.Scheduler)
	if got := rewriteArg("--config=/etc/trial/config.yaml", rw); got != "--config=/host/pod/volumes/trial/config.yaml" {
		t.Errorf("the scheduler's --config: %q", got)
	}
}

// A pod that does not follow the contract is refused with the field named; a
// missing Secret keeps it waiting as a kubelet does.
func TestReadTrialPodRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*corev1.Pod)
		want   string
	}{
		"sidecars in another order": {func(p *corev1.Pod) {
			p.Spec.InitContainers[0], p.Spec.InitContainers[1] = p.Spec.InitContainers[1], p.Spec.InitContainers[0]
		}, "spec.initContainers are [kube-apiserver etcd], want [etcd kube-apiserver]"},
		"a plain init container": {func(p *corev1.Pod) { p.Spec.InitContainers[1].RestartPolicy = nil },
			"spec.initContainers[1] (kube-apiserver): restartPolicy must be Always"},
		"no scheduler": {func(p *corev1.Pod) { p.Spec.Containers[0].Name = "other" }, `spec.containers has no container "scheduler"`},
		"no Secret":    {func(*corev1.Pod) {}, "the pod's Secret does not exist: Secret openshift-secondary-scheduler/secondary-scheduler-trial-current"},
	} {
		t.Run(name, func(t *testing.T) {
			pod := trialPod()
			tc.mutate(pod)
			_, err := ReadTrialPod(context.Background(), fake.NewClientset(), pod)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestRestarts(t *testing.T) {
	for _, tc := range []struct {
		policy corev1.RestartPolicy
		code   int32
		want   bool
	}{
		{corev1.RestartPolicyAlways, 0, true}, {"", 1, true},
		{corev1.RestartPolicyOnFailure, 0, false}, {corev1.RestartPolicyOnFailure, 1, true},
		{corev1.RestartPolicyNever, 0, false}, {corev1.RestartPolicyNever, 137, false},
	} {
		if got := restarts(tc.policy, tc.code); got != tc.want {
			t.Errorf("restarts(%q, %d) = %v, want %v", tc.policy, tc.code, got, tc.want)
		}
	}
}

// A trial Pod's status through its life: Pending and not initialized while
// kube-apiserver has not started; Running and Ready once all run; Failed with
// the scheduler's exit code and log tail once it exits (restartPolicy Never).
func TestTrialPodStatus(t *testing.T) {
	now := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	pod := trialPod()
	running := func(name string, started bool) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, Started: ptr.To(started), Ready: started,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: apiTime(now)}}}
	}
	c := newContainerRun(pod, "scheduler")
	c.Waiting = corev1.ContainerStateWaiting{Reason: "PodInitializing"}
	st := podStatus(pod, c.status(now), []corev1.ContainerStatus{running("etcd", true), running("kube-apiserver", false)}, now)
	if st.Phase != corev1.PodPending {
		t.Errorf("phase %s while kube-apiserver starts, want Pending", st.Phase)
	}
	if cond := findCondition(st.Conditions, corev1.PodInitialized); cond == nil || cond.Status != corev1.ConditionFalse || !strings.Contains(cond.Message, "[kube-apiserver]") {
		t.Errorf("Initialized: %+v, want False naming kube-apiserver", cond)
	}

	c.started(now, func(time.Time) bool { return true })
	sidecars := []corev1.ContainerStatus{running("etcd", true), running("kube-apiserver", true)}
	pod.Status = podStatus(pod, c.status(now), sidecars, now)
	if pod.Status.Phase != corev1.PodRunning || readiness(pod.Status) != corev1.ConditionTrue || len(pod.Status.InitContainerStatuses) != 2 {
		t.Errorf("all running: phase %s, Ready %s, %d init statuses; want Running, True, 2", pod.Status.Phase, readiness(pod.Status), len(pod.Status.InitContainerStatuses))
	}

	c.finished(1, "E1202 invalid configuration", now.Add(time.Minute))
	st = podStatus(pod, c.status(now), sidecars, now)
	term := st.ContainerStatuses[0].State.Terminated
	if st.Phase != corev1.PodFailed || term == nil || term.ExitCode != 1 || term.Message != "E1202 invalid configuration" {
		t.Errorf("after the scheduler exited: phase %s, terminated %+v; want Failed, exit code 1 and the log tail", st.Phase, term)
	}
	if readiness(st) != corev1.ConditionFalse {
		t.Errorf("Ready %s after the scheduler exited, want False", readiness(st))
	}
}

// Addresses are taken from 127.0.0.10 up, the first whose port is free.
func TestListenPodAddress(t *testing.T) {
	port := freeTestPort(t)
	first, ip, err := listenPodAddress(port)
	if err != nil {
		t.Fatal(err)
	}
	defer first[0].Close()
	if ip != "127.0.0.10" {
		t.Errorf("first address %s, want 127.0.0.10", ip)
	}
	second, ip2, err := listenPodAddress(port)
	if err != nil {
		t.Fatal(err)
	}
	if ip2 != "127.0.0.11" {
		t.Errorf("second address %s, want 127.0.0.11 (127.0.0.10:%d is taken)", ip2, port)
	}
	second[0].Close()
	again, ip3, err := listenPodAddress(port)
	if err != nil {
		t.Fatal(err)
	}
	defer again[0].Close()
	if ip3 != ip2 {
		t.Errorf("after the second was closed: %s, want %s again", ip3, ip2)
	}
}

// freeTestPort is a port free on 127.0.0.10 and 127.0.0.11 now.
func freeTestPort(t *testing.T) int {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.10:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l2, err := net.Listen("tcp", "127.0.0.11:"+strconv.Itoa(port))
		l.Close()
		if err == nil {
			l2.Close()
			return port
		}
	}
	t.Fatal("no port free on both 127.0.0.10 and 127.0.0.11")
	return 0
}
