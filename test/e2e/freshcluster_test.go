package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// runCommand runs a command and returns its combined output. It is killed
// after 5 minutes: hack/controlplane/start.sh gives each of its waits 60 s.
// Not the test's context: stop.sh runs from a cleanup, after that is done.
func runCommand(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	// start.sh leaves daemons behind: never wait on a pipe they might hold.
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (killed after 5m)", err)
	}
	return string(out), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// freshCluster starts a control plane of its own (hack/controlplane/start.sh,
// one kwok node) in the run's directory under name, stopped when the test
// ends, and returns it described as the suite's cluster is, with no operator
// running yet: its address, kubeconfig (the operator's ServiceAccount's
// token, once manifests are installed), log and pid file are set.
func (c *cluster) freshCluster(t *testing.T, name string) *cluster {
	t.Helper()
	dir := filepath.Join(c.dir, name)
	out, err := runCommand(repoPath(t, "hack", "controlplane", "start.sh"), filepath.Join(dir, "cluster"), "--nodes", "1")
	if err != nil {
		t.Fatalf("starting a control plane for %s: %v\n%s", name, err, out)
	}
	t.Logf("%s", lastLine(out))
	t.Cleanup(func() {
		if out, err := runCommand(repoPath(t, "hack", "controlplane", "stop.sh"), filepath.Join(dir, "cluster")); err != nil {
			t.Logf("stopping the control plane of %s: %v\n%s", name, err, out)
		}
	})
	env := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, "cluster", "env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok {
			env[k] = strings.Trim(v, `'"`)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := l.Addr().String()
	l.Close()
	u := &cluster{
		kubeconfig:      env["KUBECONFIG"],
		bin:             c.bin,
		adminCert:       filepath.Join(dir, "cluster", "pki", "admin.crt"),
		adminKey:        filepath.Join(dir, "cluster", "pki", "admin.key"),
		operatorAddress: address,
		openShift:       c.openShift,
		dir:             dir,
		auditLog:        env["CONTROLPLANE_AUDIT_LOG"],
		controlPlaneDir: env["CONTROLPLANE_DIR"],
		operator: operatorProcess{
			kubeconfig: filepath.Join(dir, "operator.kubeconfig"),
			log:        filepath.Join(dir, "operator.log"),
			pidFile:    filepath.Join(dir, "operator.pid"),
		},
	}
	if u.config, err = clientcmd.BuildConfigFromFlags("", u.kubeconfig); err != nil {
		t.Fatal(err)
	}
	u.config.QPS, u.config.Burst = 50, 100
	if u.admin, err = framework.NewClients(u.config); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := os.Stat(u.operator.pidFile); err == nil && u.operatorAlive(t) {
			u.killOperator(t)
		}
	})
	return u
}

// installManifests installs manifests as hack/lib/local.sh does: `kubectl
// apply -f` the directory; on OpenShift also the config CRDs and from its
// optional/ the ClusterOperator and, with createCR, the default
// SecondaryScheduler, which is create-only: an upgrade does not apply it
// again. The first install also writes the operator's kubeconfig.
func (u *cluster) installManifests(t *testing.T, manifests string, createCR bool) {
	t.Helper()
	u.mustKubectl(t, "apply", "-f", manifests+"/")
	if u.openShift {
		crds, err := os.ReadFile(repoPath(t, "hack", "openshift-crds.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(crds), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				u.mustKubectl(t, "apply", "-f", repoPath(t, "vendor", "github.com", "openshift", "api", "config", "v1", "zz_generated.crd-manifests", line))
			}
		}
		u.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=60s", "crd/clusteroperators.config.openshift.io")
		u.mustKubectl(t, "apply", "-f", filepath.Join(manifests, "optional", "0000_50_secondary-scheduler-operator_09_clusteroperator.yaml"))
		if createCR {
			u.mustKubectl(t, "create", "-f", filepath.Join(manifests, "optional", "0000_50_secondary-scheduler-operator_10_secondaryscheduler.cr.yaml"))
		}
	}
	if _, err := os.Stat(u.operator.kubeconfig); err == nil {
		return
	}
	token := u.operatorToken(t)
	config := clientcmdapi.NewConfig()
	config.Clusters["local"] = &clientcmdapi.Cluster{Server: u.config.Host, CertificateAuthorityData: u.config.CAData, CertificateAuthority: u.config.CAFile}
	config.AuthInfos["operator"] = &clientcmdapi.AuthInfo{Token: token}
	config.Contexts["operator"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "operator"}
	config.CurrentContext = "operator"
	if err := clientcmd.WriteToFile(*config, u.operator.kubeconfig); err != nil {
		t.Fatal(err)
	}
}

func (u *cluster) mustKubectl(t *testing.T, args ...string) {
	t.Helper()
	if out, err := u.kubectl(args...); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// stopOperator stops the operator as a Deployment rollout does: SIGTERM,
// then it releases its lease and exits (SIGKILL after 60 s, and the test fails).
func (u *cluster) stopOperator(t *testing.T) {
	t.Helper()
	pid := u.operator.pid(t)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM to the operator (pid %d): %v", pid, err)
	}
	deadline := time.Now().Add(time.Minute)
	for syscall.Kill(pid, 0) == nil && !isZombie(pid) {
		if time.Now().After(deadline) {
			killProcess(t, pid)
			t.Fatalf("the operator (pid %d) was still up a minute after SIGTERM", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func isZombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	fields := strings.Fields(string(data))
	return err == nil && len(fields) > 2 && fields[2] == "Z"
}

// waitClusterOperatorVersion waits until the ClusterOperator reports the
// running operator's version.
func (c *cluster) waitClusterOperatorVersion(t *testing.T) {
	t.Helper()
	framework.WaitFor(context.Background(), t, "the ClusterOperator to report version "+c.operatorVersion, func() (bool, error) {
		out, err := c.kubectl("get", "clusteroperator", "secondary-scheduler", "-o", `jsonpath={.status.versions[?(@.name=="operator")].version}`)
		if err != nil || out != c.operatorVersion {
			return false, fmt.Errorf("%q (%v)", out, err)
		}
		return true, nil
	})
}
