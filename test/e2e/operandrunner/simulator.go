package operandrunner

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

// Images the simulator runner has a binary for (the tag of etcd's is not looked
// at; the simulator's must be v0.1.x, the releases with the KEP-159 layout).
const (
	SimulatorImage = "registry.k8s.io/scheduler-simulator/simulator-backend"
	EtcdImage      = "registry.k8s.io/etcd"
)

// SimulatorSelector selects the Pods of Simulators.
const SimulatorSelector = simulatorrender.SimulatorLabel

// Files the simulator runner writes into a pod's directory,
// SimulatorOptions.Dir/<namespace>_<pod name>.
const (
	SimulatorLogFile = "simulator.log"
	EtcdLogFile      = "etcd.log"
	// EndpointsFile lists "<container port name> <URL on the host>", a line each.
	EndpointsFile = "endpoints"
)

// SimulatorOptions say how to run the Pods of Simulators.
type SimulatorOptions struct {
	// Admin is a client config allowed to read pods and ConfigMaps in every
	// namespace, and to update and delete pods.
	Admin *rest.Config
	// Simulator is the path of the simulator binary (built from
	// sigs.k8s.io/kube-scheduler-simulator/simulator v0.1.1).
	Simulator string
	// SimulatorConfig is that module's config.yaml: the binary reads it from its
	// working directory, as the image runs it from /.
	SimulatorConfig string
	// Etcd is the path of the etcd binary.
	Etcd string
	// Dir receives one directory per pod, <namespace>_<pod name>.
	Dir string
	// Logf reports what the runner does (nil: silent).
	Logf func(format string, args ...interface{})
}

func (o *SimulatorOptions) logf(format string, args ...interface{}) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// binary is the host binary that plays image.
func (o *SimulatorOptions) binary(image string) (string, error) {
	repo := imageRepository(image)
	switch {
	case repo == EtcdImage:
		return o.Etcd, nil
	case repo == SimulatorImage && strings.HasPrefix(strings.TrimPrefix(image, repo), ":v0.1."):
		return o.Simulator, nil
	}
	return "", fmt.Errorf("no host binary plays image %s: this harness runs %s:v0.1.x (simulator v0.1.1, built from its Go module) and %s", image, SimulatorImage, EtcdImage)
}

// RunsImage says whether the simulator runner has a binary for image.
func RunsImage(image string) bool {
	_, err := (&SimulatorOptions{}).binary(image)
	return err == nil
}

// simulatorNetwork is what a pod keeps across its containers' restarts: its
// network namespace with the host ports forwarded into it, its volumes and its
// etcd container.
type simulatorNetwork struct {
	dir     string
	sandbox *sandbox
	// endpoints are the host URLs of the "simulator" container's named ports.
	endpoints map[string]string
	etcd      *Process
}

// Simulator is one run of a Simulator Pod's "simulator" container.
type Simulator struct {
	*Process
	Pod *SimulatorPod
	// Env is the environment it was started with.
	Env []string
	// Endpoints are the URLs on the host of the container's named ports
	// (kube-apiserver, simulator).
	Endpoints map[string]string

	probe func() bool
	stop  func()
}

func (s *Simulator) ready(time.Time) bool { return s.probe() }

// Stop stops the simulator, then the pod's etcd: the runner stops a process
// only when its pod goes away.
func (s *Simulator) Stop() {
	s.Process.Stop()
	s.stop()
}

// RunSimulators plays kubelet for the Pods of Simulators in every namespace
// until ctx ends, as Run does for the operand's pods. started, when not nil, is
// called with every simulator it starts.
func RunSimulators(ctx context.Context, o SimulatorOptions, started func(*Simulator)) error {
	var mu sync.Mutex
	pods := map[types.UID]*simulatorNetwork{}
	release := func(uid types.UID) {
		mu.Lock()
		n := pods[uid]
		delete(pods, uid)
		mu.Unlock()
		if n == nil {
			return
		}
		if n.etcd != nil {
			n.etcd.Stop()
		}
		if n.sandbox != nil {
			n.sandbox.close()
		}
	}
	return run(ctx, o.Admin, o.logf, podKind{
		selector:  SimulatorSelector,
		container: simv1alpha1.SimulatorContainerName,
		read: func(ctx context.Context, kube kubernetes.Interface, p *corev1.Pod) (any, error) {
			return ReadSimulatorPod(ctx, kube, p)
		},
		start: func(ctx context.Context, read any) (process, error) {
			sp := read.(*SimulatorPod)
			mu.Lock()
			n := pods[sp.UID]
			if n == nil {
				n = &simulatorNetwork{dir: filepath.Join(o.Dir, sp.Namespace+"_"+sp.Name)}
				pods[sp.UID] = n
			}
			mu.Unlock()
			s, err := startSimulator(ctx, o, sp, n)
			if err != nil {
				return nil, err
			}
			s.stop = func() { release(sp.UID) }
			if started != nil {
				started(s)
			}
			return s, nil
		},
		forget: release,
	})
}

