// Package podruntime runs a trial's arms as Pods in the cluster, for the
// operator's trial controller: per arm a Pod with the sandbox (etcd and
// kube-apiserver) and the arm's scheduler, a Secret with the sandbox's
// credentials (credentials.go; they expire with the trial) and a
// NetworkPolicy that admits only the operator's pods and lets nothing out. It
// renders them (render.go, pure), starts and stops them (runtime.go), and
// deletes what a trial left (cleanup.go).
package podruntime

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/podhealth"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// The sandbox's images when Runtime names none. kube-scheduler's
// version-skew policy forbids a scheduler newer than its API server, so the
// sandbox's kube-apiserver is the newest release the operator supports (an
// older candidate is fine), and etcd the release that kube-apiserver is
// tested with. Variables, so that a build can change them (-ldflags -X); a
// disconnected cluster names a mirror through Runtime.
var (
	DefaultEtcdImage      = "registry.k8s.io/etcd:3.6.5-0"
	DefaultAPIServerImage = "registry.k8s.io/kube-apiserver:v1.37.2"
)

// DefaultPodStartTimeout is how long a trial Pod may take, by default, from
// its creation until its sandbox answers: pulling three images included.
const DefaultPodStartTimeout = 5 * time.Minute

// podPollInterval is how often a starting trial Pod is looked at, and
// podCheckInterval a running one.
const (
	podPollInterval  = 500 * time.Millisecond
	podCheckInterval = 2 * time.Second
)

// Runtime runs each arm as a Pod in a cluster: the sandbox (etcd and
// kube-apiserver) and the arm's scheduler (trial.Arm.Image, trial.Arm.Command), with a
// Secret holding the sandbox's credentials and a NetworkPolicy that admits
// only the operator's pods and denies all egress. The operator reaches the
// sandbox at the Pod's IP.
type Runtime struct {
	// Kube is a client of the cluster.
	Kube kubernetes.Interface
	// Namespace holds the trial's objects.
	Namespace string
	// Owner is set on every object (the SecondaryScheduler).
	Owner metav1.OwnerReference
	// TrialID labels the objects (TrialLabel): it tells this trial's from an earlier one's.
	TrialID string
	// EtcdImage and APIServerImage run the sandbox; "" means DefaultEtcdImage
	// and DefaultAPIServerImage.
	EtcdImage, APIServerImage string
	// StartTimeout bounds an arm's start; 0 means DefaultPodStartTimeout.
	StartTimeout time.Duration
	// Lifetime is the Pods' activeDeadlineSeconds, and how long the
	// sandbox's certificates are valid from the arm's start: the kubelet
	// stops an arm that outlives its trial, also when the operator that
	// started it is gone, and what it leaves of its credentials has expired.
	// Required: the trial's timeout and a margin.
	Lifetime time.Duration
	// RunAsUser, when set, is the user, group and fsGroup of the Pod. The
	// upstream etcd and kube-apiserver images run as root by default, which
	// runAsNonRoot refuses: plain Kubernetes needs one (NonRootUser);
	// OpenShift's restricted SCC assigns the namespace's own.
	RunAsUser *int64
}

// NonRootUser is the nonroot user of distroless images, which the upstream
// etcd, kube-apiserver and kube-scheduler images are built on.
const NonRootUser int64 = 65532

// Start implements trial.Runtime: it replaces what an earlier trial left of
// the arm, creates its Secret, NetworkPolicy and Pod, and waits until the
// sandbox answers. On an error it deletes what it created.
func (p *Runtime) Start(ctx context.Context, arm trial.Arm) (trial.Sandbox, error) {
	return p.start(ctx, arm, nil)
}

// StartStored implements trial.StorageRuntime: Start, then objects written
// into the sandbox's etcd over its TLS port, many puts at once rather than
// one create at a time through its API. Its kube-apiserver already runs and
// takes them in through its watch, as it takes another API server's writes.
func (p *Runtime) StartStored(ctx context.Context, arm trial.Arm, objects trial.StoredObjects) (trial.StorageSandbox, error) {
	return p.start(ctx, arm, objects)
}

