package e2e

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"

	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The trial Pod contract, as the operator's Pod runtime (pkg/operator/trialcontroller/podruntime) writes it, built by hand.
const (
	trialSandboxName   = "sandbox.secondary-scheduler-trial"
	trialProfile       = "trial-e2e"
	trialKubeScheduler = "registry.k8s.io/kube-scheduler:v1.37.2"
)

// TestTrialPod creates a trial Pod and its Secret by hand and sees the harness
// play it as a kubelet would: the Pod runs, its sandbox kube-apiserver answers
// on podIP:6443 with the Secret's CA, server name and admin certificate, the Pod's
// scheduler binds a pod created in the sandbox, and deleting the Pod stops its
// processes and frees its address.
// trialPodNS holds the trial Pods the tests make by hand: a namespace of their
// own, since the operator's trial controller deletes from the operand
// namespace every trial object no trial of its own holds.
var trialPodNS string

func TestTrialPod(t *testing.T) {
	c := needCluster(t)
	trialPodNS = c.createNamespace(t, "e2e-trial-pod")
	ctx := context.Background()
	h := c.trials
	t.Logf("the trial Pod runner logs to %s", h.log)
	pki := newTrialPKI(t)
	secret, pod := trialPodObjects("e2e", "0123456789ab", pki, trialKubeScheduler)
	if _, err := c.admin.Kube.CoreV1().Secrets(trialPodNS).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.admin.Kube.CoreV1().Secrets(trialPodNS).Delete(context.Background(), secret.Name, metav1.DeleteOptions{})
		_ = c.admin.Kube.CoreV1().Pods(trialPodNS).Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))})
	})
	start := time.Now()
	created, err := c.admin.Kube.CoreV1().Pods(trialPodNS).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	running := c.waitTrialPodRunning(ctx, t, created.Name)
	t.Logf("trial Pod Running and Ready %s after its creation, pod IP %s", time.Since(start).Round(100*time.Millisecond), running.Status.PodIP)
	checkTrialPodStatus(t, running)

	sandbox := trialSandboxClient(t, running.Status.PodIP, pki)
	framework.WaitForWithin(ctx, t, time.Minute, "namespace default in the sandbox", func() (bool, error) {
		_, err := sandbox.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
	node := createSandboxNode(ctx, t, sandbox)
	framework.WaitForWithin(ctx, t, time.Minute, "the trial Pod's scheduler to bind a pod in the sandbox", func() (bool, error) {
		p, err := sandbox.CoreV1().Pods("default").Get(ctx, "replayed", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == node, nil
	})
	t.Logf("the sandbox pod was bound to %s by the trial Pod's scheduler %s after the trial Pod's creation", node, time.Since(start).Round(100*time.Millisecond))

	s := h.waitScheduler(ctx, t, created.UID)
	if err := c.admin.Kube.CoreV1().Pods(trialPodNS).Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	checkTrialPodGone(ctx, t, c, s, true)
}

// trialPKI is what the operator generates for one trial arm.
type trialPKI struct {
	caPEM, certPEM, keyPEM []byte
	saKeyPEM, saPubPEM     []byte
	// clientCertPEM and clientKeyPEM are the admin's (system:masters), signed by the CA.
	clientCertPEM, clientKeyPEM []byte
}

// newTrialPKI makes a CA, the sandbox kube-apiserver's serving certificate
// (DNS trialSandboxName, IP 127.0.0.1), a service-account key pair and an
// admin client certificate, each valid for as long as the test may take.
func newTrialPKI(t *testing.T) *trialPKI {
	t.Helper()
	caConfig, err := crypto.MakeSelfSignedCAConfig("trial-e2e-ca", 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ca := &crypto.CA{Config: caConfig, SerialGenerator: &crypto.RandomSerialGenerator{}}
	server, err := ca.MakeServerCert(sets.New(trialSandboxName, "127.0.0.1"), 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p := &trialPKI{}
	if p.caPEM, _, err = caConfig.GetPEMBytes(); err != nil {
		t.Fatal(err)
	}
	if p.certPEM, p.keyPEM, err = server.GetPEMBytes(); err != nil {
		t.Fatal(err)
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	p.saKeyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)})
	p.saPubPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	admin, err := ca.MakeClientCertificateForDuration(&user.DefaultInfo{Name: "trial-admin", Groups: []string{"system:masters"}}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if p.clientCertPEM, p.clientKeyPEM, err = admin.GetPEMBytes(); err != nil {
		t.Fatal(err)
	}
	return p
}

// kubeconfig is the scheduler's kubeconfig, to the kube-apiserver of its Pod.
func (p *trialPKI) kubeconfig() []byte {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443", CertificateAuthorityData: p.caPEM}
	cfg.AuthInfos["trial-admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: p.clientCertPEM, ClientKeyData: p.clientKeyPEM}
	cfg.Contexts["sandbox"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: "trial-admin"}
	cfg.CurrentContext = "sandbox"
	out, err := clientcmd.Write(*cfg)
	if err != nil {
		panic(err) // a config built here always serializes
	}
	return out
}

// trialPodObjects are the Secret and Pod of one arm, as the contract has them.
func trialPodObjects(arm, trialID string, pki *trialPKI, schedulerImage string) (*corev1.Secret, *corev1.Pod) {
	name := "secondary-scheduler-trial-" + arm
	labels := map[string]string{podruntime.AppNameLabel: podruntime.AppName, names.ManagedByLabel: names.ManagedByValue,
		podruntime.ArmLabel: arm, podruntime.TrialLabel: trialID}
	meta := metav1.ObjectMeta{Name: name, Namespace: trialPodNS, Labels: labels}
	config := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: /etc/trial/kubeconfig
leaderElection:
  leaderElect: false
profiles:
- schedulerName: %s
`, trialProfile)
	secret := &corev1.Secret{ObjectMeta: meta, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{
		"ca.crt": pki.caPEM, "tls.crt": pki.certPEM, "tls.key": pki.keyPEM,
		"sa.key": pki.saKeyPEM, "sa.pub": pki.saPubPEM,
		"kubeconfig":  pki.kubeconfig(),
		"config.yaml": []byte(config),
	}}
	pod := &corev1.Pod{ObjectMeta: meta, Spec: corev1.PodSpec{
		AutomountServiceAccountToken: ptr.To(false),
		EnableServiceLinks:           ptr.To(false),
		RestartPolicy:                corev1.RestartPolicyNever,
		SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
		Volumes: []corev1.Volume{
			{Name: "trial", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name, DefaultMode: ptr.To(int32(0o440))}}},
			{Name: "etcd-data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		InitContainers: []corev1.Container{trialEtcd(), trialAPIServer()},
		Containers: []corev1.Container{restricted(corev1.Container{
			Name: "scheduler", Image: schedulerImage, Command: []string{"kube-scheduler"},
			Args:                     []string{"--config=/etc/trial/config.yaml", "--secure-port=0"},
			VolumeMounts:             []corev1.VolumeMount{{Name: "trial", MountPath: "/etc/trial", ReadOnly: true}},
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		}, "100m", "128Mi")},
	}}
	return secret, pod
}

func trialEtcd() corev1.Container {
	return restricted(corev1.Container{
		Name: "etcd", Image: "registry.k8s.io/etcd:3.7.0-0", Command: []string{"etcd"},
		Args: []string{"--data-dir=/var/lib/etcd", "--listen-client-urls=http://127.0.0.1:2379",
			"--advertise-client-urls=http://127.0.0.1:2379", "--listen-peer-urls=http://127.0.0.1:2380", "--unsafe-no-fsync=true"},
		RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
		VolumeMounts:  []corev1.VolumeMount{{Name: "etcd-data", MountPath: "/var/lib/etcd"}},
	}, "100m", "128Mi")
}

func trialAPIServer() corev1.Container {
	return restricted(corev1.Container{
		Name: "kube-apiserver", Image: "registry.k8s.io/kube-apiserver:v1.37.2", Command: []string{"kube-apiserver"},
		Args: []string{"--etcd-servers=http://127.0.0.1:2379", "--secure-port=6443", "--bind-address=0.0.0.0",
			"--tls-cert-file=/etc/trial/tls.crt", "--tls-private-key-file=/etc/trial/tls.key",
			"--client-ca-file=/etc/trial/ca.crt", "--authorization-mode=RBAC", "--anonymous-auth=false",
			"--service-account-issuer=https://" + trialSandboxName, "--service-account-key-file=/etc/trial/sa.pub",
			"--service-account-signing-key-file=/etc/trial/sa.key", "--service-cluster-ip-range=10.0.0.0/24",
			"--disable-admission-plugins=ServiceAccount,PodSecurity"},
		RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
		Ports:         []corev1.ContainerPort{{Name: "https", ContainerPort: 6443}},
		StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(6443)}},
			PeriodSeconds: 1, FailureThreshold: 120},
		VolumeMounts: []corev1.VolumeMount{{Name: "trial", MountPath: "/etc/trial", ReadOnly: true}},
	}, "250m", "512Mi")
}

// restricted sets the restricted Pod Security fields and requests on c.
func restricted(c corev1.Container, cpu, memory string) corev1.Container {
	c.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}
	return c
}

// waitTrialPodRunning waits for the trial Pod to be Running and Ready with a pod IP.
func (c *cluster) waitTrialPodRunning(ctx context.Context, t *testing.T, name string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	framework.WaitForWithin(ctx, t, 2*time.Minute, "trial Pod "+name+" Running and Ready", func() (bool, error) {
		var err error
		if pod, err = c.admin.Kube.CoreV1().Pods(trialPodNS).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, err
		}
		if pod.Status.Phase == corev1.PodFailed {
			return false, fmt.Errorf("the trial Pod failed: %+v", pod.Status.ContainerStatuses)
		}
		return pod.Status.Phase == corev1.PodRunning && pod.Status.PodIP != "" && framework.PodReady(pod), nil
	})
	return pod
}

// checkTrialPodStatus checks what a kubelet reports of a running trial Pod:
// both sidecars started and ready, the scheduler running, the IP in podIPs.
func checkTrialPodStatus(t *testing.T, pod *corev1.Pod) {
	t.Helper()
	if len(pod.Status.InitContainerStatuses) != 2 {
		t.Fatalf("initContainerStatuses: %+v, want etcd and kube-apiserver", pod.Status.InitContainerStatuses)
	}
	for _, cs := range pod.Status.InitContainerStatuses {
		if cs.State.Running == nil || cs.Started == nil || !*cs.Started || !cs.Ready {
			t.Errorf("init container %s: %+v, want running, started and ready", cs.Name, cs)
		}
	}
	if len(pod.Status.ContainerStatuses) != 1 || pod.Status.ContainerStatuses[0].State.Running == nil {
		t.Errorf("containerStatuses: %+v, want the scheduler running", pod.Status.ContainerStatuses)
	}
	if len(pod.Status.PodIPs) != 1 || pod.Status.PodIPs[0].IP != pod.Status.PodIP || !net.ParseIP(pod.Status.PodIP).IsLoopback() {
		t.Errorf("podIP %q, podIPs %+v: want one loopback address in both", pod.Status.PodIP, pod.Status.PodIPs)
	}
}

// trialSandboxClient is the operator's client of a trial Pod's sandbox: the
// Pod IP, the Secret's CA, the fixed server name and the admin certificate.
func trialSandboxClient(t *testing.T, podIP string, pki *trialPKI) kubernetes.Interface {
	t.Helper()
	kube, err := kubernetes.NewForConfig(&rest.Config{
		Host:            "https://" + net.JoinHostPort(podIP, "6443"),
		TLSClientConfig: rest.TLSClientConfig{CAData: pki.caPEM, ServerName: trialSandboxName, CertData: pki.clientCertPEM, KeyData: pki.clientKeyPEM},
	})
	if err != nil {
		t.Fatal(err)
	}
	return kube
}

// createSandboxNode creates a node and a pending pod of the trial profile in
// the sandbox, and returns the node's name.
func createSandboxNode(ctx context.Context, t *testing.T, sandbox kubernetes.Interface) string {
	t.Helper()
	capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "sandbox-node"}, Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity}}
	created, err := sandbox.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Admission (TaintNodesByCondition) taints a new node not-ready; no node
	// controller runs in the sandbox to lift it.
	created.Spec.Taints = nil
	if _, err := sandbox.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "replayed", Namespace: "default"}, Spec: corev1.PodSpec{
		SchedulerName: trialProfile,
		Containers:    []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
	}}
	if _, err := sandbox.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return node.Name
}

// checkTrialPodGone waits, when deleted, for the trial Pod to be gone, then
// checks that its scheduler and sidecars have exited and its address is free.
func checkTrialPodGone(ctx context.Context, t *testing.T, c *cluster, s *operandrunner.TrialScheduler, deleted bool) {
	t.Helper()
	if deleted {
		framework.WaitForWithin(ctx, t, time.Minute, "the deleted trial Pod to be gone", func() (bool, error) {
			_, err := c.admin.Kube.CoreV1().Pods(trialPodNS).Get(ctx, s.Pod.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	}
	for _, p := range append([]*operandrunner.Process{s.Process}, s.Sidecars...) {
		select {
		case <-p.Done():
		case <-time.After(30 * time.Second):
			t.Errorf("process %d (log %s) still runs 30 s after its trial Pod ended", p.PID(), p.LogPath)
		}
	}
	addr := net.JoinHostPort(s.PodIP, "6443")
	framework.WaitForWithin(ctx, t, 30*time.Second, "address "+addr+" to be free", func() (bool, error) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return false, nil
		}
		return true, l.Close()
	})
}

// TestTrialPodSchedulerExits: a trial Pod whose scheduler exits at start (its
// configuration enables a plugin no scheduler has) is reported as a kubelet
// does with restartPolicy Never: the scheduler terminated with its exit code
// and its log's tail as message, the sidecars stopped, the Pod Failed, and its
// address free again.
func TestTrialPodSchedulerExits(t *testing.T) {
	c := needCluster(t)
	trialPodNS = c.createNamespace(t, "e2e-trial-pod")
	ctx := context.Background()
	secret, pod := trialPodObjects("e2e-exit", "0123456789ac", newTrialPKI(t), trialKubeScheduler)
	secret.Data["config.yaml"] = append(secret.Data["config.yaml"], []byte("  plugins:\n    score:\n      enabled:\n      - name: NoSuchPlugin\n")...)
	if _, err := c.admin.Kube.CoreV1().Secrets(trialPodNS).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.admin.Kube.CoreV1().Secrets(trialPodNS).Delete(context.Background(), secret.Name, metav1.DeleteOptions{})
		_ = c.admin.Kube.CoreV1().Pods(trialPodNS).Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))})
	})
	created, err := c.admin.Kube.CoreV1().Pods(trialPodNS).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.WaitForWithin(ctx, t, 2*time.Minute, "trial Pod "+pod.Name+" Failed", func() (bool, error) {
		pod, err = c.admin.Kube.CoreV1().Pods(trialPodNS).Get(ctx, pod.Name, metav1.GetOptions{})
		return err == nil && pod.Status.Phase == corev1.PodFailed, err
	})
	if n := len(pod.Status.ContainerStatuses); n != 1 || pod.Status.ContainerStatuses[0].State.Terminated == nil {
		t.Fatalf("containerStatuses %+v, want the scheduler terminated", pod.Status.ContainerStatuses)
	}
	term := pod.Status.ContainerStatuses[0].State.Terminated
	if term.ExitCode == 0 || !strings.Contains(term.Message, "NoSuchPlugin") {
		t.Errorf("the scheduler terminated with exit code %d, message %q: want a failure naming NoSuchPlugin", term.ExitCode, term.Message)
	}
	// The phase follows the scheduler alone; the sidecars stop after it.
	framework.WaitForWithin(ctx, t, 30*time.Second, "the trial Pod's sidecars reported terminated", func() (bool, error) {
		pod, err = c.admin.Kube.CoreV1().Pods(trialPodNS).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil || len(pod.Status.InitContainerStatuses) != 2 {
			return false, err
		}
		for _, cs := range pod.Status.InitContainerStatuses {
			if cs.State.Terminated == nil {
				return false, nil
			}
		}
		return pod.Status.Phase == corev1.PodFailed, nil
	})
	checkTrialPodGone(ctx, t, c, c.trials.waitScheduler(ctx, t, created.UID), false)
}
