package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// Faults of the control plane itself: kube-apiserver and etcd killed and
// started again with the arguments hack/controlplane/start.sh gave them.

// component is a process of the local control plane, as its pids file
// records it.
type component struct {
	name string
	pid  int
	args []string
}

func (c *cluster) component(t *testing.T, name string) component {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.controlPlaneDir, "pids"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 || fields[0] != name {
			continue
		}
		pid, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatalf("pids: %q: %v", line, err)
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			t.Fatalf("%s (pid %d) does not run: %v", name, pid, err)
		}
		return component{name: name, pid: pid, args: strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")}
	}
	t.Fatalf("no %s in %s/pids", name, c.controlPlaneDir)
	return component{}
}

// restartComponent SIGKILLs a control-plane process, runs whileDown, and
// starts it again with the same arguments and log, recording the new pid for
// stop.sh. It returns when the process was killed.
func (c *cluster) restartComponent(t *testing.T, name string, whileDown func()) time.Time {
	t.Helper()
	comp := c.component(t, name)
	killProcess(t, comp.pid)
	killed := time.Now()
	if whileDown != nil {
		whileDown()
	}
	for _, addr := range listenAddresses(comp.args) {
		waitPortFree(t, addr)
	}
	log, err := os.OpenFile(filepath.Join(c.controlPlaneDir, "logs", name+".log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	fmt.Fprintf(log, "=== e2e: %s killed and started again\n", name)
	cmd := exec.Command(comp.args[0], comp.args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	// As start.sh runs it: its own session, stopped by stop.sh through pids.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	pids := filepath.Join(c.controlPlaneDir, "pids")
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	updated := strings.Replace(string(data), fmt.Sprintf("%s %d\n", name, comp.pid), fmt.Sprintf("%s %d\n", name, cmd.Process.Pid), 1)
	if err := os.WriteFile(pids, []byte(updated), 0o644); err != nil {
		t.Fatal(err)
	}
	return killed
}

// listenAddresses are the loopback addresses a control-plane process of
// start.sh listens on, from its flags.
func listenAddresses(args []string) []string {
	var out []string
	for _, arg := range args {
		flag, value, _ := strings.Cut(arg, "=")
		switch flag {
		case "--secure-port":
			out = append(out, "127.0.0.1:"+value)
		case "--server-address":
			out = append(out, value)
		case "--listen-client-urls", "--listen-peer-urls":
			for _, u := range strings.Split(value, ",") {
				if parsed, err := url.Parse(u); err == nil {
					out = append(out, parsed.Host)
				}
			}
		}
	}
	return out
}

// waitPortFree waits until addr can be listened on. A SIGKILLed process that
// is not this one's child may show as a zombie while its other threads still
// exit and hold its sockets: a restart before then fails to bind.
func waitPortFree(t *testing.T, addr string) {
	t.Helper()
	framework.WaitForWithin(context.Background(), t, time.Minute, addr+" to be free", func() (bool, error) {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return false, err
		}
		return true, l.Close()
	})
}

// waitAPIServerReady waits until /readyz of kube-apiserver says ok (etcd
// included) and returns when.
func (c *cluster) waitAPIServerReady(t *testing.T) time.Time {
	t.Helper()
	framework.WaitForWithin(context.Background(), t, 2*time.Minute, "kube-apiserver /readyz", func() (bool, error) {
		_, err := c.admin.Kube.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		return err == nil, err
	})
	return time.Now()
}

// etcdGateway posts to etcd's JSON gateway (its client URL, /v3/...).
func (c *cluster) etcdGateway(t *testing.T, path string, request, response any) {
	t.Helper()
	var url string
	for _, arg := range c.component(t, "etcd").args {
		if v, ok := strings.CutPrefix(arg, "--advertise-client-urls="); ok {
			url = v
		}
	}
	if url == "" {
		t.Fatal("etcd's command line names no --advertise-client-urls")
	}
	body, _ := json.Marshal(request)
	resp, err := http.Post(url+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("etcd %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("etcd %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(response); err != nil {
		t.Fatalf("etcd %s: %v", path, err)
	}
}

// compactEtcd writes a key outside the API server's prefix (a new revision
// that no watch has seen) and compacts etcd up to it: a watch that resumes
// from before is then answered 410 Gone.
func (c *cluster) compactEtcd(t *testing.T) int64 {
	t.Helper()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	var put struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	c.etcdGateway(t, "/v3/kv/put", map[string]string{"key": b64("/e2e-fault/compaction"), "value": b64(time.Now().String())}, &put)
	revision, err := strconv.ParseInt(put.Header.Revision, 10, 64)
	if err != nil {
		t.Fatalf("etcd put: revision %q: %v", put.Header.Revision, err)
	}
	var compacted map[string]any
	c.etcdGateway(t, "/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(revision, 10), "physical": true}, &compacted)
	return revision
}

// logSize is the size of a control-plane component's log.
func (c *cluster) logSize(t *testing.T, name string) int64 {
	t.Helper()
	info, err := os.Stat(filepath.Join(c.controlPlaneDir, "logs", name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// restartKwok starts kwok, the nodes' stand-in kubelet, again after an etcd
// restart. While etcd is down kube-apiserver answers 500, and kwok (v0.8.0)
// gives up a pod's stage on any error but a refused connection, a timeout,
// 503 or 429: it plays it again only on the pod's next watch event. With
// kube-apiserver up its watches survive, so no event comes, and a pod bound
// during the outage stays Pending for good (the Deployment's rollout with
// it). A kubelet's status manager syncs each pod's status again every 10 s;
// a new kwok lists every pod and plays its stage, which is what that sync
// does. kwok's lease holder is a new identity per process, so the nodes'
// leases are deleted while it is down: the new one takes its nodes at once,
// as a restarted kubelet (its node's name is its identity) keeps its lease.
// It logs the stages kwok gave up since its log had logFrom bytes.
func (c *cluster) restartKwok(t *testing.T, logFrom int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.controlPlaneDir, "logs", "kwok.log"))
	if err != nil {
		t.Fatal(err)
	}
	var dropped []string
	for _, line := range strings.Split(string(data[min(logFrom, int64(len(data))):]), "\n") {
		if strings.Contains(line, `"msg":"failed to apply stage"`) && !strings.Contains(line, "not found") {
			dropped = append(dropped, line)
		}
	}
	t.Logf("kwok gave up %d pod stage(s) during the outage; restarting it: %v", len(dropped), dropped)
	ctx := context.Background()
	c.restartComponent(t, "kwok", func() {
		nodes, err := c.admin.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes.Items {
			err := c.admin.Kube.CoordinationV1().Leases("kube-node-lease").Delete(ctx, n.Name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		}
	})
}

// kubeletSyncPeriod is how often a kubelet's status manager syncs every
// pod's status again.
const kubeletSyncPeriod = 10 * time.Second

// resyncAnnotation is what resyncStuckPods writes on a pod to give kwok a
// watch event of it.
const resyncAnnotation = "e2e.secondary-scheduler.openshift.io/kubelet-resync"

// resyncStuckPods stands in for a kubelet's periodic status sync until the
// returned stop is called, which returns how many pods it resynced. kwok
// gives a pod's stage up on errors such as an unavailable etcd's and plays
// it again only on the pod's next watch event, which may never come: every
// kubeletSyncPeriod, an operand pod bound to a node for that long and still
// Pending, or being deleted for that long, gets an annotation, the event
// kwok needs. It touches only what a node agent owns: the operator reads
// neither the annotation nor anything else it changes.
func (c *cluster) resyncStuckPods(t *testing.T) (stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	resynced := 0
	go func() {
		defer close(done)
		tick := time.NewTicker(kubeletSyncPeriod)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			pods, err := c.admin.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{})
			if err != nil {
				continue // the next tick tries again, as a kubelet does
			}
			for i := range pods.Items {
				p := &pods.Items[i]
				stuck := stuckOnNode(p, time.Now())
				if stuck == "" {
					continue
				}
				patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, resyncAnnotation, time.Now().UTC().Format(time.RFC3339Nano))
				if _, err := c.admin.Kube.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
					resynced++
					t.Logf("pod %s %s: resynced, for kwok to play its stage again", p.Name, stuck)
				}
			}
		}
	}()
	stopped := sync.OnceFunc(func() {
		cancel()
		<-done
	})
	// A failed wait ends the test before stop is called; the goroutine must
	// not log after that.
	t.Cleanup(stopped)
	return func() int {
		stopped()
		return resynced
	}
}

// stuckOnNode says how a pod is stuck on its node for a kubelet sync period
// or more ("" if it is not): bound and still Pending, or being deleted.
func stuckOnNode(p *corev1.Pod, now time.Time) string {
	if p.Spec.NodeName == "" {
		return ""
	}
	if d := p.DeletionTimestamp; d != nil {
		if now.Sub(d.Time) >= kubeletSyncPeriod {
			return fmt.Sprintf("is being deleted since %s", d.Format(time.RFC3339))
		}
		return ""
	}
	if p.Status.Phase != corev1.PodPending {
		return ""
	}
	bound := p.CreationTimestamp.Time
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionTrue {
			bound = cond.LastTransitionTime.Time
		}
	}
	if now.Sub(bound) >= kubeletSyncPeriod {
		return fmt.Sprintf("on node %s is Pending since %s", p.Spec.NodeName, bound.Format(time.RFC3339))
	}
	return ""
}

// controlPlaneFault is one kill of a control-plane component in the middle of
// a rollout, measured.
type controlPlaneFault struct {
	// outage runs from the kill to /readyz of kube-apiserver saying ok again.
	outage time.Duration
	// converged runs from /readyz ok to the change made before the kill
	// being rolled out; next from /readyz ok to a change made after it being
	// rolled out.
	converged, next time.Duration
	// relisted counts the operator's requests, after /readyz ok, that
	// filled an informer anew (a list, or a watch with its initial events).
	relisted int
	// requests counts all the operator's requests in that time.
	requests int
	// split: how the kill split the rollout's expected writes.
	split writeSplit
	// resynced counts the operand pods kwok had left stuck and
	// resyncStuckPods made it play again.
	resynced int
	// operatorExited: the operator lost its lease during the outage and
	// exited, as library-go's leader election does; it was started again, as
	// its kubelet would.
	operatorExited bool
}

// killComponentDuringRollout makes a spec change, kills name at the
// operator's first write of it (as the audit log shows), runs whileDown,
// starts name again, and measures the way back.
func (c *cluster) killComponentDuringRollout(t *testing.T, name string, whileDown func()) controlPlaneFault {
	t.Helper()
	var f controlPlaneFault
	// Each change flips the log level from what the spec holds: a change to
	// the level already set is no change, and the operator writes nothing.
	ss, err := c.getCR(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	level := otherLogLevel(ss.Spec.LogLevel)
	tail := c.tailAudit(t)
	changed := time.Now()
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.LogLevel = level })
	seen := c.waitForWrite(t, tail, rolloutWrites, c.reconciledErr)
	t.Logf("killing %s at %s", name, seen)
	kwokLog := c.logSize(t, "kwok")
	killed := c.restartComponent(t, name, whileDown)
	ready := c.waitAPIServerReady(t)
	f.outage = ready.Sub(killed)
	if name == "etcd" {
		c.restartKwok(t, kwokLog)
	}
	stopResync := c.resyncStuckPods(t)
	// Done when the operator has said so, its last write of the rollout: the
	// cluster alone can converge before it, and the kill would seem to have
	// come after the change.
	done := c.convergeRestartingOperator(t, &f, c.rolloutReported(changed))
	f.converged = done.Sub(ready)
	f.split = c.splitOperatorWrites(t, rolloutWrites, changed, killed, done)
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.LogLevel = otherLogLevel(level) })
	c.waitReconciledWithin(t, recoveryTimeout)
	f.next = time.Since(ready)
	f.resynced = stopResync()
	events := c.operatorRequests(t, ready)
	f.requests = len(events)
	for _, ev := range events {
		if isInitialList(ev) {
			f.relisted++
		}
	}
	t.Logf("%s killed: outage %s; rollout done %s after /readyz, next change %s after; the kill split the rollout's writes: %s; %d stuck pod(s) resynced; the operator sent %d requests since, %d of them refilling an informer: %s",
		name, f.outage.Round(time.Millisecond), f.converged.Round(time.Millisecond), f.next.Round(time.Millisecond),
		f.split, f.resynced, f.requests, f.relisted, requestsByKind(events))
	return f
}

