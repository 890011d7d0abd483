package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// operatorProcess is the operator as hack/test-e2e.sh runs it: a host process
// with its ServiceAccount's kubeconfig, its pid in pidFile (which the script's
// cleanup stops), its output appended to log (which the script checks for
// panics).
type operatorProcess struct {
	binary, kubeconfig, log, pidFile string
	// args are the extra flags the script gave it.
	args []string
}

// pid is the running operator's pid.
func (o *operatorProcess) pid(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(o.pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", o.pidFile, err)
	}
	return pid
}

// kill sends SIGKILL, as a node failure or an OOM kill would, and waits until
// the process is gone.
func (c *cluster) killOperator(t *testing.T) {
	t.Helper()
	pid := c.operator.pid(t)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the operator (pid %d): %v", pid, err)
	}
	framework.WaitForWithin(context.Background(), t, 30*time.Second, "the killed operator to be gone", func() (bool, error) {
		// A child of the script, not of this process: it is gone once the
		// script's shell has reaped it, or is a zombie until then.
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if os.IsNotExist(err) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		fields := strings.Fields(string(data))
		return len(fields) > 2 && fields[2] == "Z", nil
	})
}

// startOperator starts the operator again with the script's arguments and
// waits until its /healthz answers. The new process is not this test's child
// for long: it outlives the test binary, and the script stops it by pidFile.
func (c *cluster) startOperator(t *testing.T) {
	t.Helper()
	log, err := os.OpenFile(c.operator.log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	fmt.Fprintf(log, "=== e2e: starting the operator again\n")
	args := append([]string{"operator", "--kubeconfig=" + c.operator.kubeconfig, "--namespace=openshift-secondary-scheduler-operator",
		"--listen=" + c.operatorAddress, "-v=2"}, c.operator.args...)
	cmd := exec.Command(c.operator.binary, args...)
	cmd.Env = append(os.Environ(), "OPERATOR_IMAGE_VERSION="+c.operatorVersion)
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group: a ^C of the test run reaches the script, which
	// stops it by pid.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := os.WriteFile(c.operator.pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	framework.WaitForWithin(context.Background(), t, time.Minute, "the restarted operator's /healthz", func() (bool, error) {
		select {
		case err := <-exited:
			t.Fatalf("the operator exited at start (%v); see %s", err, c.operator.log)
		default:
		}
		resp, err := client.Get("https://" + c.operatorAddress + "/healthz")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Errorf("/healthz: %s", resp.Status)
		}
		return true, nil
	})
}
