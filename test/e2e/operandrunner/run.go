package operandrunner

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

const (
	// PodSelector selects the operand's pods (the Deployment's selector).
	PodSelector = "app.kubernetes.io/name=" + names.OperandName

	// resyncInterval is how often every pod is looked at without an event: it
	// turns a container ready and ends back-offs on time.
	resyncInterval = 500 * time.Millisecond
	// retryInterval is how soon a container that could not be created is retried.
	retryInterval = time.Second
	// readyAfter is how long a process must run before its container is ready:
	// the host process serves no port, so this stands in for the readiness probe.
	readyAfter = 2 * time.Second
	// Back-off after the scheduler exits, doubling up to maxBackoff as a kubelet's
	// CrashLoopBackOff does; reset once it has run for resetAfter.
	minBackoff = 2 * time.Second
	maxBackoff = 40 * time.Second
	resetAfter = time.Minute
)

// Run plays kubelet for every operand pod until ctx ends: it runs one
// kube-scheduler per pod bound to a node, restarts it after a back-off when it
// exits, stops it when the pod is deleted, and reports the container's status
// on the pod. started, when not nil, is called with every process it starts.
func Run(ctx context.Context, o Options, started func(*Scheduler)) error {
	return run(ctx, o.Admin, o.logf, podKind{
		namespace: names.OperandNamespace,
		selector:  PodSelector,
		container: names.OperandName,
		read: func(ctx context.Context, kube kubernetes.Interface, p *corev1.Pod) (any, error) {
			return ReadPod(ctx, kube, p)
		},
		start: func(ctx context.Context, read any) (process, error) {
			s, err := Start(ctx, o, read.(*Pod))
			if err == nil && started != nil {
				started(s)
			}
			return s, err
		},
	})
}

// process is one run of the container a podKind plays.
type process interface {
	process() *Process
	// ready is the readiness probe's verdict at now.
	ready(now time.Time) bool
	Stop()
}

// podKind says which pods run plays and how it runs their container.
type podKind struct {
	// namespace ("" for all) and label selector of the pods.
	namespace, selector string
	// container is the container whose process is run and reported; the pod's
	// other containers are reported running.
	container string
	// read reads what the container runs with. An error wrapping
	// errNoConfigMap keeps it ContainerCreating.
	read func(ctx context.Context, kube kubernetes.Interface, p *corev1.Pod) (any, error)
	// start starts the container's process from what read returned.
	start func(ctx context.Context, read any) (process, error)
	// forget, when set, is called once a pod's process is stopped for good
	// (the pod is gone or being deleted, or the runner ends).
	forget func(uid types.UID)
	// sidecars, when set, is the status of the pod's init containers that the
	// runner plays, and the pod IP it gave the pod ("": none).
	sidecars func(p *corev1.Pod, now time.Time) ([]corev1.ContainerStatus, string)
}

// waitingError is what start returns while the container must wait without
// anything having failed: its pod's init containers have not started yet. The
// container stays waiting with reason and start is called again soon.
type waitingError struct{ reason, message string }

func (e *waitingError) Error() string { return e.reason + ": " + e.message }

func run(ctx context.Context, admin *rest.Config, logf func(string, ...interface{}), kind podKind) error {
	kube, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithNamespace(kind.namespace),
		informers.WithTweakListOptions(func(lo *metav1.ListOptions) { lo.LabelSelector = kind.selector }))
	informer := factory.Core().V1().Pods()
	wake := make(chan struct{}, 1)
	poke := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	// Every change of a pod is looked at at once: kwok's patch must not stand
	// longer than it takes to write the runner's status again.
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(interface{}) { poke() },
		UpdateFunc: func(interface{}, interface{}) { poke() },
		DeleteFunc: func(interface{}) { poke() },
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	if !cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced) {
		return nil // ctx ended
	}

	k := &kubelet{kind: kind, logf: logf, kube: kube, pods: informer.Lister(), poke: poke,
		runs: map[types.UID]*podRun{}, deleting: map[types.UID]bool{}}
	defer k.stopAll()
	tick := time.NewTicker(resyncInterval)
	defer tick.Stop()
	for {
		k.sync(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick.C:
		}
	}
}

// kubelet is the state of Run; only its loop touches it.
type kubelet struct {
	kind podKind
	logf func(string, ...interface{})
	kube kubernetes.Interface
	pods corelisters.PodLister
	poke func()
	runs map[types.UID]*podRun
	// deleting are the pods being deleted whose process is stopped or stopping.
	deleting map[types.UID]bool
	stopping sync.WaitGroup
}

