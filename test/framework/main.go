package framework

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ownerFile in an Env's temporary directory holds the PID of the test process
// that started it; reapStale uses it to tell live environments from leftovers.
const ownerFile = "owner.pid"

var (
	shared    *Env
	sharedErr error

	liveMu sync.Mutex
	live   = map[*Env]struct{}{}
)

// RunMain is the body of a test package's TestMain: it starts the package's shared
// environment, runs the tests and stops it. It never returns.
//
// When the binaries are missing, it runs the tests anyway: those that call Shared
// skip (or, in CI, fail) with the command that builds the binaries.
func RunMain(m *testing.M, opts Options) {
	os.Exit(runMain(m, opts))
}

func runMain(m *testing.M, opts Options) int {
	flag.Parse()
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		return m.Run()
	}
	stopGuard := guard()
	defer stopGuard()

	reapStale()
	start := time.Now()
	shared, sharedErr = Start(opts)
	var assetsErr *errAssets
	switch {
	case errors.As(sharedErr, &assetsErr):
		fmt.Fprintf(os.Stderr, "framework: %v\n", sharedErr)
	case sharedErr != nil:
		fmt.Fprintf(os.Stderr, "framework: cannot start the test control plane: %v\n", sharedErr)
		return 1
	default:
		fmt.Fprintf(os.Stderr, "framework: control plane ready in %s (OpenShift CRDs: %t)\n",
			time.Since(start).Round(10*time.Millisecond), shared.OpenShiftCRDs)
	}

	code := m.Run()

	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "framework: stopping the test control plane: %v\n", err)
			code = 1
		}
	}
	return code
}

// Shared returns the package's environment started by RunMain. When the binaries
// are missing it skips the test, or fails it in CI (InCI) or when
// KUBEBUILDER_ASSETS was set.
func Shared(t testing.TB) *Env {
	t.Helper()
	if shared != nil {
		return shared
	}
	if sharedErr == nil {
		t.Fatal("framework.Shared: the package's TestMain must call framework.RunMain")
	}
	skipOrFail(t, sharedErr)
	return nil
}

// StartForTest starts a dedicated environment for one test (about 4 s) and stops
// it when the test ends, for tests that need other Options than the shared one,
// such as plain Kubernetes without the OpenShift CRDs.
func StartForTest(t testing.TB, opts Options) *Env {
	t.Helper()
	e, err := Start(opts)
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stopping the test control plane: %v", err)
		}
	})
	return e
}

func skipOrFail(t testing.TB, err error) {
	t.Helper()
	var assetsErr *errAssets
	if errors.As(err, &assetsErr) && !assetsErr.mustFail {
		t.Skip(err)
	}
	t.Fatal(err)
}

func register(e *Env) {
	liveMu.Lock()
	defer liveMu.Unlock()
	live[e] = struct{}{}
}

func unregister(e *Env) {
	liveMu.Lock()
	defer liveMu.Unlock()
	delete(live, e)
}

func stopAll() {
	liveMu.Lock()
	envs := make([]*Env, 0, len(live))
	for e := range live {
		envs = append(envs, e)
	}
	liveMu.Unlock()
	for _, e := range envs {
		_ = e.Stop()
	}
}

// guard stops every live environment when the test binary is interrupted or is
// about to hit its -test.timeout (which panics and would leave etcd and
// kube-apiserver running: they run in their own process group, so a Ctrl-C does
// not reach them either).
func guard() (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})

	var timeout <-chan time.Time
	timer := time.NewTimer(0)
	timer.Stop()
	if f := flag.Lookup("test.timeout"); f != nil {
		if d, err := time.ParseDuration(f.Value.String()); err == nil && d > 0 {
			timer.Reset(d - min(d/10, 30*time.Second))
			timeout = timer.C
		}
	}
	go func() {
		select {
		case s := <-sigs:
			fmt.Fprintf(os.Stderr, "framework: %v: stopping the test control plane\n", s)
			stopAll()
			os.Exit(130)
		case <-timeout:
			fmt.Fprintln(os.Stderr, "framework: the test binary is about to reach its -timeout: stopping the test control plane")
			stopAll()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		timer.Stop()
		close(done)
	}
}

// reapStale kills the etcd and kube-apiserver processes of environments whose test
// process died without stopping them (SIGKILL, a crash) and removes their
// temporary directories.
func reapStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), tempDirPrefix+"*"))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			// Being created right now, or what a stop racing a start left behind.
			if fi, err := os.Stat(dir); err == nil && time.Since(fi.ModTime()) > 10*time.Minute {
				_ = os.RemoveAll(dir)
			}
			continue
		}
		owner, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || processAlive(owner) {
			continue
		}
		for _, pid := range processesMentioning(dir + "/") {
			fmt.Fprintf(os.Stderr, "framework: killing process %d left over from a dead test process (%s)\n", pid, dir)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = os.RemoveAll(dir)
	}
}

func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// processesMentioning lists the processes whose command line contains s.
func processesMentioning(s string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}
