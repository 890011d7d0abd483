package e2e

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// trialHarness plays kubelet for trial Pods (operandrunner.RunTrials): the
// control plane's etcd and kube-apiserver as the sandbox, the scheduler image's
// binary as the arm, in a network namespace per Pod with an address of its own.
type trialHarness struct {
	// log is the runner's log.
	log     string
	mu      sync.Mutex
	started []*operandrunner.TrialScheduler
}

// playTrials runs the harness for the whole run, until stop is called, as a
// node's kubelet outlives the tests: any test may create trial Pods, by hand
// or through the operator (spec.rollout.strategy Trial).
func (c *cluster) playTrials() (stop func(), err error) {
	dir := filepath.Join(c.dir, "trials")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	h := &trialHarness{log: filepath.Join(dir, "runner.log")}
	logFile, err := os.Create(h.log)
	if err != nil {
		return nil, err
	}
	logger := log.New(logFile, "", log.LstdFlags|log.Lmicroseconds)
	o := operandrunner.TrialOptions{
		Options: operandrunner.Options{
			Admin:            c.config,
			KubeScheduler:    filepath.Join(c.bin, "kube-scheduler"),
			SchedulerPlugins: filepath.Join(c.bin, "scheduler-plugins"),
			Dir:              dir,
			Logf:             logger.Printf,
		},
		Etcd:          filepath.Join(c.bin, "etcd"),
		KubeAPIServer: filepath.Join(c.bin, "kube-apiserver"),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := operandrunner.RunTrials(ctx, o, func(s *operandrunner.TrialScheduler) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.started = append(h.started, s)
		})
		if err != nil {
			logger.Printf("playing kubelet for trial Pods: %v", err)
		}
	}()
	c.trials = h
	return func() {
		cancel()
		<-done
		logFile.Close()
	}, nil
}

// startedList is every scheduler started so far, in order.
func (h *trialHarness) startedList() []*operandrunner.TrialScheduler {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*operandrunner.TrialScheduler(nil), h.started...)
}

// scheduler is the scheduler started for the pod with uid, or nil.
func (h *trialHarness) scheduler(uid types.UID) *operandrunner.TrialScheduler {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.started {
		if s.Pod.UID == uid {
			return s
		}
	}
	return nil
}

// waitScheduler waits for the harness to have started the scheduler of the
// pod with uid.
func (h *trialHarness) waitScheduler(ctx context.Context, t *testing.T, uid types.UID) *operandrunner.TrialScheduler {
	t.Helper()
	var s *operandrunner.TrialScheduler
	framework.WaitForWithin(ctx, t, reconcileTimeout, fmt.Sprintf("the harness to start the scheduler of trial Pod %s (see %s)", uid, h.log), func() (bool, error) {
		s = h.scheduler(uid)
		return s != nil, nil
	})
	return s
}