// podRun is one pod the runner plays.
type podRun struct {
	uid             types.UID
	namespace, name string
	c               *containerRun
	// read is what the last start read; a restart reuses it when the ConfigMap
	// cannot be read any more, as a kubelet keeps a mounted volume's files.
	read      any
	s         process
	backoff   time.Duration
	notBefore time.Time
	// written is the status last written, to tell when someone else (kwok)
	// changed it.
	written *corev1.PodStatus
	lastErr string
}

func (k *kubelet) sync(ctx context.Context) {
	list, err := k.pods.List(labels.Everything())
	if err != nil {
		k.logf("listing pods: %v", err)
		return
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	listed := map[types.UID]bool{}
	for _, p := range list {
		listed[p.UID] = true
		if p.DeletionTimestamp != nil && p.Spec.NodeName != "" && !k.deleting[p.UID] {
			k.deleting[p.UID] = true
			k.logf("pod %s/%s is being deleted: stopping its %s, then deleting it for good", p.Namespace, p.Name, k.kind.container)
			k.stop(ctx, k.runs[p.UID], p)
			delete(k.runs, p.UID)
		}
	}
	for uid, r := range k.runs {
		if !listed[uid] {
			k.logf("pod %s/%s is gone: stopping its %s", r.namespace, r.name, k.kind.container)
			k.stop(ctx, r, nil)
			delete(k.runs, uid)
		}
	}
	for uid := range k.deleting {
		if !listed[uid] {
			delete(k.deleting, uid)
		}
	}
	for _, p := range list {
		if p.Spec.NodeName == "" || p.DeletionTimestamp != nil || ctx.Err() != nil {
			continue
		}
		r := k.runs[p.UID]
		if r == nil {
			// Not ready before anything runs: kwok has made the pod Ready already.
			r = &podRun{uid: p.UID, namespace: p.Namespace, name: p.Name, c: newContainerRun(p, k.kind.container), backoff: minBackoff}
			k.runs[p.UID] = r
			k.logf("pod %s/%s on node %s: playing kubelet", p.Namespace, p.Name, p.Spec.NodeName)
			p = k.report(ctx, r, p)
		}
		k.step(ctx, r, p)
		k.report(ctx, r, p)
	}
}

// step moves the pod's container on: notes an exit, starts a process when the
// back-off allows.
func (k *kubelet) step(ctx context.Context, r *podRun, p *corev1.Pod) {
	now := time.Now()
	if r.c.Terminated != nil {
		return // not restarted: the pod has ended
	}
	if r.s != nil {
		s := r.s.process()
		select {
		case <-s.Done():
		default:
			return
		}
		r.s = nil
		if !restarts(p.Spec.RestartPolicy, s.ExitCode()) {
			r.c.finished(s.ExitCode(), s.TerminationMessage(), s.FinishedAt())
			k.logf("pod %s/%s: %s exited (%v); restartPolicy %s: not restarted, see %s", p.Namespace, p.Name, k.kind.container, s.ExitErr(), p.Spec.RestartPolicy, s.LogPath)
			return
		}
		if s.FinishedAt().Sub(s.StartedAt) > resetAfter {
			r.backoff = minBackoff
		}
		r.c.exited(s.ExitCode(), s.TerminationMessage(), s.FinishedAt(), r.backoff, p.Name)
		k.logf("pod %s/%s: %s exited (%v); restarting in %s, see %s", p.Namespace, p.Name, k.kind.container, s.ExitErr(), r.backoff, s.LogPath)
		r.notBefore = now.Add(r.backoff)
		r.backoff = min(2*r.backoff, maxBackoff)
	}
	if now.Before(r.notBefore) {
		return
	}
	read, err := k.kind.read(ctx, k.kube, p)
	if err != nil && r.read == nil {
		reason := "CreateContainerConfigError"
		if errors.Is(err, errNoConfigMap) || errors.Is(err, errNoSecret) {
			reason = "ContainerCreating" // a kubelet waits for the volume
		}
		k.failed(ctx, r, reason, err)
		return
	}
	if err == nil {
		r.read = read
	}
	s, err := k.kind.start(ctx, r.read)
	var waiting *waitingError
	if errors.As(err, &waiting) {
		r.c.Waiting = corev1.ContainerStateWaiting{Reason: waiting.reason, Message: waiting.message}
		r.notBefore = now.Add(resyncInterval)
		return
	}
	if err != nil {
		k.failed(ctx, r, "CreateContainerError", err)
		return
	}
	r.s, r.lastErr = s, ""
	r.c.started(s.process().StartedAt, s.ready)
	go func() {
		<-s.process().Done()
		k.poke()
	}()
}

// failed keeps the container waiting with reason and retries soon, logging each
// distinct error once.
func (k *kubelet) failed(ctx context.Context, r *podRun, reason string, err error) {
	r.notBefore = time.Now().Add(retryInterval)
	r.c.Waiting = corev1.ContainerStateWaiting{Reason: reason, Message: err.Error()}
	if msg := err.Error(); msg != r.lastErr && ctx.Err() == nil {
		k.logf("pod %s/%s: %s: %v", r.namespace, r.name, reason, err)
		r.lastErr = msg
	}
}

// report writes the status the runner wants for the pod when the pod reports
// another, and returns the pod as it is now.
func (k *kubelet) report(ctx context.Context, r *podRun, p *corev1.Pod) *corev1.Pod {
	now := time.Now()
	var sidecars []corev1.ContainerStatus
	podIP := ""
	if k.kind.sidecars != nil {
		sidecars, podIP = k.kind.sidecars(p, now)
	}
	want := podStatus(p, r.c.status(now), sidecars, now)
	if podIP != "" {
		want.PodIP, want.PodIPs = podIP, []corev1.PodIP{{IP: podIP}}
	}
	if apiequality.Semantic.DeepEqual(want, p.Status) {
		return p
	}
	q := p.DeepCopy()
	q.Status = want
	out, err := k.kube.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, q, metav1.UpdateOptions{})
	if err != nil {
		// A conflict or a deleted pod shows in the next event.
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && ctx.Err() == nil {
			k.logf("pod %s: updating its status: %v", p.Name, err)
		}
		return p
	}
	// No conflict: p was current, so a readiness other than the one written
	// last came from someone else.
	if r.written != nil && readiness(*r.written) != readiness(p.Status) {
		k.logf("pod %s: its Ready condition was set to %q by someone else (kwok?); wrote %q again",
			p.Name, readiness(p.Status), readiness(want))
	}
	r.written = &out.Status
	return out
}

