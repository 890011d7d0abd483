package operandrunner

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is one run of a container's process on the host: its output goes to
// a log that is appended to across restarts, and it dies with the harness.
type Process struct {
	// LogPath is the container's log (stdout and stderr).
	LogPath string
	// StartedAt is when the process started.
	StartedAt time.Time

	cmd        *exec.Cmd
	logOffset  int64 // where this run's output starts in LogPath
	done       chan struct{}
	exitErr    error
	finishedAt time.Time
	stopOnce   sync.Once
	// onStop runs before the process is signalled, and once it has exited.
	onStop func()
}

// hostCommand is what startProcess runs.
type hostCommand struct {
	Binary string
	Args   []string
	// Env is the whole environment; nil inherits the harness's.
	Env []string
	// Dir is the working directory ("": the harness's).
	Dir string
	// Container names the process in the log's banner.
	Container string
	LogPath   string
	// PIDPath receives the pid while the process runs ("": none).
	PIDPath string
}

func startProcess(c hostCommand, onStop func()) (*Process, error) {
	logFile, err := os.OpenFile(c.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logFile, "=== operandrunner: container %s: starting %s %s\n", c.Container, c.Binary, strings.Join(c.Args, " "))
	var offset int64
	if fi, err := logFile.Stat(); err == nil {
		offset = fi.Size()
	}
	cmd := exec.Command(c.Binary, c.Args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env, cmd.Dir = c.Env, c.Dir
	// Never outlive the harness: a test that dies must not leave a process.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", c.Binary, err)
	}
	if c.PIDPath != "" {
		_ = os.WriteFile(c.PIDPath, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600)
	}
	if onStop == nil {
		onStop = func() {}
	}
	p := &Process{LogPath: c.LogPath, StartedAt: time.Now(), cmd: cmd, logOffset: offset, done: make(chan struct{}), onStop: onStop}
	go func() {
		p.exitErr = cmd.Wait()
		p.finishedAt = time.Now()
		logFile.Close()
		if c.PIDPath != "" {
			_ = os.Remove(c.PIDPath)
		}
		onStop()
		close(p.done)
	}()
	return p, nil
}

// PID is the process's id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitErr is the process's exit status once Done is closed.
func (p *Process) ExitErr() error { return p.exitErr }

// ExitCode is the exit code a container runtime reports once Done is closed:
// 128+signal for a process killed by a signal.
func (p *Process) ExitCode() int32 { return exitCode(p.cmd.ProcessState) }

// FinishedAt is when the process exited, once Done is closed.
func (p *Process) FinishedAt() time.Time { return p.finishedAt }

// TerminationMessage is what a kubelet reports for this run with
// FallbackToLogsOnError, once Done is closed: the tail of its log.
func (p *Process) TerminationMessage() string {
	return readTerminationMessage(p.LogPath, p.logOffset)
}

// Stop terminates the process (SIGTERM, then SIGKILL after 10 s) and waits for it.
func (p *Process) Stop() {
	p.stopOnce.Do(func() {
		p.onStop()
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(stopTimeout):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
}

func (p *Process) process() *Process { return p }
