package operandrunner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// TrialOptions say how to run trial Pods.
type TrialOptions struct {
	// Options give the admin client config, the scheduler binaries (Binary
	// says which plays the scheduler container's image), Dir (one directory
	// per pod, <pod name>_<uid prefix>) and Logf.
	Options
	// Etcd and KubeAPIServer are the control plane's binaries, which play the
	// sidecars etcd and kube-apiserver whatever their images.
	Etcd, KubeAPIServer string
}

// TrialScheduler is the run of a trial Pod's scheduler container.
type TrialScheduler struct {
	*Process
	Pod *TrialPod
	// Args are the arguments it was started with.
	Args []string
	// PodIP is the pod's address on the host: PodIP:6443 is its kube-apiserver.
	PodIP string
	// Dir is the pod's directory (logs, volumes).
	Dir string
	// Sidecars are the processes of its init containers, in order.
	Sidecars []*Process

	stop func()
}

// ready: the scheduler container has no readiness probe.
func (s *TrialScheduler) ready(time.Time) bool { return true }

// Stop stops the scheduler, then the pod's sidecars and network.
func (s *TrialScheduler) Stop() {
	s.Process.Stop()
	s.stop()
}

// trialSandbox is what a trial Pod keeps across its containers: its network
// namespace and address, its volumes and its sidecars.
type trialSandbox struct {
	dir      string
	sandbox  *sandbox
	ip       string
	sidecars []*sidecarRun
	// down stops the sidecars and the network once; a second caller waits
	// for the first.
	down sync.Once
}

// sidecarRun is a native sidecar of a trial Pod.
type sidecarRun struct {
	c *corev1.Container
	p *Process
	// started: its startup probe has passed (none: it runs).
	started bool
	startup func() bool
	// exitLogged: the runner has said that it exited.
	exitLogged bool
}

// trialRunner is the state of RunTrials. The kubelet loop starts pods and
// reads their status; a scheduler's exit and a pod's deletion shut a pod's
// sandbox down from other goroutines. mu guards pods and their fields.
type trialRunner struct {
	o    TrialOptions
	mu   sync.Mutex
	pods map[types.UID]*trialSandbox
}

// RunTrials plays kubelet for trial Pods (label TrialSelector, in any
// namespace) until ctx ends. started, when not nil, is called with every
// scheduler it starts.
func RunTrials(ctx context.Context, o TrialOptions, started func(*TrialScheduler)) error {
	t := &trialRunner{o: o, pods: map[types.UID]*trialSandbox{}}
	return run(ctx, o.Admin, o.logf, podKind{
		namespace: metav1.NamespaceAll,
		selector:  TrialSelector,
		container: TrialSchedulerContainer,
		read: func(ctx context.Context, kube kubernetes.Interface, p *corev1.Pod) (any, error) {
			return ReadTrialPod(ctx, kube, p)
		},
		start: func(ctx context.Context, read any) (process, error) {
			s, err := t.start(read.(*TrialPod))
			if err == nil && started != nil {
				started(s)
			}
			return s, err
		},
		forget:   t.forget,
		sidecars: t.status,
	})
}

// start brings the pod's sandbox and sidecars up, and once they have started,
// its scheduler.
func (t *trialRunner) start(tp *TrialPod) (*TrialScheduler, error) {
	n, err := t.sandboxFor(tp)
	if err != nil {
		return nil, err
	}
	if err := t.startSidecars(tp, n); err != nil {
		return nil, err
	}
	binary, err := t.o.Binary(tp.Scheduler.Image)
	if err != nil {
		return nil, err
	}
	p, args, err := n.sandbox.startContainer(n.dir, tp.Scheduler, binary, tp.Scheduler.Name+".log")
	if err != nil {
		return nil, err
	}
	go func() {
		// A pod that ends with its scheduler has its sidecars stopped.
		<-p.Done()
		if !restarts(tp.RestartPolicy, p.ExitCode()) {
			t.shutdown(tp.UID)
		}
	}()
	t.o.logf("pod %s/%s: %s started (pid %d) as %s; pod IP %s; log %s", tp.Namespace, tp.Name, tp.Scheduler.Name, p.PID(), filepath.Base(binary), n.ip, p.LogPath)
	s := &TrialScheduler{Process: p, Pod: tp, Args: args, PodIP: n.ip, Dir: n.dir, stop: func() { t.shutdown(tp.UID) }}
	for _, sc := range n.sidecars {
		s.Sidecars = append(s.Sidecars, sc.p)
	}
	return s, nil
}

