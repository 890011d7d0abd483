package operandrunner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

const (
	// tokenLifetime is how long a ServiceAccount token lives; it is replaced
	// after half of it (client-go rereads a kubeconfig's tokenFile).
	tokenLifetime = time.Hour
	// stopTimeout is how long Stop waits after SIGTERM before SIGKILL.
	stopTimeout = 10 * time.Second
)

// Files the runner writes into a pod's directory, Options.Dir/<pod name>.
const (
	KubeconfigFile = "kubeconfig"
	TokenFile      = "token"
	ConfigFile     = "config.yaml"
	LogFile        = "kube-scheduler.log"
	PIDFile        = "kube-scheduler.pid"
)

// Options say how to run the schedulers.
type Options struct {
	// Admin is a client config allowed to read the operand's pods and ConfigMaps,
	// update pod status and request tokens (the harness's, not the scheduler's).
	Admin *rest.Config
	// KubeScheduler is the path of the kube-scheduler binary.
	KubeScheduler string
	// SchedulerPlugins is the path of scheduler-plugins' scheduler
	// (hack/controlplane/build.sh builds it); empty when there is none.
	SchedulerPlugins string
	// Dir receives one directory per pod, named after it, with the kubeconfig,
	// token, config.yaml, log and pid file.
	Dir string
	// Logf reports what the runner does (nil: silent).
	Logf func(format string, args ...interface{})
}

// SchedulerPluginsImage is the repository of scheduler-plugins' scheduler image.
const SchedulerPluginsImage = "registry.k8s.io/scheduler-plugins/kube-scheduler"

// Binary says which binary plays a scheduler image, by its repository (the tag
// is not looked at: there is one build of each):
//
//   - registry.k8s.io/scheduler-plugins/kube-scheduler: Options.SchedulerPlugins,
//     kube-scheduler with the out-of-tree plugins (Coscheduling,
//     CapacityScheduling, Trimaran ...) registered;
//   - any other image: Options.KubeScheduler, the upstream kube-scheduler, so
//     an image's own out-of-tree plugins are not there.
func (o *Options) Binary(image string) (string, error) {
	if imageRepository(image) == SchedulerPluginsImage {
		if o.SchedulerPlugins == "" {
			return "", fmt.Errorf("image %s needs scheduler-plugins' scheduler, and none was given: build it with hack/controlplane/build.sh", image)
		}
		return o.SchedulerPlugins, nil
	}
	return o.KubeScheduler, nil
}

// imageRepository is image without its tag or digest.
func imageRepository(image string) string {
	if i := strings.Index(image, "@"); i >= 0 {
		image = image[:i]
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		image = image[:i]
	}
	return image
}

func (o *Options) logf(format string, args ...interface{}) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// Pod is what the runner reads for one operand pod.
type Pod struct {
	Name           string
	UID            types.UID
	ServiceAccount string
	// Image is the scheduler container's image.
	Image string
	// Args are the scheduler container's arguments.
	Args []string
	// ConfigMap is the ConfigMap the pod's volume secondary-scheduler-config names.
	ConfigMap string
	// Config is its config.yaml.
	Config []byte
}

// errNoConfigMap says the pod's ConfigMap does not exist (yet): a kubelet keeps
// such a pod in ContainerCreating.
var errNoConfigMap = errors.New("the pod's ConfigMap does not exist")