func startSimulator(ctx context.Context, o SimulatorOptions, sp *SimulatorPod, n *simulatorNetwork) (*Simulator, error) {
	simBinary, err := o.binary(sp.Simulator.Image)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(n.dir, 0o700); err != nil {
		return nil, err
	}
	if n.sandbox == nil {
		if n.sandbox, err = newSandbox(); err != nil {
			return nil, err
		}
		n.endpoints = map[string]string{}
		var lines []string
		for _, p := range sp.Simulator.Ports {
			addr, err := n.sandbox.forward(p.ContainerPort)
			if err != nil {
				return nil, err
			}
			n.endpoints[p.Name] = "http://" + addr
			lines = append(lines, p.Name+" http://"+addr)
		}
		if err := os.WriteFile(filepath.Join(n.dir, EndpointsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			return nil, err
		}
	}
	if err := writeVolumes(n.dir, sp.Volumes); err != nil {
		return nil, err
	}
	if sp.Etcd != nil && (n.etcd == nil || exited(n.etcd)) {
		if n.etcd, err = startEtcd(ctx, o, sp, n); err != nil {
			return nil, err
		}
	}

	// The image runs the binary from /, next to the module's config.yaml.
	work := filepath.Join(n.dir, "workdir")
	if err := os.MkdirAll(work, 0o700); err != nil {
		return nil, err
	}
	config, err := os.ReadFile(o.SimulatorConfig)
	if err != nil {
		return nil, fmt.Errorf("the simulator's config.yaml: %w", err)
	}
	if err := os.WriteFile(filepath.Join(work, "config.yaml"), config, 0o600); err != nil {
		return nil, err
	}
	rw := n.rewriter(sp.Simulator)
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + work}
	for _, e := range sp.Simulator.Env {
		env = append(env, e.Name+"="+rw(e.Value))
	}
	args := make([]string, 0, len(sp.Simulator.Args))
	for _, a := range sp.Simulator.Args {
		args = append(args, rewriteArg(a, rw))
	}
	proc, err := n.sandbox.start(hostCommand{Binary: simBinary, Args: args, Env: env, Dir: work,
		Container: simv1alpha1.SimulatorContainerName, LogPath: filepath.Join(n.dir, SimulatorLogFile)})
	if err != nil {
		return nil, err
	}
	s := &Simulator{Process: proc, Pod: sp, Env: env, Endpoints: n.endpoints, probe: n.sandbox.probe(sp.Simulator.ReadinessProbe, sp.Simulator)}
	o.logf("pod %s/%s: simulator started (pid %d), ports forwarded from the host: %v; log %s", sp.Namespace, sp.Name, proc.PID(), n.endpoints, proc.LogPath)
	return s, nil
}

// startEtcd starts the pod's etcd container and waits until it accepts
// connections: the simulator exits when its etcd does not answer at start.
func startEtcd(ctx context.Context, o SimulatorOptions, sp *SimulatorPod, n *simulatorNetwork) (*Process, error) {
	binary, err := o.binary(sp.Etcd.Image)
	if err != nil {
		return nil, err
	}
	p, args, err := n.sandbox.startContainer(n.dir, sp.Etcd, binary, EtcdLogFile)
	if err != nil {
		return nil, err
	}
	client := ""
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--listen-client-urls="); ok {
			if u, err := url.Parse(strings.Split(v, ",")[0]); err == nil {
				client = u.Host
			}
		}
	}
	for deadline := time.Now().Add(20 * time.Second); client != "" && !n.sandbox.answers(client); {
		if exited(p) || time.Now().After(deadline) || ctx.Err() != nil {
			p.Stop()
			return nil, fmt.Errorf("container etcd did not answer on %s; see %s", client, p.LogPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
	o.logf("pod %s/%s: etcd started (pid %d) on %s", sp.Namespace, sp.Name, p.PID(), client)
	return p, nil
}

// probe is c's probe p in the namespace (TCP, or HTTP GET); with none, a
// running container passes.
func (s *sandbox) probe(p *corev1.Probe, c *corev1.Container) func() bool {
	if p == nil {
		return func() bool { return true }
	}
	port := func(ip intstr.IntOrString) string {
		cp := ip.IntVal
		for _, named := range c.Ports {
			if ip.Type == intstr.String && named.Name == ip.StrVal {
				cp = named.ContainerPort
			}
		}
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(int(cp)))
	}
	switch {
	case p.TCPSocket != nil:
		addr := port(p.TCPSocket.Port)
		return func() bool { return s.answers(addr) }
	case p.HTTPGet != nil:
		u := "http://" + port(p.HTTPGet.Port) + p.HTTPGet.Path
		client := &http.Client{Timeout: time.Second, Transport: &http.Transport{
			DialContext: func(_ context.Context, _, addr string) (net.Conn, error) { return s.dial(addr, time.Second) },
		}}
		return func() bool {
			resp, err := client.Get(u)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode >= 200 && resp.StatusCode < 400
		}
	}
	return func() bool { return false } // exec probes are not played
}

// startContainer starts binary for container c of the pod whose directory is
// dir, in the namespace, with c's command after its first word and c's
// arguments, their paths under c's volume mounts rewritten; its log is
// dir/logFile. It returns the arguments given.
func (s *sandbox) startContainer(dir string, c *corev1.Container, binary, logFile string) (*Process, []string, error) {
	rw := volumeRewriter(dir, c)
	var args []string
	for i, a := range append(append([]string(nil), c.Command...), c.Args...) {
		if i > 0 || len(c.Command) == 0 {
			args = append(args, rewriteArg(a, rw))
		}
	}
	p, err := s.start(hostCommand{Binary: binary, Args: args, Env: []string{"PATH=/usr/bin:/bin"}, Dir: dir,
		Container: c.Name, LogPath: filepath.Join(dir, logFile)})
	return p, args, err
}

func exited(p *Process) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}