// sandboxFor is the pod's sandbox, made on first use: its directory with the
// volumes, a network namespace, an address of its own on the host with the
// kube-apiserver's port forwarded into the namespace.
func (t *trialRunner) sandboxFor(tp *TrialPod) (*trialSandbox, error) {
	t.mu.Lock()
	n := t.pods[tp.UID]
	t.mu.Unlock()
	if n != nil {
		return n, nil
	}
	dir := filepath.Join(t.o.Dir, tp.Name+"_"+string(tp.UID)[:min(8, len(tp.UID))])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := writeVolumes(dir, trialVolumes(tp, dir)); err != nil {
		return nil, err
	}
	sb, err := newSandbox()
	if err != nil {
		return nil, err
	}
	ports := []int{TrialAPIServerPort, TrialMetricsPort, TrialEtcdPort}
	ls, ip, err := listenPodAddress(ports...)
	if err != nil {
		sb.close()
		return nil, err
	}
	for i, l := range ls {
		sb.forwardFrom(l, int32(ports[i]))
	}
	n = &trialSandbox{dir: dir, sandbox: sb, ip: ip}
	for _, c := range tp.Sidecars {
		n.sidecars = append(n.sidecars, &sidecarRun{c: c, startup: sb.probe(c.StartupProbe, c)})
	}
	t.mu.Lock()
	t.pods[tp.UID] = n
	t.mu.Unlock()
	t.o.logf("pod %s/%s (arm %s): network namespace up, pod IP %s (ports %v forwarded), directory %s", tp.Namespace, tp.Name, tp.Arm, ip, ports, dir)
	return n, nil
}

// trialVolumes are the pod's volumes as written under dir: the files of a
// volume have the paths under its mount paths rewritten (rewriteFiles).
func trialVolumes(tp *TrialPod, dir string) map[string]volume {
	out := map[string]volume{}
	for name, v := range tp.Volumes {
		for _, c := range append(append([]*corev1.Container(nil), tp.Sidecars...), tp.Scheduler) {
			for _, m := range c.VolumeMounts {
				if m.Name == name && v.files != nil {
					v.files = rewriteFiles(v.files, m.MountPath, volumeDir(dir, name))
				}
			}
		}
		out[name] = v
	}
	return out
}

// startSidecars starts the pod's init containers in order, each once the one
// before has started (its startup probe passed), as a kubelet starts native
// sidecars. It returns a waitingError until all have started. A sidecar that
// exits is not started again.
func (t *trialRunner) startSidecars(tp *TrialPod, n *trialSandbox) error {
	for _, sc := range n.sidecars {
		if sc.p == nil {
			binary, err := t.sidecarBinary(sc.c.Name)
			if err != nil {
				return err
			}
			p, _, err := n.sandbox.startContainer(n.dir, sc.c, binary, sc.c.Name+".log")
			if err != nil {
				return err
			}
			t.mu.Lock()
			sc.p = p
			t.mu.Unlock()
			t.o.logf("pod %s/%s: init container %s started (pid %d), log %s", tp.Namespace, tp.Name, sc.c.Name, p.PID(), p.LogPath)
		}
		if exited(sc.p) {
			if !sc.exitLogged {
				sc.exitLogged = true
				t.o.logf("pod %s/%s: init container %s exited (%v) and is not restarted by this harness; see %s", tp.Namespace, tp.Name, sc.c.Name, sc.p.ExitErr(), sc.p.LogPath)
			}
			return &waitingError{reason: "PodInitializing", message: fmt.Sprintf("init container %s exited with code %d", sc.c.Name, sc.p.ExitCode())}
		}
		if !sc.started {
			if !sc.startup() {
				return &waitingError{reason: "PodInitializing", message: fmt.Sprintf("init container %s has not started", sc.c.Name)}
			}
			t.mu.Lock()
			sc.started = true
			t.mu.Unlock()
			t.o.logf("pod %s/%s: init container %s started", tp.Namespace, tp.Name, sc.c.Name)
		}
	}
	return nil
}

