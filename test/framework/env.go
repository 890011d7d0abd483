package framework

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	// The OpenShift config CRD manifests: imported (never used) only so that
	// `go mod vendor` copies their YAML files into vendor/, where
	// openShiftCRDFiles reads them.
	_ "github.com/openshift/api/config/v1/zz_generated.crd-manifests"
)

const modulePath = "github.com/openshift/secondary-scheduler-operator"

// BuildCommand builds the binaries the framework needs, run from the repository root.
const BuildCommand = "hack/controlplane/build.sh --envtest-only"

// openShiftCRDList names the OpenShift config CRDs the operator reads, one file
// name per line; hack/lib/local.sh reads the same file.
const openShiftCRDList = "hack/openshift-crds.txt"

// openShiftCRDs reads openShiftCRDList.
func openShiftCRDs(root string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(root, openShiftCRDList))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			names = append(names, line)
		}
	}
	return names, nil
}

// tempDirPrefix names the one temporary directory an Env keeps all its state in
// (certificates, etcd data), so that a leftover is easy to find and reap.
const tempDirPrefix = "secondary-scheduler-envtest-"

// Options say what environment to start.
type Options struct {
	// WithoutOpenShiftCRDs starts plain Kubernetes: only our own CRDs are installed.
	WithoutOpenShiftCRDs bool
	// ExtraAPIServerArgs are set on kube-apiserver after the framework's own flags
	// (a flag given here replaces the framework's value).
	ExtraAPIServerArgs map[string][]string
}

// Env is a running etcd and kube-apiserver with our CRDs installed.
type Env struct {
	// Config is an admin (system:masters) client config.
	Config *rest.Config
	// Admin holds clients built from Config.
	Admin *Clients
	// OpenShiftCRDs says whether the OpenShift config CRDs are installed.
	OpenShiftCRDs bool
	// RequestHeaderCA is the PEM CA kube-apiserver trusts for front-proxy
	// (--requestheader-client-ca-file) requests.
	RequestHeaderCA []byte

	testEnv  *envtest.Environment
	dir      string
	stopOnce sync.Once
	stopped  atomic.Bool
	stopErr  error
}

// RepoRoot is the root of this repository, found from the working directory (go
// test runs in the package's directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(data, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// AssetsDir is where the control plane binaries are: $KUBEBUILDER_ASSETS when set,
// otherwise _output/controlplane/bin in the repository.
func AssetsDir() (dir string, explicit bool, err error) {
	if dir, ok := os.LookupEnv("KUBEBUILDER_ASSETS"); ok && dir != "" {
		return dir, true, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", false, err
	}
	return filepath.Join(root, "_output", "controlplane", "bin"), false, nil
}

// errAssets is returned when the binaries are missing; mustFail says whether a test
// has to fail (CI, or KUBEBUILDER_ASSETS set) instead of skipping.
type errAssets struct {
	msg      string
	mustFail bool
}

func (e *errAssets) Error() string { return e.msg }

// checkAssets returns an *errAssets when kube-apiserver or etcd is missing.
func checkAssets() (string, error) {
	return checkBinaries(BuildCommand, "kube-apiserver", "etcd")
}

// checkBinaries returns AssetsDir, and an *errAssets naming build when one of
// names is not an executable there.
func checkBinaries(build string, names ...string) (string, error) {
	dir, explicit, err := AssetsDir()
	if err != nil {
		return "", err
	}
	var missing []string
	for _, b := range names {
		if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		return dir, nil
	}
	return dir, &errAssets{
		mustFail: InCI() || explicit,
		msg: fmt.Sprintf("control plane binaries %s missing in %s: build them from the repository root with\n\t%s\n"+
			"(or `make test-integration`, which builds them and runs these tests)",
			strings.Join(missing, ", "), dir, build),
	}
}

// Binary returns the path of a control plane binary beside kube-apiserver in
// AssetsDir that envtest does not run itself, such as kube-scheduler (which
// hack/controlplane/build.sh builds without --envtest-only). When it is
// missing the test is skipped with the command that builds it, or fails as
// Shared does: in CI (InCI) or when KUBEBUILDER_ASSETS was set.
func Binary(t testing.TB, name string) string {
	t.Helper()
	dir, err := checkBinaries("hack/controlplane/build.sh", name)
	if err != nil {
		skipOrFail(t, err)
	}
	return filepath.Join(dir, name)
}