// readiness is the status of the pod's Ready condition.
func readiness(s corev1.PodStatus) corev1.ConditionStatus {
	if c := findCondition(s.Conditions, corev1.PodReady); c != nil {
		return c.Status
	}
	return ""
}

// stop stops the pod's process in the background (another pod's may start
// meanwhile, as on a node), then, for a pod being deleted, deletes it for good
// as a kubelet does once its containers are gone. kwok's pod-delete stage
// usually has deleted it already.
func (k *kubelet) stop(ctx context.Context, r *podRun, deleting *corev1.Pod) {
	var s process
	if r != nil {
		s, r.s = r.s, nil
	}
	k.stopping.Add(1)
	go func() {
		defer k.stopping.Done()
		if s != nil {
			s.Stop()
		}
		if r != nil && k.kind.forget != nil {
			k.kind.forget(r.uid)
		}
		if deleting == nil || ctx.Err() != nil {
			return
		}
		k.deleteForGood(ctx, deleting)
	}()
}

// deleteForGood deletes a pod being deleted, retrying until it is gone or ctx
// ends. A kubelet retries too: kwok gives its pod-delete stage up on an
// error such as an unavailable etcd's, and nothing else would remove the
// pod, which would hold its ReplicaSet, and so the rollout, for good.
func (k *kubelet) deleteForGood(ctx context.Context, p *corev1.Pod) {
	logged := ""
	_ = wait.PollUntilContextCancel(ctx, retryInterval, true, func(ctx context.Context) (bool, error) {
		err := k.kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{
			GracePeriodSeconds: ptr.To(int64(0)),
			Preconditions:      &metav1.Preconditions{UID: &p.UID},
		})
		// Conflict: the name is another pod's now, this one is gone.
		if err == nil || apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return true, nil
		}
		if msg := err.Error(); msg != logged && ctx.Err() == nil {
			k.logf("pod %s/%s: deleting it: %v; retrying every %s", p.Namespace, p.Name, err, retryInterval)
			logged = msg
		}
		return false, nil
	})
}

// stopAll stops every process, then deletes the pods it played: their status
// is this runner's and would go stale (a ready pod without a scheduler, or a
// crash-looping one forever). Their ReplicaSets replace them, and kwok, the
// node agent that stays, runs the replacements, as when a node goes away.
func (k *kubelet) stopAll() {
	for _, r := range k.runs {
		k.stop(context.Background(), r, nil)
	}
	k.stopping.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for uid, r := range k.runs {
		err := k.kube.CoreV1().Pods(r.namespace).Delete(ctx, r.name, metav1.DeleteOptions{
			GracePeriodSeconds: ptr.To(int64(0)),
			Preconditions:      &metav1.Preconditions{UID: ptr.To(uid)},
		})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			k.logf("pod %s/%s: deleting it on exit: %v", r.namespace, r.name, err)
		}
	}
}