func (t *trialRunner) sidecarBinary(container string) (string, error) {
	switch container {
	case TrialEtcdContainer:
		return t.o.Etcd, nil
	case TrialAPIServerContainer:
		return t.o.KubeAPIServer, nil
	}
	return "", fmt.Errorf("no binary plays init container %s", container)
}

// status is the status of the pod's sidecars, and its pod IP.
func (t *trialRunner) status(p *corev1.Pod, _ time.Time) ([]corev1.ContainerStatus, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.pods[p.UID]
	var out []corev1.ContainerStatus
	for i, c := range p.Spec.InitContainers {
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, Started: ptr.To(false),
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}
		if n != nil && i < len(n.sidecars) && n.sidecars[i].p != nil {
			cs = n.sidecars[i].status(c.Image)
		}
		out = append(out, cs)
	}
	if n == nil {
		return out, ""
	}
	return out, n.ip
}

func (sc *sidecarRun) status(image string) corev1.ContainerStatus {
	cs := corev1.ContainerStatus{Name: sc.c.Name, Image: image, Started: ptr.To(false)}
	if exited(sc.p) {
		cs.State.Terminated = terminated(sc.p.ExitCode(), sc.p.TerminationMessage(), sc.p.StartedAt, sc.p.FinishedAt())
		return cs
	}
	cs.State.Running = &corev1.ContainerStateRunning{StartedAt: apiTime(sc.p.StartedAt)}
	// No readiness probe: ready once started.
	cs.Started, cs.Ready = ptr.To(sc.started), sc.started
	return cs
}

// shutdown stops the pod's sidecars, last first, and its network: its
// address is free again. Its state stays for its status.
func (t *trialRunner) shutdown(uid types.UID) {
	t.mu.Lock()
	n := t.pods[uid]
	t.mu.Unlock()
	if n == nil {
		return
	}
	n.down.Do(func() {
		var procs []*Process
		t.mu.Lock()
		for _, sc := range n.sidecars {
			if sc.p != nil {
				procs = append([]*Process{sc.p}, procs...)
			}
		}
		t.mu.Unlock()
		for _, p := range procs {
			p.Stop()
		}
		n.sandbox.close()
	})
}

// forget shuts the pod down and drops its state: the pod is gone.
func (t *trialRunner) forget(uid types.UID) {
	t.shutdown(uid)
	t.mu.Lock()
	delete(t.pods, uid)
	t.mu.Unlock()
}

// Trial Pods get host loopback addresses 127.0.0.firstTrialAddress and up (all
// of 127/8 is loopback on Linux).
const (
	firstTrialAddress = 10
	lastTrialAddress  = 254
)

// listenPodAddress listens on ports of the first address from
// 127.0.0.firstTrialAddress on where all are free: an address is reused
// once its pod is gone, and runs beside each other (other runners, other
// harnesses on the host) take the next.
func listenPodAddress(ports ...int) ([]net.Listener, string, error) {
	closeAll := func(ls []net.Listener) {
		for _, l := range ls {
			l.Close()
		}
	}
next:
	for i := firstTrialAddress; i <= lastTrialAddress; i++ {
		ip := net.IPv4(127, 0, 0, byte(i)).String()
		var ls []net.Listener
		for _, port := range ports {
			l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				closeAll(ls)
				if errors.Is(err, syscall.EADDRINUSE) {
					continue next
				}
				return nil, "", fmt.Errorf("listening on %s:%d for a trial Pod: %w", ip, port, err)
			}
			ls = append(ls, l)
		}
		return ls, ip, nil
	}
	return nil, "", fmt.Errorf("no free address for a trial Pod: ports %v are taken on 127.0.0.%d to 127.0.0.%d", ports, firstTrialAddress, lastTrialAddress)
}
