// Package local runs a trial's arms as processes on this machine: an etcd and
// a kube-apiserver per arm (started with envtest, as the integration tests
// are), seeded in etcd before the kube-apiserver starts, and the arm's
// scheduler binary against them. The trial command uses it;
// the operator does not link it.
package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"k8s.io/client-go/rest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// Runtime runs each arm as processes on this machine: etcd and
// kube-apiserver from BinDir (with envtest, as the integration tests do) and
// the arm's scheduler from trial.Arm.Binary, with the arm's Args.
type Runtime struct {
	// BinDir holds etcd and kube-apiserver.
	BinDir string
	// Dir receives each arm's kubeconfig, configuration and scheduler log,
	// in Dir/<arm name>.
	Dir string
}

// New is a Runtime of the sandboxes in binDir, keeping each arm's files in dir.
func New(binDir, dir string) trial.Runtime { return &Runtime{BinDir: binDir, Dir: dir} }

// Start implements trial.Runtime.
func (l *Runtime) Start(ctx context.Context, arm trial.Arm) (trial.Sandbox, error) {
	return l.StartStored(ctx, arm, nil)
}

// StartStored implements trial.StorageRuntime: objects go into the sandbox's
// etcd before its kube-apiserver starts.
func (l *Runtime) StartStored(ctx context.Context, arm trial.Arm, objects trial.StoredObjects) (trial.StorageSandbox, error) {
	dir := filepath.Join(l.Dir, arm.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	sb, err := startSandbox(ctx, l.BinDir, dir, objects, arm.Holds.APIServerFlags())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arm.Name, err)
	}
	s := &localArm{sandbox: sb, arm: arm, log: filepath.Join(dir, "scheduler.log"), certDir: filepath.Join(dir, "serving")}
	if s.metricsPort, err = freeLoopbackPort(); err != nil {
		return nil, errors.Join(err, sb.stop())
	}
	if s.exited, s.stopScheduler, err = startScheduler(sb, arm, dir, s.log, servingFlags(s.metricsPort, s.certDir)); err != nil {
		return nil, errors.Join(err, sb.stop())
	}
	return s, nil
}

// localArm is a local sandbox and the scheduler process against it.
type localArm struct {
	sandbox       *localSandbox
	arm           trial.Arm
	log           string
	exited        chan error
	stopScheduler func()
	// metricsPort and certDir are where its scheduler serves its metrics.
	metricsPort int
	certDir     string
}

func (s *localArm) Config() *rest.Config { return rest.CopyConfig(s.sandbox.config) }

func (s *localArm) Log() string { return s.log }

// Store implements trial.StorageSandbox.
func (s *localArm) Store(ctx context.Context, objects trial.StoredObjects) error {
	return store(ctx, s.sandbox.plane.Etcd.URL.String(), objects, true)
}

func (s *localArm) Failed(context.Context) error {
	select {
	case err := <-s.exited:
		s.exited <- err // for stopScheduler's wait
		return fmt.Errorf("%s: %s exited (%v) before it placed the replayed pods; the last lines of its log:\n%s",
			s.arm.Name, filepath.Base(s.arm.Binary), err, tail(s.log, 15))
	default:
		return nil
	}
}

func (s *localArm) Stop(context.Context) error {
	s.stopScheduler()
	return s.sandbox.stop()
}

// startScheduler starts arm's scheduler against sb, serving as serving
// says, logging to logPath. The channel receives its exit; stop kills it and
// waits.
func startScheduler(sb *localSandbox, arm trial.Arm, dir, logPath string, serving []string) (chan error, func(), error) {
	config, err := trial.SandboxSchedulerConfig(arm.Config, sb.kubeconfig)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", arm.Name, err)
	}
	configPath := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(configPath, config, 0o600); err != nil {
		return nil, nil, err
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, nil, err
	}
	defer logFile.Close() // the child has its own descriptor
	args := append(append([]string{"--config=" + configPath,
		"--authentication-kubeconfig=" + sb.kubeconfig, "--authorization-kubeconfig=" + sb.kubeconfig}, serving...), arm.Args...)
	cmd := exec.Command(arm.Binary, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = childProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("%s: starting %s: %w", arm.Name, arm.Binary, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		err := <-exited
		exited <- err
	}
	return exited, stop, nil
}

// tail is the last n lines of a file.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
