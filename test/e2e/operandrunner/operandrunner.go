// Package operandrunner plays kubelet for the secondary scheduler's pod on a
// control plane whose nodes are kwok's: kwok marks pods Running without running
// any container, so this runs the one container that matters, the scheduler, as
// a host process with the real kube-scheduler binary.
//
// It reads what a kubelet would: the operand Deployment
// (openshift-secondary-scheduler/secondary-scheduler) for the scheduler
// container's arguments, and the operator-written ConfigMap
// secondary-scheduler-config for config.yaml. It obtains a token for the pod's
// ServiceAccount with the TokenRequest API (a projected token, as a kubelet
// would, refreshed before it expires), so the scheduler runs with exactly the
// RBAC the operator grants. The e2e tests (test/e2e) and hack/run-local.sh (via
// test/e2e/cmd/run-operand) share it.
//
// Only a kube-scheduler-compatible image can be played: the binary is the
// upstream kube-scheduler, so out-of-tree plugins (Coscheduling, Fluence ...)
// are not available, and sidecars do not run.
package operandrunner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

const (
	// tokenLifetime is how long a ServiceAccount token lives; it is replaced
	// after half of it (client-go rereads a kubeconfig's tokenFile).
	tokenLifetime = time.Hour
	// stopTimeout is how long Stop waits after SIGTERM before SIGKILL.
	stopTimeout = 10 * time.Second
)

// Files the runner writes into Options.Dir.
const (
	KubeconfigFile = "kubeconfig"
	TokenFile      = "token"
	ConfigFile     = "config.yaml"
	LogFile        = "kube-scheduler.log"
	PIDFile        = "kube-scheduler.pid"
)

// Options say how to run the scheduler.
type Options struct {
	// Admin is a client config allowed to read the operand and request tokens
	// (the harness's, not the scheduler's).
	Admin *rest.Config
	// KubeScheduler is the path of the kube-scheduler binary.
	KubeScheduler string
	// Dir receives the kubeconfig, token, config.yaml, log and pid file.
	Dir string
	// Logf reports what the runner does (nil: silent).
	Logf func(format string, args ...interface{})
}

func (o *Options) logf(format string, args ...interface{}) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// Pod is what the runner reads from the cluster: the scheduler container of the
// operand Deployment and the merged configuration.
type Pod struct {
	// Args are the scheduler container's arguments.
	Args []string
	// Config is config.yaml of ConfigMap secondary-scheduler-config.
	Config []byte
	// Key identifies what runs: a change restarts the scheduler.
	Key string
}

// ErrRollingOut says the Deployment and the ConfigMap disagree for a moment: the
// operator writes the ConfigMap, then the Deployment with the config's hash. A
// kubelet would still run the old pod.
var ErrRollingOut = errors.New("the operand Deployment does not carry the hash of ConfigMap " + render.ConfigMapName + " yet")