func (p *Runtime) start(ctx context.Context, arm trial.Arm, objects trial.StoredObjects) (trial.StorageSandbox, error) {
	creds, err := newCredentials(p.Lifetime)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arm.Name, err)
	}
	in := podInputs{namespace: p.Namespace, trialID: p.TrialID, owner: p.Owner, arm: arm,
		etcdImage: p.EtcdImage, apiServerImage: p.APIServerImage, creds: creds, runAsUser: p.RunAsUser, lifetime: p.Lifetime}
	if in.etcdImage == "" {
		in.etcdImage = DefaultEtcdImage
	}
	if in.apiServerImage == "" {
		in.apiServerImage = DefaultAPIServerImage
	}
	objs, err := renderArm(in)
	if err != nil {
		return nil, err
	}
	timeout := p.StartTimeout
	if timeout == 0 {
		timeout = DefaultPodStartTimeout
	}
	startCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	s := &podArm{kube: p.Kube, arm: arm.Name, namespace: p.Namespace, name: objs.pod.Name}
	fail := func(err error) (trial.StorageSandbox, error) {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
		defer cancel()
		return nil, errors.Join(err, s.Stop(stopCtx))
	}
	if err := s.removeEarlier(startCtx); err != nil {
		return fail(err)
	}
	// The policy before the Pod: the sandbox never answers unprotected.
	if _, err := p.Kube.CoreV1().Secrets(p.Namespace).Create(startCtx, objs.secret, metav1.CreateOptions{}); err != nil {
		return fail(fmt.Errorf("%s: creating Secret %s/%s: %w", arm.Name, p.Namespace, objs.secret.Name, err))
	}
	if _, err := p.Kube.NetworkingV1().NetworkPolicies(p.Namespace).Create(startCtx, objs.policy, metav1.CreateOptions{}); err != nil {
		return fail(fmt.Errorf("%s: creating NetworkPolicy %s/%s: %w", arm.Name, p.Namespace, objs.policy.Name, err))
	}
	if _, err := p.Kube.CoreV1().Pods(p.Namespace).Create(startCtx, objs.pod, metav1.CreateOptions{}); err != nil {
		return fail(fmt.Errorf("%s: creating Pod %s/%s: %w", arm.Name, p.Namespace, objs.pod.Name, err))
	}
	if s.config, err = s.waitAnswers(ctx, startCtx, creds, timeout); err != nil {
		return fail(err)
	}
	if objects != nil {
		if err := store(ctx, s.config, objects, storeInFlight); err != nil {
			return fail(fmt.Errorf("%s: %w", arm.Name, err))
		}
	}
	return s, nil
}

// podArm is an arm's trial Pod.
type podArm struct {
	kube                 kubernetes.Interface
	arm, namespace, name string
	config               *rest.Config
	// checked is when Failed last read the Pod.
	checked time.Time
}

func (s *podArm) Config() *rest.Config { return rest.CopyConfig(s.config) }

// Store implements trial.StorageSandbox.
func (s *podArm) Store(ctx context.Context, objects trial.StoredObjects) error {
	return store(ctx, s.config, objects, 1)
}

// SchedulerMetrics implements trial.SchedulerMetrics: the scheduler's
// metrics on the Pod's IP, read as the sandbox's admin.
func (s *podArm) SchedulerMetrics(ctx context.Context) ([]byte, error) {
	cfg, err := MetricsClient(s.config)
	if err != nil {
		return nil, err
	}
	return trial.ReadSchedulerMetrics(ctx, cfg)
}

// Log is "": the scheduler's log stays in the Pod; its tail is the
// termination message a failed arm reports.
func (s *podArm) Log() string { return "" }