// convergeRestartingOperator waits until converged holds, starting the
// operator again if it exits meanwhile (it loses its lease when the outage
// outlasts its renew deadline, as library-go's leader election does), and
// returns when it held.
func (c *cluster) convergeRestartingOperator(t *testing.T, f *controlPlaneFault, converged func(ctx context.Context) error) time.Time {
	t.Helper()
	deadline := time.Now().Add(recoveryTimeout)
	for {
		if !c.operatorAlive(t) {
			f.operatorExited = true
			t.Logf("the operator exited during the outage (its lease ran out); starting it again, as its kubelet would")
			c.startOperator(t)
		}
		err := converged(context.Background())
		if err == nil {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("not converged %s after the API server was ready again: %v", recoveryTimeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// otherLogLevel is Debug for Normal or unset, Normal otherwise.
func otherLogLevel(l operatorv1.LogLevel) operatorv1.LogLevel {
	if l == operatorv1.Debug {
		return operatorv1.Normal
	}
	return operatorv1.Debug
}

// testControlPlaneFault kills name in the middle of a rollout, FAULTS_REPEAT
// times, and checks that everything converges with nothing lost and that at
// least 3 in 4 kills landed mid-change.
func (c *cluster) testControlPlaneFault(t *testing.T, name string, whileDown func()) []controlPlaneFault {
	t.Helper()
	ctx := context.Background()
	owned, user := c.faultBaseline(ctx, t)
	times := &faultTimes{scenario: name + " killed during a rollout (time from /readyz ok)"}
	next := &faultTimes{scenario: name + " killed during a rollout, the next change (time from /readyz ok)"}
	var faults []controlPlaneFault
	for range faultRepeat(t) {
		f := c.killComponentDuringRollout(t, name, whileDown)
		times.recordSplit(t, f.split)
		times.add(f.converged)
		next.add(f.next)
		faults = append(faults, f)
		c.checkOwned(ctx, t, owned)
		c.checkOneSchedulerPod(ctx, t)
		c.userConfigIntact(ctx, t, user)
		// Not a hot loop: a restart costs a relist of each informer and the
		// rollout's writes, not a stream of retries.
		if f.requests > 300 {
			t.Errorf("the operator sent %d requests after the %s restart", f.requests, name)
		}
	}
	times.report(t)
	next.report(t)
	return faults
}

// TestFaultAPIServerRestart: kube-apiserver is SIGKILLed in the middle of a
// rollout; while it is down, etcd is compacted past every revision the
// operator's watches have seen, so that every watch it resumes is answered
// 410 Gone. Once kube-apiserver is back, the rollout completes, the next
// change is reconciled, and the operator refills its informers rather than
// loop.
func TestFaultAPIServerRestart(t *testing.T) {
	c := needCluster(t)
	faults := c.testControlPlaneFault(t, "kube-apiserver", func() { c.compactEtcd(t) })
	for _, f := range faults {
		if f.relisted == 0 {
			t.Errorf("after a restart past a compaction the operator refilled no informer: its watches were not answered 410 Gone, or it did not recover from it")
		}
	}
}

// TestFaultEtcdRestart: etcd is SIGKILLed in the middle of a rollout and
// started again on its data; kube-apiserver stays up and fails requests
// meanwhile.
func TestFaultEtcdRestart(t *testing.T) {
	c := needCluster(t)
	c.testControlPlaneFault(t, "etcd", nil)
}
