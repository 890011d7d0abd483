package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

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

// operatorAlive says whether the operator of the pid file runs.
func (c *cluster) operatorAlive(t *testing.T) bool {
	return syscall.Kill(c.operator.pid(t), 0) == nil
}

// killOperator sends the operator SIGKILL, as a node failure or an OOM kill
// would, and waits until the process is gone.
func (c *cluster) killOperator(t *testing.T) {
	t.Helper()
	killProcess(t, c.operator.pid(t))
}

// freezeOperator stops the operator (SIGSTOP): it sends nothing until it is
// killed, which SIGKILL does as for a running process.
func (c *cluster) freezeOperator(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(c.operator.pid(t), syscall.SIGSTOP); err != nil {
		t.Fatalf("stopping the operator: %v", err)
	}
}

func killProcess(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the operator (pid %d): %v", pid, err)
	}
	framework.WaitForWithin(context.Background(), t, 30*time.Second, "the killed operator to be gone", func() (bool, error) {
		// Not necessarily a child of this process: it is gone once its parent
		// has reaped it, or a zombie until then.
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
	waitPortFree(t, c.operatorAddress)
	pid := c.launchOperator(t, c.operator.kubeconfig, c.operatorAddress, c.operator.log)
	if err := os.WriteFile(c.operator.pidFile, []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// launchOperator starts an operator process with the script's arguments and
// kubeconfig, listening on listen and appending to logPath, waits until its
// /healthz answers (which it does before it leads), and returns its pid.
func (c *cluster) launchOperator(t *testing.T, kubeconfig, listen, logPath string) int {
	t.Helper()
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	fmt.Fprintf(log, "=== e2e: starting the operator\n")
	args := append([]string{"operator", "--kubeconfig=" + kubeconfig, "--namespace=openshift-secondary-scheduler-operator",
		"--listen=" + listen, "-v=2"}, c.operator.args...)
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
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	framework.WaitForWithin(context.Background(), t, time.Minute, "the started operator's /healthz", func() (bool, error) {
		select {
		case err := <-exited:
			t.Fatalf("the operator exited at start (%v); see %s", err, logPath)
		default:
		}
		resp, err := client.Get("https://" + listen + "/healthz")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Errorf("/healthz: %s", resp.Status)
		}
		return true, nil
	})
	return cmd.Process.Pid
}

// adminMetricsClient is an HTTP client of the operator's endpoints that
// presents the admin's client certificate (allowed GET /metrics).
func (c *cluster) adminMetricsClient(t *testing.T) *http.Client {
	t.Helper()
	cert, err := tls.LoadX509KeyPair(c.adminCert, c.adminKey)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true, //nolint:gosec // the operator's self-signed local endpoint
		Certificates:       []tls.Certificate{cert},
	}}}
}

// operatorKubeconfig writes a kubeconfig like the script's, with a token of
// the operator's ServiceAccount of its own: the API server's audit log tells
// its requests apart by the token's credential ID.
func (c *cluster) operatorKubeconfig(t *testing.T, name string) string {
	t.Helper()
	config, err := clientcmd.LoadFromFile(c.operator.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	token := c.operatorToken(t)
	for _, auth := range config.AuthInfos {
		auth.Token = token
	}
	path := filepath.Join(c.dir, name+".kubeconfig")
	if err := clientcmd.WriteToFile(*config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// operatorToken is a new token (an hour) of the operator's ServiceAccount.
func (c *cluster) operatorToken(t *testing.T) string {
	t.Helper()
	token, err := c.admin.Kube.CoreV1().ServiceAccounts(operatorLeaseNamespace).CreateToken(context.Background(),
		"secondary-scheduler-operator", &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
		}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return token.Status.Token
}