// Start starts etcd and kube-apiserver and installs the CRDs. Callers must Stop it.
// Most tests use Shared(t) or StartForTest(t, opts) instead.
func Start(opts Options) (*Env, error) {
	assets, err := checkAssets()
	if err != nil {
		return nil, err
	}
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	crds := []string{
		filepath.Join(root, "manifests", "0000_50_secondary-scheduler-operator_01_secondaryschedulers.crd.yaml"),
		filepath.Join(root, "manifests", "0000_50_secondary-scheduler-operator_02_simulators.crd.yaml"),
	}
	if !opts.WithoutOpenShiftCRDs {
		vendored := filepath.Join(root, "vendor", "github.com", "openshift", "api", "config", "v1", "zz_generated.crd-manifests")
		names, err := openShiftCRDs(root)
		if err != nil {
			return nil, err
		}
		for _, f := range names {
			crds = append(crds, filepath.Join(vendored, f))
		}
	}
	for _, f := range crds {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("CRD manifest missing (run `make update`?): %w", err)
		}
	}

	ctrllog.SetLogger(klog.NewKlogr().WithName("envtest"))

	dir, err := os.MkdirTemp("", tempDirPrefix)
	if err != nil {
		return nil, err
	}
	e := &Env{OpenShiftCRDs: !opts.WithoutOpenShiftCRDs, dir: dir}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	certDir := filepath.Join(dir, "apiserver")
	dataDir := filepath.Join(dir, "etcd")
	for _, d := range []string{certDir, dataDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	e.RequestHeaderCA, err = writeCA(filepath.Join(certDir, "front-proxy-ca.crt"), "front-proxy-ca")
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}

	e.testEnv = &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     crds,
		ErrorIfCRDPathMissing: true,
		// The apiserver's default 20 s is tight for a cold start on 2 loaded cores.
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	e.testEnv.ControlPlane.Etcd = &envtest.Etcd{DataDir: dataDir}
	// etcd's default quota of 2 GiB is short of what the memory benchmark
	// writes with MEMORY_BENCH_ANNOTATION_KIB (2,000 Simulators of 250 KiB,
	// each written three times: about 1.5 GiB of revisions). A ceiling, not
	// an allocation.
	e.testEnv.ControlPlane.Etcd.Configure().Set("quota-backend-bytes", strconv.Itoa(8<<30))
	api := e.testEnv.ControlPlane.GetAPIServer()
	api.CertDir = certDir
	args := api.Configure()
	for k, v := range map[string]string{
		"advertise-address":                  "127.0.0.1",
		"endpoint-reconciler-type":           "none",
		"authorization-mode":                 "RBAC",
		"requestheader-client-ca-file":       filepath.Join(certDir, "front-proxy-ca.crt"),
		"requestheader-allowed-names":        "front-proxy-client",
		"requestheader-username-headers":     "X-Remote-User",
		"requestheader-group-headers":        "X-Remote-Group",
		"requestheader-extra-headers-prefix": "X-Remote-Extra-",
	} {
		args.Set(k, v)
	}
	for k, v := range opts.ExtraAPIServerArgs {
		args.Set(k, v...)
	}

	register(e)
	cfg, err := e.testEnv.Start()
	if err != nil {
		return nil, errors.Join(fmt.Errorf("starting envtest: %w", err), e.Stop())
	}
	if e.stopped.Load() {
		return nil, errors.Join(errors.New("the test control plane was stopped while it started"), e.Stop())
	}
	e.Config = cfg
	if e.Admin, err = NewClients(cfg); err != nil {
		return nil, errors.Join(err, e.Stop())
	}
	return e, nil
}

// Stop stops kube-apiserver and etcd and removes the environment's temporary
// directory. It is safe to call more than once and from several goroutines.
func (e *Env) Stop() error {
	e.stopOnce.Do(func() {
		e.stopped.Store(true)
		unregister(e)
		if e.testEnv != nil {
			e.stopErr = e.testEnv.Stop()
		}
	})
	// Not only once: a Start that was still running when Stop was called (from a
	// signal or the timeout guard) may start processes and write files afterwards.
	// Whatever envtest did not stop still names our directory on its command line.
	for _, pid := range processesMentioning(e.dir + "/") {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return errors.Join(e.stopErr, os.RemoveAll(e.dir))
}

// writeCA writes a new self-signed CA certificate to path and returns its PEM.
func writeCA(path, name string) ([]byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: name}, key)
	if err != nil {
		return nil, err
	}
	data, err := cert.EncodeCertificates(ca)
	if err != nil {
		return nil, err
	}
	return data, os.WriteFile(path, data, 0o600)
}
