package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// simulatorHarness plays kubelet for the Pods of Simulators with the real
// simulator v0.1.1 and etcd binaries (operandrunner.RunSimulators).
type simulatorHarness struct {
	mu      sync.Mutex
	started []*operandrunner.Simulator
}

// playSimulators runs the harness until the test ends.
func (c *cluster) playSimulators(t *testing.T) *simulatorHarness {
	t.Helper()
	o := operandrunner.SimulatorOptions{
		Admin:           c.config,
		Simulator:       filepath.Join(c.bin, "simulator"),
		SimulatorConfig: filepath.Join(filepath.Dir(c.bin), "simulator", "config.yaml"),
		Etcd:            filepath.Join(c.bin, "etcd"),
		Dir:             c.testDir(t, "simulators"),
		Logf:            t.Logf,
	}
	for _, f := range []string{o.Simulator, o.SimulatorConfig, o.Etcd} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%v: hack/controlplane/build.sh builds it", err)
		}
	}
	h := &simulatorHarness{}
	framework.RunInBackground(t, func(ctx context.Context) {
		err := operandrunner.RunSimulators(ctx, o, func(s *operandrunner.Simulator) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.started = append(h.started, s)
		})
		if err != nil {
			t.Errorf("playing kubelet for Simulators: %v", err)
		}
	})
	return h
}

// latest is the simulator started last for Simulator namespace/name (nil if
// none), and how many were started for it.
func (h *simulatorHarness) latest(namespace, name string) (*operandrunner.Simulator, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var last *operandrunner.Simulator
	n := 0
	for _, s := range h.started {
		if s.Pod.Namespace == namespace && s.Pod.Owner == name {
			last, n = s, n+1
		}
	}
	return last, n
}

// waitStarted waits for the harness to have started more than after
// simulators for Simulator namespace/name, and returns the last.
func (h *simulatorHarness) waitStarted(ctx context.Context, t *testing.T, namespace, name string, after int) *operandrunner.Simulator {
	t.Helper()
	var s *operandrunner.Simulator
	framework.WaitForWithin(ctx, t, reconcileTimeout, fmt.Sprintf("the harness to start simulator #%d of Simulator %s/%s", after+1, namespace, name), func() (bool, error) {
		var n int
		s, n = h.latest(namespace, name)
		return n > after, nil
	})
	return s
}

