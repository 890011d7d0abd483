package trial

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
)

// Runtime runs the arms' sandboxes and schedulers: LocalRuntime as processes
// on this machine, PodRuntime as a Pod per arm in a cluster.
type Runtime interface {
	// Start starts arm's sandbox with arm's scheduler running against it,
	// and returns once the sandbox answers. Its error names the arm. The
	// scheduler already runs while the sandbox is seeded: the replayed pods
	// are created gated (SeedingGate) and released in replay order.
	Start(ctx context.Context, arm Arm) (Sandbox, error)
}

// Sandbox is one arm's running sandbox and scheduler.
type Sandbox interface {
	// Config is an admin client config of the sandbox, without a client-side
	// rate limit (seeding is thousands of creates into a private server).
	Config() *rest.Config
	// Failed is nil while the scheduler runs, else why it stopped, naming the arm.
	Failed(ctx context.Context) error
	// Log is where the scheduler's log is kept, "" when the runtime keeps none.
	Log() string
	// Stop stops the scheduler and the sandbox and removes what they left.
	Stop(ctx context.Context) error
}

// LocalRuntime runs each arm as processes on this machine: etcd and
// kube-apiserver from BinDir (with envtest, as the integration tests do) and
// the arm's scheduler from Arm.Binary.
type LocalRuntime struct {
	// BinDir holds etcd and kube-apiserver.
	BinDir string
	// Dir receives each arm's kubeconfig, configuration and scheduler log,
	// in Dir/<arm name>.
	Dir string
}

// Start implements Runtime.
func (l *LocalRuntime) Start(ctx context.Context, arm Arm) (Sandbox, error) {
	dir := filepath.Join(l.Dir, arm.Name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	sb, err := startSandbox(l.BinDir, dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arm.Name, err)
	}
	s := &localArm{sandbox: sb, arm: arm, log: filepath.Join(dir, "scheduler.log")}
	if s.exited, s.stopScheduler, err = startScheduler(sb, arm, dir, s.log); err != nil {
		return nil, errors.Join(err, sb.stop())
	}
	return s, nil
}

// localArm is a local sandbox and the scheduler process against it.
type localArm struct {
	sandbox       *localSandbox
	arm           Arm
	log           string
	exited        chan error
	stopScheduler func()
}

func (s *localArm) Config() *rest.Config { return rest.CopyConfig(s.sandbox.config) }

func (s *localArm) Log() string { return s.log }

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
