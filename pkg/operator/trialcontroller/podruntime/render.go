package podruntime

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	"github.com/openshift/secondary-scheduler-operator/pkg/internal/manifest"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// What a Runtime makes in the cluster, per arm: a Secret, a Pod and a
// NetworkPolicy, each named ObjectName(arm) and labelled with Labels.
const (
	// AppName is the app.kubernetes.io/name label of every trial object.
	AppName = "secondary-scheduler-trial"
	// AppNameLabel is the label that holds AppName.
	AppNameLabel = "app.kubernetes.io/name"
	// ArmLabel holds the arm's name, TrialLabel the trial's id.
	ArmLabel   = "trial.secondary-scheduler.openshift.io/arm"
	TrialLabel = "trial.secondary-scheduler.openshift.io/trial"
	// SandboxServerName is the DNS name of the sandbox's serving certificate:
	// clients verify it whatever the Pod's IP.
	SandboxServerName = "sandbox.secondary-scheduler-trial"
	// SandboxPort is the sandbox kube-apiserver's port on the Pod's IP.
	SandboxPort = 6443
	// SchedulerMetricsPort is where the arm's scheduler serves its metrics on
	// the Pod's IP, to whom its sandbox authorizes: the trial reads its
	// queues to know it has settled (trial.SchedulerMetrics).
	SchedulerMetricsPort = 10259
	// SandboxEtcdPort is the sandbox etcd's TLS port on the Pod's IP: the
	// operator writes the snapshot into it (StartStored).
	SandboxEtcdPort = 2382
	// SchedulerContainer, EtcdContainer and APIServerContainer name the Pod's containers.
	SchedulerContainer = "scheduler"
	EtcdContainer      = "etcd"
	APIServerContainer = "kube-apiserver"

	// mountPath is where the Secret is mounted in the Pod's containers.
	mountPath = "/etc/trial"
	// operatorAppName labels the operator's own pods, the only ones the
	// NetworkPolicy admits.
	operatorAppName = "secondary-scheduler-operator"
	podAsset        = "assets/trial/pod.yaml"
	policyAsset     = "assets/trial/networkpolicy.yaml"
)

// Keys of the trial Secret.
const (
	caKey         = "ca.crt"
	tlsCertKey    = "tls.crt"
	tlsKeyKey     = "tls.key"
	saKeyKey      = "sa.key"
	saPubKey      = "sa.pub"
	kubeconfigKey = "kubeconfig"
	configKey     = "config.yaml"
)

// ObjectName names the Secret, Pod and NetworkPolicy of an arm.
func ObjectName(arm string) string { return AppName + "-" + arm }

// Labels are the labels of an arm's objects.
func Labels(arm, trialID string) map[string]string {
	return map[string]string{
		AppNameLabel:         AppName,
		names.ManagedByLabel: names.ManagedByValue,
		ArmLabel:             arm,
		TrialLabel:           trialID,
	}
}

// podTemplates decodes the embedded assets once: they are ours, so a decode
// failure is a build bug (OrDie); callers DeepCopy before patching.
var podTemplates = sync.OnceValues(func() (*corev1.Pod, *networkingv1.NetworkPolicy) {
	return manifest.MustDecode[*corev1.Pod](bindata.MustAsset(podAsset)), manifest.MustDecode[*networkingv1.NetworkPolicy](bindata.MustAsset(policyAsset))
})

// armObjects are an arm's objects in the cluster.
type armObjects struct {
	secret *corev1.Secret
	pod    *corev1.Pod
	policy *networkingv1.NetworkPolicy
}

// podInputs is everything renderArm reads.
type podInputs struct {
	namespace, trialID        string
	owner                     metav1.OwnerReference
	arm                       trial.Arm
	etcdImage, apiServerImage string
	creds                     *credentials
	// runAsUser, when set, runs every container as that user, group and
	// fsGroup (Runtime.RunAsUser).
	runAsUser *int64
	// lifetime is the Pod's activeDeadlineSeconds (Runtime.Lifetime); creds
	// expire with it.
	lifetime time.Duration
}