// ReadPod reads the operand. It returns (nil, nil) when there is nothing to run
// (no Deployment, zero replicas, no ConfigMap) and ErrRollingOut while the
// Deployment and the ConfigMap disagree.
func ReadPod(ctx context.Context, kube kubernetes.Interface) (*Pod, error) {
	d, err := kube.AppsV1().Deployments(render.OperandNamespace).Get(ctx, render.OperandName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if d.Spec.Replicas != nil && *d.Spec.Replicas == 0 {
		return nil, nil
	}
	var container *corev1.Container
	for i := range d.Spec.Template.Spec.Containers {
		if c := &d.Spec.Template.Spec.Containers[i]; c.Name == render.OperandName {
			container = c
		}
	}
	if container == nil {
		return nil, fmt.Errorf("Deployment %s/%s has no container %q", d.Namespace, d.Name, render.OperandName)
	}
	cm, err := kube.CoreV1().ConfigMaps(render.OperandNamespace).Get(ctx, render.ConfigMapName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	config, ok := cm.Data[render.ConfigKey]
	if !ok {
		return nil, fmt.Errorf("ConfigMap %s/%s has no key %s", cm.Namespace, cm.Name, render.ConfigKey)
	}
	sum := sha256.Sum256([]byte(config))
	configHash := hex.EncodeToString(sum[:])
	if want := d.Spec.Template.Annotations[render.ConfigHashAnnotation]; want != "" && want != configHash {
		return nil, ErrRollingOut
	}
	key, err := json.Marshal(struct {
		Args   []string
		Config string
	}{container.Args, configHash})
	if err != nil {
		return nil, err
	}
	keySum := sha256.Sum256(key)
	return &Pod{Args: container.Args, Config: []byte(config), Key: hex.EncodeToString(keySum[:8])}, nil
}

// Scheduler is one running kube-scheduler process.
type Scheduler struct {
	// Pod is what it runs.
	Pod *Pod
	// Args are the arguments it was started with.
	Args []string
	// LogPath is its log (stdout and stderr), appended to across restarts.
	LogPath string

	cmd      *exec.Cmd
	done     chan struct{}
	exitErr  error
	stopOnce sync.Once
	cancel   context.CancelFunc
}

// Start writes the token, kubeconfig and config.yaml into o.Dir and starts
// kube-scheduler for pod. The process is killed when the calling process dies.
func Start(ctx context.Context, o Options, pod *Pod) (*Scheduler, error) {
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, err
	}
	kube, err := kubernetes.NewForConfig(o.Admin)
	if err != nil {
		return nil, err
	}
	tokenPath := filepath.Join(o.Dir, TokenFile)
	expires, err := writeToken(ctx, kube, tokenPath)
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(o.Dir, KubeconfigFile)
	if err := writeKubeconfig(o.Admin, tokenPath, kubeconfig); err != nil {
		return nil, err
	}
	configPath := filepath.Join(o.Dir, ConfigFile)
	if err := writeConfig(pod.Config, kubeconfig, configPath); err != nil {
		return nil, err
	}
	args := SchedulerArgs(pod.Args, configPath, kubeconfig)

	logPath := filepath.Join(o.Dir, LogFile)
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logFile, "=== operandrunner: starting %s %s\n", o.KubeScheduler, strings.Join(args, " "))
	cmd := exec.Command(o.KubeScheduler, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Never outlive the harness: a test that dies must not leave a scheduler.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", o.KubeScheduler, err)
	}
	pidPath := filepath.Join(o.Dir, PIDFile)
	_ = os.WriteFile(pidPath, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600)

	refreshCtx, cancel := context.WithCancel(context.Background())
	s := &Scheduler{Pod: pod, Args: args, LogPath: logPath, cmd: cmd, done: make(chan struct{}), cancel: cancel}
	go func() {
		s.exitErr = cmd.Wait()
		logFile.Close()
		_ = os.Remove(pidPath)
		cancel()
		close(s.done)
	}()
	go s.refreshToken(refreshCtx, o, kube, tokenPath, expires)
	o.logf("kube-scheduler started (pid %d, config %s), log %s", cmd.Process.Pid, pod.Key, logPath)
	return s, nil
}

// Done is closed when the process has exited.
func (s *Scheduler) Done() <-chan struct{} { return s.done }

// ExitErr is the process's exit status once Done is closed.
func (s *Scheduler) ExitErr() error { return s.exitErr }

// Stop terminates the process (SIGTERM, then SIGKILL after 10 s) and waits for it.
func (s *Scheduler) Stop() {
	s.stopOnce.Do(func() {
		s.cancel()
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(stopTimeout):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
}

func (s *Scheduler) refreshToken(ctx context.Context, o Options, kube kubernetes.Interface, path string, expires time.Time) {
	for {
		wait := time.Until(expires) / 2
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		e, err := writeToken(ctx, kube, path)
		if err != nil {
			o.logf("refreshing the scheduler's token: %v", err)
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

// writeToken requests a token for the operand ServiceAccount and writes it to
// path atomically. It returns when the token expires.
func writeToken(ctx context.Context, kube kubernetes.Interface, path string) (time.Time, error) {
	tr, err := kube.CoreV1().ServiceAccounts(render.OperandNamespace).CreateToken(ctx, render.OperandName,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: ptr.To(int64(tokenLifetime / time.Second)),
		}}, metav1.CreateOptions{})
	if err != nil {
		return time.Time{}, fmt.Errorf("requesting a token for ServiceAccount %s/%s: %w", render.OperandNamespace, render.OperandName, err)
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

// writeConfig writes the operator's config.yaml with clientConnection.kubeconfig
// pointed at kubeconfig (in the pod it is "": the in-cluster service account).
func writeConfig(config []byte, kubeconfig, path string) error {
	var obj map[string]interface{}
	if err := yaml.Unmarshal(config, &obj); err != nil {
		return fmt.Errorf("config.yaml of ConfigMap %s: %w", render.ConfigMapName, err)
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
