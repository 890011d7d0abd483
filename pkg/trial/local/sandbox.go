package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// localSandbox is an etcd and a kube-apiserver started from local binaries
// (with envtest's process management, as the integration tests are).
type localSandbox struct {
	// config is an admin (system:masters) client config.
	config *rest.Config
	// kubeconfig is a file holding config, for a scheduler.
	kubeconfig string

	plane *envtest.ControlPlane
}

const (
	// kube-apiserver reads every object seeded into etcd before it is
	// ready: 30,000 pods and more take it minutes on a busy machine.
	startTimeout = 3 * time.Minute
	stopTimeout  = 30 * time.Second
	// startTries: a port chosen free may be taken before the process binds it.
	// Such a collision fails within seconds; a start that failed later (its
	// timeout, a crash after loading) is not tried again.
	startTries      = 3
	retryStartsUpTo = 10 * time.Second
)

// startSandbox starts a sandbox from the etcd and kube-apiserver in binDir,
// writes objects (if any) into its etcd before its kube-apiserver starts,
// and writes its kubeconfig into dir. flags are the kube-apiserver's beyond
// its own (trial.SandboxLoad.APIServerFlags).
func startSandbox(ctx context.Context, binDir, dir string, objects trial.StoredObjects, flags []trial.Flag) (*localSandbox, error) {
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if fi, err := os.Stat(filepath.Join(binDir, b)); err != nil || fi.IsDir() {
			return nil, fmt.Errorf("the sandbox needs %s in %s (the directory of --sandbox-bin)", b, binDir)
		}
	}
	s := &localSandbox{plane: &envtest.ControlPlane{}}
	var err error
	if s.plane.Etcd, err = startEtcd(ctx, binDir); err != nil {
		return nil, fmt.Errorf("starting the sandbox's etcd: %w", err)
	}
	if objects != nil {
		if err := store(ctx, s.plane.Etcd.URL.String(), objects, false); err != nil {
			return nil, errors.Join(err, s.stop())
		}
	}
	if s.plane.APIServer, err = startAPIServer(ctx, binDir, s.plane.Etcd, flags); err != nil {
		if len(flags) > 0 {
			err = fmt.Errorf("with %v: %w", flags, err)
		}
		return nil, errors.Join(fmt.Errorf("starting the sandbox's kube-apiserver: %w", err), s.stop())
	}
	if err := s.connect(ctx, dir); err != nil {
		return nil, errors.Join(err, s.stop())
	}
	return s, nil
}

func startEtcd(ctx context.Context, binDir string) (*envtest.Etcd, error) {
	return startRetrying(ctx, func() (*envtest.Etcd, error) {
		e := &envtest.Etcd{Path: filepath.Join(binDir, "etcd"), StartTimeout: startTimeout, StopTimeout: stopTimeout}
		// Seeding writes thousands of objects a transaction (store).
		for _, f := range trial.EtcdFlags() {
			e.Configure().Set(f.Name, f.Value)
		}
		return e, e.Start()
	})
}

func startAPIServer(ctx context.Context, binDir string, etcd *envtest.Etcd, flags []trial.Flag) (*envtest.APIServer, error) {
	return startRetrying(ctx, func() (*envtest.APIServer, error) {
		a := newAPIServer(binDir, etcd, flags)
		return a, a.Start()
	})
}

// newAPIServer is the sandbox's kube-apiserver, not yet started.
func newAPIServer(binDir string, etcd *envtest.Etcd, flags []trial.Flag) *envtest.APIServer {
	a := &envtest.APIServer{Path: filepath.Join(binDir, "kube-apiserver"), EtcdURL: etcd.URL, StartTimeout: startTimeout, StopTimeout: stopTimeout}
	// Admission as the live cluster's already was: a copied pod is not
	// judged again by its namespace's pod security level (its security
	// context is trimmed), nor needs its ServiceAccount (envtest's default).
	a.Configure().Set("disable-admission-plugins", "ServiceAccount,PodSecurity")
	for _, f := range flags {
		a.Configure().Set(f.Name, f.Value)
	}
	return a
}

// startRetrying starts a process again only after a quick failure (a port
// taken), and never once ctx is done.
func startRetrying[T any](ctx context.Context, start func() (T, error)) (T, error) {
	var p T
	var err error
	for range startTries {
		began := time.Now()
		if p, err = start(); err == nil {
			return p, nil
		}
		if ctx.Err() != nil || time.Since(began) > retryStartsUpTo {
			break
		}
	}
	return p, errors.Join(err, ctx.Err())
}

// connect makes an admin user and its kubeconfig in dir, and waits for the
// API server to have made the default namespace.
func (s *localSandbox) connect(ctx context.Context, dir string) error {
	user, err := s.plane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, &rest.Config{})
	if err != nil {
		return fmt.Errorf("making the sandbox's admin user: %w", err)
	}
	s.config = trial.Unlimited(user.Config())
	s.kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(trial.Kubeconfig(s.config), s.kubeconfig); err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(s.config)
	if err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{})
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the sandbox's kube-apiserver made no default namespace: %w", err)
	}
	return nil
}

// stop stops kube-apiserver and etcd and removes their data.
func (s *localSandbox) stop() error { return s.plane.Stop() }