// renderArm renders an arm's Secret, Pod and NetworkPolicy. It is pure: the
// credentials are made by the caller.
func renderArm(in podInputs) (*armObjects, error) {
	if err := validateArm(in); err != nil {
		return nil, err
	}
	name := ObjectName(in.arm.Name)
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: in.namespace, Labels: Labels(in.arm.Name, in.trialID),
			OwnerReferences: []metav1.OwnerReference{in.owner}}
	}
	secret, err := renderSecret(in.arm, in.creds)
	if err != nil {
		return nil, err
	}
	secret.ObjectMeta = meta()

	podTmpl, policyTmpl := podTemplates()
	pod := podTmpl.DeepCopy()
	pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	pod.ObjectMeta = meta()
	setImage(pod.Spec.InitContainers, EtcdContainer, in.etcdImage)
	setImage(pod.Spec.InitContainers, APIServerContainer, in.apiServerImage)
	setImage(pod.Spec.Containers, SchedulerContainer, in.arm.Image)
	if len(in.arm.Command) > 0 {
		pod.Spec.Containers[0].Command = in.arm.Command
	}
	// After the trial's own flags: the arm's feature gates and settings, as its pods run them.
	pod.Spec.Containers[0].Args = append(pod.Spec.Containers[0].Args, in.arm.Args...)
	// Only what this snapshot needs: a kube-apiserver that does not know an
	// API version or gate named refuses to start.
	addFlags(pod.Spec.InitContainers, APIServerContainer, in.arm.Holds.APIServerFlags())
	addFlags(pod.Spec.InitContainers, EtcdContainer, trial.EtcdFlags())
	for i := range pod.Spec.Volumes {
		if s := pod.Spec.Volumes[i].Secret; s != nil {
			s.SecretName = name
		}
	}
	if err := sizeFor(pod, in.arm.Holds); err != nil {
		return nil, fmt.Errorf("%s: %w", in.arm.Name, err)
	}
	pod.Spec.ActiveDeadlineSeconds = ptr.To(int64(math.Ceil(in.lifetime.Seconds())))
	if id := in.runAsUser; id != nil {
		sc := pod.Spec.SecurityContext
		sc.RunAsUser, sc.RunAsGroup, sc.FSGroup = ptr.To(*id), ptr.To(*id), ptr.To(*id)
	}

	policy := policyTmpl.DeepCopy()
	policy.TypeMeta = metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"}
	policy.ObjectMeta = meta()
	policy.Spec.PodSelector = metav1.LabelSelector{MatchLabels: map[string]string{ArmLabel: in.arm.Name, TrialLabel: in.trialID}}
	return &armObjects{secret: secret, pod: pod, policy: policy}, nil
}

func addFlags(containers []corev1.Container, name string, flags []trial.Flag) {
	for i := range containers {
		if c := &containers[i]; c.Name == name {
			for _, f := range flags {
				c.Args = append(c.Args, f.String())
			}
		}
	}
}

func setImage(containers []corev1.Container, name, image string) {
	for i := range containers {
		if containers[i].Name == name {
			containers[i].Image = image
		}
	}
}

// validateArm says which input cannot make valid objects.
func validateArm(in podInputs) error {
	for _, f := range []struct{ field, value string }{
		{"namespace", in.namespace}, {"trial id", in.trialID}, {"the owner's name", in.owner.Name},
		{"the etcd image", in.etcdImage}, {"the kube-apiserver image", in.apiServerImage},
		{fmt.Sprintf("arm %q's image", in.arm.Name), in.arm.Image},
	} {
		if f.value == "" {
			return fmt.Errorf("trial: %s is empty", f.field)
		}
	}
	if in.lifetime <= 0 {
		return fmt.Errorf("trial: arm %q has no lifetime (Runtime.Lifetime): its Pod and credentials must end with the trial", in.arm.Name)
	}
	if errs := validation.IsDNS1123Label(ObjectName(in.arm.Name)); len(errs) > 0 || in.arm.Name == "" {
		return fmt.Errorf("trial: arm name %q does not make an object name: %v", in.arm.Name, errs)
	}
	if errs := validation.IsValidLabelValue(in.trialID); len(errs) > 0 {
		return fmt.Errorf("trial: trial id %q is no label value: %v", in.trialID, errs)
	}
	return nil
}

// renderSecret is an arm's Secret, without its metadata.
func renderSecret(arm trial.Arm, c *credentials) (*corev1.Secret, error) {
	local := &rest.Config{Host: "https://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(SandboxPort)),
		TLSClientConfig: rest.TLSClientConfig{CAData: c.ca, CertData: c.clientCert, KeyData: c.clientKey}}
	kubeconfig, err := clientcmd.Write(trial.Kubeconfig(local))
	if err != nil {
		return nil, err
	}
	config, err := trial.SandboxSchedulerConfig(arm.Config, mountPath+"/"+kubeconfigKey)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arm.Name, err)
	}
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		Type:     corev1.SecretTypeOpaque,
		Data: map[string][]byte{
			caKey: c.ca, tlsCertKey: c.tlsCert, tlsKeyKey: c.tlsKey, saKeyKey: c.saKey, saPubKey: c.saPub,
			kubeconfigKey: kubeconfig,
			configKey:     config,
		},
	}, nil
}

// MetricsClient is the operator's client config of the scheduler's
// metrics on the host of sandbox (the Pod IP): the sandbox's serving
// certificate and admin credentials.
func MetricsClient(sandbox *rest.Config) (*rest.Config, error) {
	u, err := url.Parse(sandbox.Host)
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(sandbox)
	cfg.Host = "https://" + net.JoinHostPort(u.Hostname(), strconv.Itoa(SchedulerMetricsPort))
	return cfg, nil
}

// sandboxClient is the operator's client config of a sandbox at podIP.
func sandboxClient(podIP string, c *credentials) *rest.Config {
	return trial.Unlimited(&rest.Config{
		Host:            "https://" + net.JoinHostPort(podIP, strconv.Itoa(SandboxPort)),
		TLSClientConfig: rest.TLSClientConfig{CAData: c.ca, ServerName: SandboxServerName, CertData: c.clientCert, KeyData: c.clientKey},
	})
}
