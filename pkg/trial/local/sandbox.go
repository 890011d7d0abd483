package local

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// localSandbox is an etcd and a kube-apiserver started from local binaries
// (with envtest, as the integration tests are).
type localSandbox struct {
	// config is an admin (system:masters) client config.
	config *rest.Config
	// kubeconfig is a file holding config, for a scheduler.
	kubeconfig string

	env *envtest.Environment
}

// startSandbox starts a sandbox from the etcd and kube-apiserver in binDir and
// writes its kubeconfig into dir.
func startSandbox(binDir, dir string) (*localSandbox, error) {
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if fi, err := os.Stat(filepath.Join(binDir, b)); err != nil || fi.IsDir() {
			return nil, fmt.Errorf("the sandbox needs %s in %s (the directory of --sandbox-bin)", b, binDir)
		}
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    binDir,
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	// Admission as the live cluster's already was: a copied pod is not judged
	// again by its namespace's pod security level (its security context is
	// trimmed), nor needs its ServiceAccount (envtest's default).
	env.ControlPlane.GetAPIServer().Configure().Set("disable-admission-plugins", "ServiceAccount,PodSecurity")
	cfg, err := env.Start()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting the sandbox: %w", err), env.Stop())
	}
	s := &localSandbox{env: env, config: trial.Unlimited(cfg)}
	s.kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(trial.Kubeconfig(cfg), s.kubeconfig); err != nil {
		return nil, errors.Join(err, s.stop())
	}
	return s, nil
}

// stop stops kube-apiserver and etcd and removes their data.
func (s *localSandbox) stop() error { return s.env.Stop() }
