package operandrunner

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
)

// Images the simulator runner has a binary for (the tag of etcd's is not looked
// at; the simulator's must be v0.1.x, the releases with the KEP-159 layout).
const (
	SimulatorImage = "registry.k8s.io/scheduler-simulator/simulator-backend"
	EtcdImage      = "registry.k8s.io/etcd"
)

// SimulatorSelector selects the Pods of Simulators.
const SimulatorSelector = simulatorcontroller.SimulatorLabel

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

// SimulatorPod is what the runner reads for a Simulator's Pod.
type SimulatorPod struct {
	Namespace, Name string
	UID             types.UID
	// Owner is the name of the Simulator (the pod's SimulatorSelector label).
	Owner string
	// Simulator is the "simulator" container, Etcd the "etcd" one (nil when
	// the Simulator uses an external etcd).
	Simulator, Etcd *corev1.Container
	// Volumes are the pod's volumes, ConfigMaps with their data.
	Volumes map[string]volume
}

// volume is a pod volume as the runner provides it on the host.
type volume struct {
	// files of a ConfigMap volume, by path in the volume; nil for an emptyDir.
	files map[string]string
}

// ReadSimulatorPod reads what the containers of a Simulator's Pod run with.
func ReadSimulatorPod(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod) (*SimulatorPod, error) {
	sp := &SimulatorPod{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Owner: pod.Labels[SimulatorSelector], Volumes: map[string]volume{}}
	for i := range pod.Spec.Containers {
		switch c := &pod.Spec.Containers[i]; c.Name {
		case simv1alpha1.SimulatorContainerName:
			sp.Simulator = c
		case simv1alpha1.EtcdContainerName:
			sp.Etcd = c
		}
	}
	if sp.Simulator == nil {
		return nil, fmt.Errorf("pod %s/%s has no container %q", pod.Namespace, pod.Name, simv1alpha1.SimulatorContainerName)
	}
	for _, c := range []*corev1.Container{sp.Simulator, sp.Etcd} {
		if c == nil {
			continue
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil {
				return nil, fmt.Errorf("container %s: env %s: valueFrom is not played by this harness, only value", c.Name, e.Name)
			}
		}
		for _, m := range c.VolumeMounts {
			if _, done := sp.Volumes[m.Name]; done {
				continue
			}
			v, err := readVolume(ctx, kube, pod, m.Name)
			if err != nil {
				return nil, fmt.Errorf("container %s: %w", c.Name, err)
			}
			sp.Volumes[m.Name] = v
		}
	}
	return sp, nil
}

func readVolume(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod, name string) (volume, error) {
	for _, v := range pod.Spec.Volumes {
		if v.Name != name {
			continue
		}
		switch {
		case v.EmptyDir != nil:
			return volume{}, nil
		case v.ConfigMap != nil:
			cm, err := kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				if apierrors.IsNotFound(err) {
					return volume{}, fmt.Errorf("%w: ConfigMap %s/%s", errNoConfigMap, pod.Namespace, v.ConfigMap.Name)
				}
				return volume{}, err
			}
			files := map[string]string{}
			if len(v.ConfigMap.Items) == 0 {
				for k, d := range cm.Data {
					files[k] = d
				}
			}
			for _, item := range v.ConfigMap.Items {
				files[item.Path] = cm.Data[item.Key]
			}
			return volume{files: files}, nil
		}
		return volume{}, fmt.Errorf("volume %s: this harness plays configMap and emptyDir volumes only", name)
	}
	return volume{}, fmt.Errorf("volume %s is mounted but not in the pod's volumes", name)
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
	s := &Simulator{Process: proc, Pod: sp, Env: env, Endpoints: n.endpoints, probe: n.probe(sp.Simulator.ReadinessProbe, sp.Simulator)}
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
	rw := n.rewriter(sp.Etcd)
	var args []string
	for _, a := range sp.Etcd.Args {
		args = append(args, rewriteArg(a, rw))
	}
	p, err := n.sandbox.start(hostCommand{Binary: binary, Args: args, Env: []string{"PATH=/usr/bin:/bin"}, Dir: n.dir,
		Container: simv1alpha1.EtcdContainerName, LogPath: filepath.Join(n.dir, EtcdLogFile)})
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

// rewriter maps a value of container c's environment or arguments from the
// container's file system to the host's: a path under one of c's volume mounts
// goes to the volume's directory. Ports need nothing: the pod has its own
// network namespace.
func (n *simulatorNetwork) rewriter(c *corev1.Container) func(string) string {
	mounts := append([]corev1.VolumeMount(nil), c.VolumeMounts...)
	// The longest mount path first: a path is under the innermost mount.
	sort.Slice(mounts, func(i, j int) bool { return len(mounts[i].MountPath) > len(mounts[j].MountPath) })
	return func(v string) string {
		for _, m := range mounts {
			if rest, ok := strings.CutPrefix(v, m.MountPath); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
				return filepath.Join(n.dir, "volumes", m.Name) + rest
			}
		}
		return v
	}
}

// rewriteArg rewrites the value of a "--flag=value" or a lone value.
func rewriteArg(a string, rw func(string) string) string {
	if name, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") {
		return name + "=" + rw(v)
	}
	return rw(a)
}

// probe is c's readiness probe in the pod's network namespace (TCP, or HTTP
// GET through the forwarded port); with none, a running container is ready.
func (n *simulatorNetwork) probe(p *corev1.Probe, c *corev1.Container) func() bool {
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
		return func() bool { return n.sandbox.answers(addr) }
	case p.HTTPGet != nil:
		u := "http://" + port(p.HTTPGet.Port) + p.HTTPGet.Path
		client := &http.Client{Timeout: time.Second, Transport: &http.Transport{
			DialContext: func(_ context.Context, _, addr string) (net.Conn, error) { return n.sandbox.dial(addr, time.Second) },
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

// writeVolumes writes ConfigMap volumes' files afresh, and creates emptyDirs
// once: they outlive a container's restart, as in a pod.
func writeVolumes(dir string, volumes map[string]volume) error {
	for name, v := range volumes {
		vdir := filepath.Join(dir, "volumes", name)
		if v.files == nil {
			if err := os.MkdirAll(vdir, 0o700); err != nil {
				return err
			}
			continue
		}
		if err := os.RemoveAll(vdir); err != nil {
			return err
		}
		for path, data := range v.files {
			f := filepath.Join(vdir, path)
			if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(f, []byte(data), 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}

func exited(p *Process) bool {
	select {
	case <-p.Done():
		return true
	default:
		return false
	}
}