// ReadPod reads what the scheduler container of pod runs with: its arguments,
// and config.yaml of the ConfigMap its volume secondary-scheduler-config names.
func ReadPod(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod) (*Pod, error) {
	var container *corev1.Container
	for i := range pod.Spec.Containers {
		if c := &pod.Spec.Containers[i]; c.Name == names.OperandName {
			container = c
		}
	}
	if container == nil {
		return nil, fmt.Errorf("pod %s has no container %q", pod.Name, names.OperandName)
	}
	if !tokenMounted(pod, container) {
		// A kubelet would start it without a token: it could not reach the API server.
		return nil, fmt.Errorf("pod %s: container %q mounts no service account token", pod.Name, container.Name)
	}
	var cmName string
	for _, v := range pod.Spec.Volumes {
		if v.Name == secondaryschedulerv1.ConfigVolumeName && v.ConfigMap != nil {
			cmName = v.ConfigMap.Name
		}
	}
	if cmName == "" {
		return nil, fmt.Errorf("pod %s has no ConfigMap volume %q", pod.Name, secondaryschedulerv1.ConfigVolumeName)
	}
	cm, err := kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, cmName, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%w: ConfigMap %s/%s", errNoConfigMap, pod.Namespace, cmName)
		}
		return nil, err
	}
	config, ok := cm.Data[names.ConfigKey]
	if !ok {
		return nil, fmt.Errorf("ConfigMap %s/%s has no key %s", cm.Namespace, cm.Name, names.ConfigKey)
	}
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	return &Pod{Name: pod.Name, UID: pod.UID, ServiceAccount: sa, Image: container.Image, Args: container.Args, ConfigMap: cmName, Config: []byte(config)}, nil
}

// tokenMounted tells whether a kubelet would give container a service account
// token: the pod automounts one, or the container mounts a projected volume
// with a token source.
func tokenMounted(pod *corev1.Pod, container *corev1.Container) bool {
	if a := pod.Spec.AutomountServiceAccountToken; a == nil || *a {
		return true
	}
	for _, m := range container.VolumeMounts {
		for _, v := range pod.Spec.Volumes {
			if v.Name != m.Name || v.Projected == nil {
				continue
			}
			for _, s := range v.Projected.Sources {
				if s.ServiceAccountToken != nil {
					return true
				}
			}
		}
	}
	return false
}

// Scheduler is one run of the kube-scheduler process of a pod.
type Scheduler struct {
	*Process
	// Pod is what it runs.
	Pod *Pod
	// Args are the arguments it was started with.
	Args []string
}

// ready stands in for the readiness probe: the host process serves no port.
func (s *Scheduler) ready(now time.Time) bool { return now.Sub(s.StartedAt) >= readyAfter }

