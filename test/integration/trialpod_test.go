package integration

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The trial Pod runtime's objects on a real API server (no kubelet here: the
// tests write the Pod's status as a kubelet would; a Pod that really runs is
// the e2e tier's): the API server admits them in a namespace enforcing
// restricted Pod Security, each carries the owner and the trial's labels, a
// leftover of an earlier trial is replaced, a failed arm says which and why,
// and nothing is left after a failure or the clean-up.
func TestTrialPodRuntime(t *testing.T) {
	env := framework.Shared(t)
	kube := env.Admin.Kube
	ctx := context.Background()
	ns := env.CreateNamespace(t, "trial-pod")
	nsObj, err := kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nsObj.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
	if _, err := kube.CoreV1().Namespaces().Update(ctx, nsObj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	owner := metav1.OwnerReference{APIVersion: "operator.openshift.io/v1", Kind: "SecondaryScheduler", Name: "cluster",
		UID: "7e57a1a1-0000-4000-8000-000000000001", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	runtime := func(id string, timeout time.Duration) *podruntime.Runtime {
		return &podruntime.Runtime{Kube: kube, Namespace: ns, Owner: owner, TrialID: id, StartTimeout: timeout, Lifetime: trialPodLifetime}
	}
	arm := trial.Arm{Name: "candidate", Image: "registry.k8s.io/kube-scheduler:v1.37.2",
		Config: []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: secondary-scheduler\n")}
	name := podruntime.ObjectName(arm.Name)

	t.Run("a terminated scheduler fails the arm with its message; nothing is left", func(t *testing.T) {
		// What an interrupted earlier trial left.
		stale := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: podruntime.Labels(arm.Name, "ffffffffffff")}}
		if _, err := kube.CoreV1().Secrets(ns).Create(ctx, stale, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		started := startArm(runtime("0123456789ab", 2*time.Minute), arm)
		pod := waitTrialObjects(t, kube, ns, name, "0123456789ab", owner)
		msg := `E2E-TRIAL: couldn't create scheduler: profile "secondary-scheduler": unknown plugin "NoSuchPlugin"`
		pod.Status.Phase = corev1.PodFailed
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: podruntime.SchedulerContainer, Image: arm.Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: msg}}}}
		if _, err := kube.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		err := <-started
		t.Logf("Start: %v", err)
		for _, want := range []string{"candidate: ", `the scheduler container`, "terminated (exit code 1, Error)", msg} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Start returned %v, want it to say %q", err, want)
			}
		}
		waitNoTrialObjects(t, kube, ns)
	})

	t.Run("a sandbox that does not start times out naming the arm, the container and the reason", func(t *testing.T) {
		started := startArm(runtime("0123456789ac", 5*time.Second), arm)
		pod := waitTrialObjects(t, kube, ns, name, "0123456789ac", owner)
		pod.Status.InitContainerStatuses = []corev1.ContainerStatus{
			{Name: podruntime.EtcdContainer, Image: podruntime.DefaultEtcdImage, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}, Started: ptr.To(true)},
			{Name: podruntime.APIServerContainer, Image: podruntime.DefaultAPIServerImage, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.k8s.io/kube-apiserver:v1.37.2"`}}},
		}
		if _, err := kube.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		err := <-started
		t.Logf("Start: %v", err)
		for _, want := range []string{"candidate: ", "did not answer within 5s", `container "kube-apiserver" cannot pull image`, "ImagePullBackOff"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Start returned %v, want it to say %q", err, want)
			}
		}
		waitNoTrialObjects(t, kube, ns)
	})

	t.Run("the clean-up deletes every trial object, and leaves the rest", func(t *testing.T) {
		other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "not-a-trial", Namespace: ns,
			Labels: map[string]string{"app.kubernetes.io/name": podruntime.AppName}}}
		if _, err := kube.CoreV1().Secrets(ns).Create(ctx, other, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		started := startArm(runtime("0123456789ad", 2*time.Minute), arm)
		waitTrialObjects(t, kube, ns, name, "0123456789ad", owner)
		if err := podruntime.DeleteNamed(ctx, kube, ns, name); err != nil {
			t.Fatal(err)
		}
		waitNoTrialObjects(t, kube, ns)
		err := <-started
		t.Logf("Start: %v", err)
		if err == nil || !strings.Contains(err.Error(), "candidate: the trial Pod "+ns+"/"+name+" was deleted") {
			t.Errorf("Start returned %v, want it to say the Pod was deleted", err)
		}
		if _, err := kube.CoreV1().Secrets(ns).Get(ctx, other.Name, metav1.GetOptions{}); err != nil {
			t.Errorf("a Secret the operator did not make is gone: %v", err)
		}
	})
}

// startArm starts arm on rt, and sends Start's error: these arms never answer.
func startArm(rt *podruntime.Runtime, arm trial.Arm) <-chan error {
	started := make(chan error, 1)
	go func() {
		sb, err := rt.Start(context.Background(), arm)
		if sb != nil {
			err = errors.Join(errors.New("the arm started: no kubelet should have run it"), sb.Stop(context.Background()))
		}
		started <- err
	}()
	return started
}