// ImageID implements trial.ImageIdentifier: the imageID the kubelet reports
// for the scheduler container, "" when the Pod cannot be read or reports none.
func (s *podArm) ImageID(ctx context.Context) string {
	pod, err := s.kube.CoreV1().Pods(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return SchedulerImageID(pod)
}

// SchedulerImageID is the imageID pod's status reports for its scheduler
// container, "" when it reports none.
func SchedulerImageID(pod *corev1.Pod) string {
	for _, c := range pod.Status.ContainerStatuses {
		if c.Name == SchedulerContainer {
			return c.ImageID
		}
	}
	return ""
}

func (s *podArm) what() string { return fmt.Sprintf("Pod %s/%s", s.namespace, s.name) }

// Failed implements trial.Sandbox. It reads the Pod at most every
// podCheckInterval (the arm polls more often, and the cluster's API server
// is shared). A failed read of the Pod is no verdict on it.
func (s *podArm) Failed(ctx context.Context) error {
	if time.Since(s.checked) < podCheckInterval {
		return nil
	}
	s.checked = time.Now()
	pod, err := s.kube.CoreV1().Pods(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s: the trial %s was deleted", s.arm, s.what())
	}
	if err != nil {
		return nil
	}
	return s.failure(pod)
}

// failure says why pod can no longer run the arm, nil while it may.
func (s *podArm) failure(pod *corev1.Pod) error {
	for _, c := range pod.Status.ContainerStatuses {
		if t := c.State.Terminated; c.Name == SchedulerContainer && t != nil {
			return fmt.Errorf("%s: the %s container of the trial %s terminated (exit code %d, %s)%s",
				s.arm, SchedulerContainer, s.what(), t.ExitCode, t.Reason, detailOf(t.Message))
		}
	}
	switch {
	case pod.DeletionTimestamp != nil:
		return fmt.Errorf("%s: the trial %s is being deleted", s.arm, s.what())
	case pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded:
		return fmt.Errorf("%s: the trial %s ended (%s%s)%s", s.arm, s.what(), pod.Status.Phase,
			strings.TrimSuffix(", "+pod.Status.Reason, ", "), detailOf(pod.Status.Message))
	}
	return nil
}

// waitAnswers waits until the Pod's sandbox answers (readyz, and namespace
// default made), and returns its client config. startCtx bounds it; ctx tells
// a cancelled trial from a timed-out start.
func (s *podArm) waitAnswers(ctx, startCtx context.Context, creds *credentials, timeout time.Duration) (*rest.Config, error) {
	var (
		probe             kubernetes.Interface
		podIP             string
		pod               *corev1.Pod
		readErr, probeErr error
		interval          = time.NewTicker(podPollInterval)
	)
	defer interval.Stop()
	for {
		p, err := s.kube.CoreV1().Pods(s.namespace).Get(startCtx, s.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, fmt.Errorf("%s: the trial %s was deleted before its sandbox answered", s.arm, s.what())
		case err != nil:
			readErr = err
		default:
			pod = p
			if err := s.failure(pod); err != nil {
				return nil, err
			}
		}
		if pod != nil && pod.Status.PodIP != "" && pod.Status.Phase == corev1.PodRunning {
			if pod.Status.PodIP != podIP {
				podIP = pod.Status.PodIP
				c := rest.CopyConfig(sandboxClient(podIP, creds))
				c.Timeout = 5 * time.Second
				if probe, err = kubernetes.NewForConfig(c); err != nil {
					return nil, err
				}
			}
			if probeErr = answers(startCtx, probe); probeErr == nil {
				return sandboxClient(podIP, creds), nil
			}
		}
		select {
		case <-startCtx.Done():
			why := notAnswering(pod, readErr, probeErr)
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%s: %w while the trial %s started: %s", s.arm, err, s.what(), why)
			}
			return nil, fmt.Errorf("%s: the trial %s did not answer within %s: %s", s.arm, s.what(), timeout, why)
		case <-interval.C:
		}
	}
}

// answers tells whether a sandbox serves: ready, with namespace default made
// (the first objects seeded live there).
func answers(ctx context.Context, kube kubernetes.Interface) error {
	if _, err := kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
		return fmt.Errorf("readyz: %w", err)
	}
	_, err := kube.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{})
	return err
}

// notAnswering says why a trial Pod's sandbox does not answer: what the Pod
// reports wrong (podhealth), else what it waits for. readErr is the last
// failed read of the Pod, probeErr the sandbox's last answer.
func notAnswering(pod *corev1.Pod, readErr, probeErr error) string {
	if pod == nil {
		return fmt.Sprintf("the Pod could not be read: %v", readErr)
	}
	var why []string
	for _, p := range podhealth.Problems(pod) {
		why = append(why, p.Message)
	}
	if len(why) > 0 {
		return strings.Join(why, "; ")
	}
	if pod.Spec.NodeName == "" {
		return "the Pod is not scheduled yet"
	}
	statuses := append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	for _, c := range statuses {
		switch {
		case c.State.Waiting != nil:
			why = append(why, fmt.Sprintf("container %q is waiting (%s)", c.Name, c.State.Waiting.Reason))
		case c.State.Running != nil && (c.Started == nil || !*c.Started):
			why = append(why, fmt.Sprintf("container %q has not started", c.Name))
		}
	}
	switch {
	case pod.Status.PodIP == "":
		why = append(why, "the Pod has no IP")
	case probeErr != nil:
		why = append(why, fmt.Sprintf("the sandbox at %s: %v", net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(SandboxPort)), probeErr))
	}
	if len(why) == 0 {
		return fmt.Sprintf("the Pod is %s", pod.Status.Phase)
	}
	return strings.Join(why, "; ")
}

func detailOf(msg string) string {
	if msg = strings.TrimSpace(msg); msg == "" {
		return ""
	}
	return ": " + msg
}

// removeEarlier deletes what an earlier trial left under this arm's names,
// and waits until its Pod is gone.
func (s *podArm) removeEarlier(ctx context.Context) error {
	if err := s.Stop(ctx); err != nil {
		return err
	}
	for {
		_, err := s.kube.CoreV1().Pods(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: the %s of an earlier trial is still there: %w", s.arm, s.what(), ctx.Err())
		case <-time.After(podPollInterval):
		}
	}
}

// Stop implements trial.Sandbox: it deletes the arm's Pod, Secret and
// NetworkPolicy, when they are trial objects (another object of the name is
// left alone).
func (s *podArm) Stop(ctx context.Context) error {
	return DeleteNamed(ctx, s.kube, s.namespace, s.name)
}

// stopTimeout bounds stopping one arm.
const stopTimeout = time.Minute