// Start writes the token, kubeconfig and config.yaml into o.Dir/<pod name> and
// starts kube-scheduler for pod. The process is killed when the calling process
// dies.
func Start(ctx context.Context, o Options, pod *Pod) (*Scheduler, error) {
	dir := filepath.Join(o.Dir, pod.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(o.Admin)
	if err != nil {
		return nil, err
	}
	tokenPath := filepath.Join(dir, TokenFile)
	expires, err := writeToken(ctx, kube, pod, tokenPath)
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(dir, KubeconfigFile)
	if err := writeKubeconfig(o.Admin, tokenPath, kubeconfig); err != nil {
		return nil, err
	}
	configPath := filepath.Join(dir, ConfigFile)
	if err := WriteConfig(pod.Config, kubeconfig, configPath); err != nil {
		return nil, fmt.Errorf("config.yaml of ConfigMap %s: %w", pod.ConfigMap, err)
	}
	args := SchedulerArgs(pod.Args, configPath, kubeconfig)
	binary, err := o.Binary(pod.Image)
	if err != nil {
		return nil, err
	}

	refreshCtx, cancel := context.WithCancel(context.Background())
	p, err := startProcess(hostCommand{Binary: binary, Args: args, Container: names.OperandName,
		LogPath: filepath.Join(dir, LogFile), PIDPath: filepath.Join(dir, PIDFile)}, cancel)
	if err != nil {
		cancel()
		return nil, err
	}
	s := &Scheduler{Process: p, Pod: pod, Args: args}
	go s.refreshToken(refreshCtx, o, kube, tokenPath, expires)
	o.logf("pod %s: %s started (pid %d, ConfigMap %s), log %s", pod.Name, filepath.Base(binary), p.PID(), pod.ConfigMap, p.LogPath)
	return s, nil
}

func (s *Scheduler) refreshToken(ctx context.Context, o Options, kube kubernetes.Interface, path string, expires time.Time) {
	for {
		wait := time.Until(expires) / 2
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		e, err := writeToken(ctx, kube, s.Pod, path)
		if err != nil {
			if ctx.Err() == nil {
				o.logf("pod %s: refreshing the scheduler's token: %v", s.Pod.Name, err)
			}
			expires = time.Now().Add(2 * time.Minute) // retry in a minute
			continue
		}
		expires = e
	}
}

// SchedulerArgs turns the container's arguments into the host process's: the
// config is the local copy, file paths inside the container are dropped (the
// serving certificate: the host process serves no port), and it authenticates
// and authorizes delegated requests with the scheduler's own kubeconfig.
func SchedulerArgs(containerArgs []string, config, kubeconfig string) []string {
	var out []string
	for i := 0; i < len(containerArgs); i++ {
		a := containerArgs[i]
		name, value, hasValue := strings.Cut(a, "=")
		if name == "--config" {
			if !hasValue {
				i++ // "--config PATH"
			}
			continue
		}
		if hasValue && strings.HasPrefix(value, "/") {
			continue
		}
		out = append(out, a)
	}
	return append(out,
		"--config="+config,
		"--secure-port=0",
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
	)
}

// writeToken requests a token for the pod's ServiceAccount, bound to the pod as
// a kubelet's projected token is, and writes it to path atomically. It returns
// when the token expires.
func writeToken(ctx context.Context, kube kubernetes.Interface, pod *Pod, path string) (time.Time, error) {
	tr, err := kube.CoreV1().ServiceAccounts(names.OperandNamespace).CreateToken(ctx, pod.ServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: ptr.To(int64(tokenLifetime / time.Second)),
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
		}}, metav1.CreateOptions{})
	if err != nil {
		return time.Time{}, fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", names.OperandNamespace, pod.ServiceAccount, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(tr.Status.Token), 0o600); err != nil {
		return time.Time{}, err
	}
	return tr.Status.ExpirationTimestamp.Time, os.Rename(tmp, path)
}

// writeKubeconfig writes a kubeconfig for the API server of admin that
// authenticates with the token in tokenPath only.
func writeKubeconfig(admin *rest.Config, tokenPath, path string) error {
	ca := admin.CAData
	if len(ca) == 0 && admin.CAFile != "" {
		var err error
		if ca, err = os.ReadFile(admin.CAFile); err != nil {
			return err
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["cluster"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: ca, InsecureSkipTLSVerify: admin.Insecure}
	cfg.AuthInfos["secondary-scheduler"] = &clientcmdapi.AuthInfo{TokenFile: tokenPath}
	cfg.Contexts["secondary-scheduler"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: "secondary-scheduler"}
	cfg.CurrentContext = "secondary-scheduler"
	return clientcmd.WriteToFile(*cfg, path)
}

// WriteConfig writes the operator's config.yaml with clientConnection.kubeconfig
// pointed at kubeconfig (in the pod it is "": the in-cluster service account),
// and nothing else changed: numbers stay as written. test/configdiff starts
// the binaries on rendered configurations with it too.
func WriteConfig(config []byte, kubeconfig, path string) error {
	var obj map[string]interface{}
	useNumber := func(d *json.Decoder) *json.Decoder { d.UseNumber(); return d }
	if err := yaml.Unmarshal(config, &obj, useNumber); err != nil {
		return err
	}
	if obj == nil {
		return errors.New("config.yaml is empty")
	}
	conn, _ := obj["clientConnection"].(map[string]interface{})
	if conn == nil {
		conn = map[string]interface{}{}
	}
	conn["kubeconfig"] = kubeconfig
	obj["clientConnection"] = conn
	out, err := yaml.Marshal(obj)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o600)
}