// waitTrialObjects waits for the arm's Secret, NetworkPolicy and Pod of trial
// id, checks their owner and labels, and returns the Pod.
func waitTrialObjects(t *testing.T, kube kubernetes.Interface, ns, name, id string, owner metav1.OwnerReference) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	var pod *corev1.Pod
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		pod = p
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("the trial Pod %s/%s: %v", ns, name, err)
	}
	secret, err := kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	policy, err := kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for kind, m := range map[string]metav1.ObjectMeta{"Pod": pod.ObjectMeta, "Secret": secret.ObjectMeta, "NetworkPolicy": policy.ObjectMeta} {
		if len(m.OwnerReferences) != 1 || m.OwnerReferences[0].UID != owner.UID || !ptr.Deref(m.OwnerReferences[0].Controller, false) {
			t.Errorf("%s %s: owners %+v, want the SecondaryScheduler as controller", kind, name, m.OwnerReferences)
		}
		if m.Labels[podruntime.TrialLabel] != id || m.Labels[podruntime.ArmLabel] != "candidate" || m.Labels["app.kubernetes.io/name"] != podruntime.AppName {
			t.Errorf("%s %s: labels %v, want trial %s's", kind, name, m.Labels, id)
		}
	}
	if len(secret.Data["config.yaml"]) == 0 {
		t.Errorf("the Secret holds %d keys, no configuration", len(secret.Data))
	}
	checkExpiresWithTrial(t, pod, secret)
	checkBounded(t, pod, policy)
	return pod
}

// checkBounded: as the API server stored them, every container of the Pod
// has a memory limit, its scratch volume a size limit, and the policy denies
// all egress.
func checkBounded(t *testing.T, pod *corev1.Pod, policy *networkingv1.NetworkPolicy) {
	t.Helper()
	for _, c := range append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...) {
		if c.Resources.Limits.Memory().IsZero() {
			t.Errorf("container %s has no memory limit", c.Name)
		}
	}
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir != nil && v.EmptyDir.SizeLimit == nil {
			t.Errorf("emptyDir %s has no sizeLimit", v.Name)
		}
	}
	egress := false
	for _, pt := range policy.Spec.PolicyTypes {
		egress = egress || pt == networkingv1.PolicyTypeEgress
	}
	if !egress || len(policy.Spec.Egress) > 0 {
		t.Errorf("NetworkPolicy %s: types %v, egress rules %+v; want Egress with no rule", policy.Name, policy.Spec.PolicyTypes, policy.Spec.Egress)
	}
}

// trialPodLifetime is the Runtime's Lifetime in these tests.
const trialPodLifetime = 7 * time.Minute

// checkExpiresWithTrial: the Pod's deadline is the lifetime, and the
// sandbox's credential (the admin certificate in the scheduler's kubeconfig)
// and CA expire within it, as the API server stored them.
func checkExpiresWithTrial(t *testing.T, pod *corev1.Pod, secret *corev1.Secret) {
	t.Helper()
	if d := pod.Spec.ActiveDeadlineSeconds; d == nil || *d != int64(trialPodLifetime.Seconds()) {
		t.Errorf("the Pod's activeDeadlineSeconds is %v, want %d", d, int64(trialPodLifetime.Seconds()))
	}
	kc, err := clientcmd.Load(secret.Data["kubeconfig"])
	if err != nil {
		t.Fatalf("the Secret's kubeconfig: %v", err)
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*kc, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	latest := time.Now().Add(trialPodLifetime)
	for what, data := range map[string][]byte{"admin certificate": cfg.CertData, "CA": secret.Data["ca.crt"]} {
		certs, err := certutil.ParseCertsPEM(data)
		if err != nil || len(certs) == 0 {
			t.Fatalf("the Secret's %s: %v", what, err)
		}
		if na := certs[0].NotAfter; na.After(latest) || na.Before(latest.Add(-time.Minute)) {
			t.Errorf("the Secret's %s expires at %s, want at most %s from now (%s)", what, na, trialPodLifetime, latest)
		}
	}
	if cfg.BearerToken != "" || len(secret.Data["tokens.csv"]) > 0 {
		t.Error("the Secret holds a token, which cannot expire")
	}
}

// waitNoTrialObjects waits until no trial object is left in ns.
func waitNoTrialObjects(t *testing.T, kube kubernetes.Interface, ns string) {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + podruntime.AppName + ",app.kubernetes.io/managed-by=secondary-scheduler-operator"}
	var left []string
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		left = nil
		pods, err := kube.CoreV1().Pods(ns).List(ctx, sel)
		if err != nil {
			return false, err
		}
		secrets, err := kube.CoreV1().Secrets(ns).List(ctx, sel)
		if err != nil {
			return false, err
		}
		policies, err := kube.NetworkingV1().NetworkPolicies(ns).List(ctx, sel)
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			left = append(left, "Pod "+p.Name)
		}
		for _, s := range secrets.Items {
			left = append(left, "Secret "+s.Name)
		}
		for _, p := range policies.Items {
			left = append(left, "NetworkPolicy "+p.Name)
		}
		return len(left) == 0, nil
	})
	if err != nil {
		t.Errorf("trial objects left in %s: %v (%v)", ns, left, err)
	}
}
