package configdiff

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// runTimeout bounds one start of a binary. A start that loads, validates and
// builds every framework takes well under a second; one that went on to serve
// would run until this kills it, and the test fails.
const runTimeout = 20 * time.Second

// binary is a scheduler build the operator's verdicts are compared with.
type binary struct{ name, path string }

const (
	kubeScheduler    = "kube-scheduler"
	schedulerPlugins = "scheduler-plugins"
)

// binaries are upstream kube-scheduler (the release the operator's checks
// follow) and scheduler-plugins' build, an older kube-scheduler with its
// out-of-tree plugins registered.
func binaries(t *testing.T) []binary {
	return []binary{{kubeScheduler, kubeSchedulerBinary(t)}, {schedulerPlugins, schedulerPluginsBinary(t)}}
}

func kubeSchedulerBinary(t *testing.T) string {
	return controlPlaneBinary(t, "KUBE_SCHEDULER", kubeScheduler)
}

func schedulerPluginsBinary(t *testing.T) string {
	return controlPlaneBinary(t, "SCHEDULER_PLUGINS", schedulerPlugins)
}

// repoPath is a path in this repository. It is found from the working
// directory, not from runtime.Caller: builds here use -trimpath.
func repoPath(t *testing.T, elem ...string) string {
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

// controlPlaneBinary is the binary the environment variable names, or the one
// hack/controlplane/build.sh builds; missing, it skips the test, or fails it in CI.
func controlPlaneBinary(t *testing.T, env, name string) string {
	path := os.Getenv(env)
	if path == "" {
		path = repoPath(t, "_output", "controlplane", "bin", name)
	}
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("no %s binary at %s (build it with hack/controlplane/build.sh, or set %s)", name, path, env)
		if framework.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// verdict is one side's judgement of a configuration: accepted, or refused
// for reason, about subjects (the fields or plugins the refusal names).
type verdict struct {
	accepted bool
	reason   string
	subjects []problem.Subject
}

func (v verdict) String() string {
	if v.accepted {
		return "accepts"
	}
	return fmt.Sprintf("refuses (subject %s): %s", subjectsString(v.subjects), v.reason)
}

// runner starts binaries on configurations, each in a file of its own, with a
// kubeconfig for an API server that answers every request 404 and records it.
type runner struct {
	t          *testing.T
	dir        string
	kubeconfig string
	n          int
}

// allowedRequests are all a binary may ask the API server before
// --write-config-to makes it exit: kube-scheduler's event broadcaster asks
// whether events.k8s.io/v1 is served (a read; when it fails, the broadcaster
// falls back to core events). No lease, no list, no watch, no write.
var allowedRequests = map[string]bool{"GET /apis/events.k8s.io/v1": true}

func newRunner(t *testing.T) *runner {
	dir := t.TempDir()
	server, ca := recordingAPIServer(t)
	return &runner{t: t, dir: dir, kubeconfig: writeKubeconfig(t, dir, server, ca)}
}

// recordingAPIServer answers every request 404 and, when the test ends, fails
// it on any request but allowedRequests. It returns its URL and CA certificate.
func recordingAPIServer(t *testing.T) (string, []byte) {
	var mu sync.Mutex
	requests := map[string]int{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(func() {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		for req, n := range requests {
			if !allowedRequests[req] {
				t.Errorf("a binary asked the API server %s (%d times); it must exit before it does anything but discovery", req, n)
			}
		}
		t.Logf("requests to the API server before the binaries exited: %v", requests)
	})
	return srv.URL, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

func writeKubeconfig(t *testing.T, dir, server string, ca []byte) string {
	path := filepath.Join(dir, "kubeconfig")
	writeFile(t, path, fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, certificate-authority-data: %s}}]
users: [{name: u, user: {token: unused}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, server, base64.StdEncoding.EncodeToString(ca)))
	return path
}

// run starts bin as a starting scheduler pod does, on config (a config.yaml)
// with only clientConnection.kubeconfig pointed at the runner's kubeconfig, as
// the e2e harness does (operandrunner.WriteConfig). The binary loads the file,
// validates it and builds every profile's framework; --write-config-to then
// makes it write the completed configuration, returned as written, and exit 0
// instead of serving. Any refusal exits non-zero with the reason.
func (r *runner) run(bin binary, config []byte) (verdict, []byte) {
	r.t.Helper()
	r.n++
	path := filepath.Join(r.dir, fmt.Sprintf("config-%03d.yaml", r.n))
	if err := operandrunner.WriteConfig(config, r.kubeconfig, path); err != nil {
		r.t.Fatalf("config.yaml for %s: %v\n%s", bin.name, err, config)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin.path, "--config="+path, "--write-config-to="+path+".out", "--secure-port=0").CombinedOutput()
	if ctx.Err() != nil {
		r.t.Errorf("%s did not exit within %s on %s; --write-config-to should make it exit instead of serving\n%s", bin.name, runTimeout, path, out)
		return verdict{reason: "timed out"}, nil
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		reason := lastLine(string(out))
		return verdict{reason: reason, subjects: binarySubjects(reason, config)}, nil
	}
	if err != nil {
		r.t.Fatalf("running %s: %v", bin.path, err)
	}
	written, err := os.ReadFile(path + ".out")
	if err != nil {
		r.t.Fatalf("%s exited 0 without writing its configuration: %v", bin.name, err)
	}
	return verdict{accepted: true}, written
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