// simulatorGet GETs path from the simulator's server ("simulator" port) with
// header Origin: origin when not empty.
func simulatorGet(s *operandrunner.Simulator, path, origin string) (*http.Response, string, error) {
	req, err := http.NewRequest(http.MethodGet, s.Endpoints["simulator"]+path, nil)
	if err != nil {
		return nil, "", err
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}

// simulatorKubectl runs kubectl against the simulator's own kube-apiserver,
// with no kubeconfig (the cluster's credentials must not be needed, nor sent).
func (c *cluster) simulatorKubectl(t *testing.T, s *operandrunner.Simulator, stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(t.Context(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "kubectl"), append([]string{"--server=" + s.Endpoints["kube-apiserver"]}, args...)...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "KUBECONFIG=" + filepath.Join(t.TempDir(), "none")}
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

const simulatorNodeAndPod = `apiVersion: v1
kind: Node
metadata:
  name: node-1
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: pod-1
  namespace: default
spec:
  containers:
  - name: c
    image: registry.k8s.io/pause:3.10
    resources:
      requests: {cpu: 100m, memory: 64Mi}
`

// TestRealSimulator runs the simulator users get by default (simulator-backend
// v0.1.1, the Pod's "simulator" and "etcd" containers as host processes with
// exactly their environment and arguments, ports remapped) and shows that:
//
//   - the Simulator is Available only once the simulator answers: every time
//     the test sees it Available, the simulator's server answers;
//   - kubectl against its kube-apiserver (the port the operator set in
//     KUBE_API_PORT) creates a node and a pod, and its scheduler binds the pod;
//   - when the simulator process dies, the harness restarts it as a kubelet
//     would; the Simulator is Available again and the node is still there
//     (its etcd, another container, kept running);
//   - a spec change (corsAllowedOriginList) gives a new Pod, whose simulator
//     runs with the new environment: its server allows the new origin.
func TestRealSimulator(t *testing.T) {
	c := needCluster(t)
	h := c.playSimulators(t)
	ctx := context.Background()
	ns := c.createNamespace(t, "simulator")
	sims := c.admin.Operator.SimulationV1alpha1().Simulators(ns)
	if _, err := sims.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "real"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	s := h.waitStarted(ctx, t, ns, "real", 0)
	notAvailableWhileSilent := 0
	var answeredAt time.Time
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the Simulator to be Available", func() (bool, error) {
		sim, err := sims.Get(ctx, "real", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		// Read the Simulator first: Available must imply answering now. The
		// simulator may have been restarted meanwhile: ask the latest.
		s, _ = h.latest(ns, "real")
		_, _, answerErr := simulatorGet(s, "/api/v1/schedulerconfiguration", "")
		if answerErr == nil && answeredAt.IsZero() {
			answeredAt = time.Now()
		}
		if sim.Status.Phase != simv1alpha1.SimulatorAvailable {
			if answerErr != nil {
				notAvailableWhileSilent++
			}
			return false, fmt.Errorf("phase %q", sim.Status.Phase)
		}
		if answerErr != nil {
			t.Fatalf("the Simulator is Available, but its simulator does not answer: %v", answerErr)
		}
		return true, nil
	})
	if notAvailableWhileSilent == 0 {
		t.Fatal("the simulator answered before the test saw its Simulator not Available: nothing shows that Available waits for it")
	}
	t.Logf("simulator started %s; answered after %s; Simulator Available after %s (seen not Available %d times while it did not answer)",
		s.StartedAt.Format(time.RFC3339Nano), answeredAt.Sub(s.StartedAt).Round(time.Millisecond),
		time.Since(s.StartedAt).Round(time.Millisecond), notAvailableWhileSilent)

	if out, err := c.simulatorKubectl(t, s, simulatorNodeAndPod, "create", "-f", "-"); err != nil {
		t.Fatalf("kubectl create -f - against the simulator's kube-apiserver %s: %v\n%s", s.Endpoints["kube-apiserver"], err, out)
	}
	created := time.Now()
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the simulator's scheduler to bind pod-1", func() (bool, error) {
		out, err := c.simulatorKubectl(t, s, "", "get", "pod", "pod-1", "-n", "default", "-o", "jsonpath={.spec.nodeName}")
		if err != nil {
			return false, fmt.Errorf("%v: %s", err, out)
		}
		return out == "node-1", nil
	})
	t.Logf("the simulator's scheduler bound pod-1 to node-1 within %s", time.Since(created).Round(time.Millisecond))

	// A kubelet restarts a container whose process dies; the pod, its etcd
	// and its ports stay.
	if err := syscall.Kill(s.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, before := h.latest(ns, "real")
	again := h.waitStarted(ctx, t, ns, "real", before)
	if again.Pod.UID != s.Pod.UID {
		t.Fatalf("the simulator came back in another Pod (%s, was %s): the controller replaced the Pod instead of the kubelet restarting its container", again.Pod.Name, s.Pod.Name)
	}
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the restarted simulator to be Available with restartCount 1", func() (bool, error) {
		pod, err := c.admin.Kube.CoreV1().Pods(ns).Get(ctx, s.Pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		restarts := int32(-1)
		for _, cs := range pod.Status.ContainerStatuses {
			if cs.Name == simv1alpha1.SimulatorContainerName {
				restarts = cs.RestartCount
				if restarts == 1 && (cs.LastTerminationState.Terminated == nil || cs.LastTerminationState.Terminated.ExitCode != 137) {
					return false, fmt.Errorf("lastState %+v, want terminated with exit code 137", cs.LastTerminationState)
				}
			}
		}
		sim, err := sims.Get(ctx, "real", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if restarts != 1 || sim.Status.Phase != simv1alpha1.SimulatorAvailable {
			return false, fmt.Errorf("restartCount %d, phase %q", restarts, sim.Status.Phase)
		}
		return true, nil
	})
	if out, err := c.simulatorKubectl(t, again, "", "get", "node", "node-1", "-o", "name"); err != nil {
		t.Fatalf("after the restart, node-1 is gone from the simulator (its etcd should have kept it): %v\n%s", err, out)
	}

	// A spec change replaces the Pod; the new simulator runs with the new env.
	const origin = "https://simulator-ui.example.com"
	sim, err := sims.Get(ctx, "real", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sim.Spec.CORSAllowedOriginList = []string{origin}
	if _, err := sims.Update(ctx, sim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, before = h.latest(ns, "real")
	next := h.waitStarted(ctx, t, ns, "real", before)
	if next.Pod.UID == s.Pod.UID {
		t.Fatal("the spec change restarted the simulator in the same Pod")
	}
	if !envHas(next.Env, "CORS_ALLOWED_ORIGIN_LIST="+origin) {
		t.Fatalf("the new simulator's environment %q lacks CORS_ALLOWED_ORIGIN_LIST=%s", next.Env, origin)
	}
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the new simulator to allow origin "+origin, func() (bool, error) {
		resp, _, err := simulatorGet(next, "/api/v1/schedulerconfiguration", origin)
		if err != nil {
			return false, err
		}
		got := resp.Header.Get("Access-Control-Allow-Origin")
		if got != origin {
			return false, fmt.Errorf("Access-Control-Allow-Origin %q", got)
		}
		return true, nil
	})
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the Simulator to be Available in its new Pod", func() (bool, error) {
		sim, err := sims.Get(ctx, "real", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if sim.Status.Phase != simv1alpha1.SimulatorAvailable {
			return false, fmt.Errorf("phase %q", sim.Status.Phase)
		}
		return true, nil
	})
}

func envHas(env []string, kv string) bool {
	for _, e := range env {
		if e == kv {
			return true
		}
	}
	return false
}
