package e2e

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operandstatuscontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The fault suite (make test-faults: hack/test-e2e.sh --faults runs only the
// tests named TestFault*). Each kill is a SIGKILL of the operator's host
// process at a random point of a change, followed by a start of the same
// binary; each scenario then checks that everything converges (waitReconciled,
// or the removed state), that nothing the operator owns is orphaned or
// missing, that the user's ConfigMap is intact, and that no scheduler pod is
// duplicated. Convergence times (from the kill) are logged with p50/p99 as
// "FAULT <scenario>: ..." lines, which docs/reliability.md quotes.

// faultRepeat is how many times each kill is repeated (FAULTS_REPEAT, default 3).
func faultRepeat(t *testing.T) int {
	n := 3
	if v := os.Getenv("FAULTS_REPEAT"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("FAULTS_REPEAT=%q: want a positive number", v)
		}
	}
	return n
}

// ownedObjects names the objects the operator owns for the SecondaryScheduler
// (label managed-by) in the operand namespace and cluster-wide, as kind/name,
// config ConfigMaps (named by content) apart.
func (c *cluster) ownedObjects(ctx context.Context, t *testing.T) (objects []string, configMaps []string) {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: names.ManagedByLabel + "=" + names.ManagedByValue}
	kube := c.admin.Kube
	ns := names.OperandNamespace
	lists := []struct {
		kind string
		list func() (runtime.Object, error)
	}{
		{"ConfigMap", func() (runtime.Object, error) { return kube.CoreV1().ConfigMaps(ns).List(ctx, sel) }},
		{"Deployment", func() (runtime.Object, error) { return kube.AppsV1().Deployments(ns).List(ctx, sel) }},
		{"Service", func() (runtime.Object, error) { return kube.CoreV1().Services(ns).List(ctx, sel) }},
		{"ServiceAccount", func() (runtime.Object, error) { return kube.CoreV1().ServiceAccounts(ns).List(ctx, sel) }},
		{"Role", func() (runtime.Object, error) { return kube.RbacV1().Roles(ns).List(ctx, sel) }},
		{"RoleBinding", func() (runtime.Object, error) { return kube.RbacV1().RoleBindings(ns).List(ctx, sel) }},
		{"ClusterRole", func() (runtime.Object, error) { return kube.RbacV1().ClusterRoles().List(ctx, sel) }},
		{"ClusterRoleBinding", func() (runtime.Object, error) { return kube.RbacV1().ClusterRoleBindings().List(ctx, sel) }},
	}
	for _, l := range lists {
		list, err := l.list()
		if err != nil {
			t.Fatalf("listing %ss: %v", l.kind, err)
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range items {
			m, err := meta.Accessor(o)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case m.GetDeletionTimestamp() != nil:
			case l.kind == "ConfigMap" && names.IsConfigMapName(m.GetName()):
				configMaps = append(configMaps, m.GetName())
			default:
				objects = append(objects, l.kind+"/"+m.GetName())
			}
		}
	}
	sort.Strings(objects)
	sort.Strings(configMaps)
	return objects, configMaps
}

// checkOwned checks that the operator owns exactly want (kind/name), and no
// more config ConfigMaps than it keeps (the desired one, the last known good,
// and three more for rollback).
func (c *cluster) checkOwned(ctx context.Context, t *testing.T, want []string) {
	t.Helper()
	got, configMaps := c.ownedObjects(ctx, t)
	if !slices.Equal(got, want) {
		t.Fatalf("the operator owns\n%v\nwant\n%v", got, want)
	}
	if len(configMaps) > 5 {
		t.Fatalf("%d config ConfigMaps are left: %v", len(configMaps), configMaps)
	}
}

// checkOneSchedulerPod checks that the scheduler's pods are exactly the
// Deployment's replicas, all of its current template.
func (c *cluster) checkOneSchedulerPod(ctx context.Context, t *testing.T) {
	t.Helper()
	framework.WaitForWithin(ctx, t, reconcileTimeout, "exactly the Deployment's pods", func() (bool, error) {
		d, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pods, err := c.admin.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + names.OperandName})
		if err != nil {
			return false, err
		}
		var live []string
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				live = append(live, p.Name)
			}
		}
		if int32(len(live)) != *d.Spec.Replicas {
			return false, fmt.Errorf("%d scheduler pods %v, want %d", len(live), live, *d.Spec.Replicas)
		}
		return true, nil
	})
}

// userConfigIntact checks the user's ConfigMap is still there, unchanged.
func (c *cluster) userConfigIntact(ctx context.Context, t *testing.T, want *corev1.ConfigMap) {
	t.Helper()
	got, err := c.admin.Kube.CoreV1().ConfigMaps(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the user's ConfigMap %s: %v", want.Name, err)
	}
	if !reflect.DeepEqual(got.Data, want.Data) {
		t.Fatalf("the user's ConfigMap %s changed", want.Name)
	}
}

// waitNothingOwned waits until the operator owns nothing in the operand
// namespace or cluster-wide, and also() (when set) returns nil.
func (c *cluster) waitNothingOwned(ctx context.Context, t *testing.T, also func() error) {
	t.Helper()
	framework.WaitForWithin(ctx, t, reconcileTimeout, "everything the operator owned to be removed", func() (bool, error) {
		if also != nil {
			if err := also(); err != nil {
				return false, err
			}
		}
		err := c.nothingOwnedErr(t)(ctx)
		return err == nil, err
	})
}

// faultTimes collects, per scenario, the faults: for kills of the operator,
// how each split the change's expected writes; whether each converged within
// its bound, and how long that took.
type faultTimes struct {
	scenario string
	// splits holds one entry per kill of the operator.
	splits []writeSplit
	times  []time.Duration
	// unconverged says, per fault that did not converge, what was missing.
	unconverged []string
}

// killed records how a kill split the change's writes: the operator's
// requests from changed until the change was done, cut at killed.
func (f *faultTimes) killed(t *testing.T, c *cluster, expected []expectedWrite, changed, killed, done time.Time) {
	t.Helper()
	f.recordSplit(t, c.splitOperatorWrites(t, expected, changed, killed, done))
}

// recordSplit records how one kill split the change's writes.
func (f *faultTimes) recordSplit(t *testing.T, s writeSplit) {
	t.Helper()
	f.splits = append(f.splits, s)
	t.Logf("FAULT %s: kill %d split the expected writes: %s (mid-change: %v)", f.scenario, len(f.splits), s, s.midChange())
}

// add records a fault that converged, d after it.
func (f *faultTimes) add(d time.Duration) { f.times = append(f.times, d) }

// converge waits up to bound for done to pass, and counts the fault as
// converged (timed from since) or not (with what done still said). It
// returns when it stopped waiting and whether the fault converged: a
// scenario stops at a fault that did not.
func (f *faultTimes) converge(t *testing.T, since time.Time, bound time.Duration, done func(ctx context.Context) error) (time.Time, bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		err := done(context.Background())
		now := time.Now()
		if err == nil {
			f.add(now.Sub(since))
			return now, true
		}
		if now.After(deadline) {
			f.unconverged = append(f.unconverged, fmt.Sprintf("fault %d: not converged %s after it: %v", len(f.times)+len(f.unconverged)+1, bound, err))
			return now, false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// report logs the figures and fails the scenario on a fault that did not
// converge, or, for kills, unless at least 3 in 4 split the change's
// expected writes (a kill before or after all of them proves nothing).
func (f *faultTimes) report(t *testing.T) {
	t.Helper()
	mid := 0
	for _, s := range f.splits {
		if s.midChange() {
			mid++
		}
	}
	faults := len(f.times) + len(f.unconverged)
	line := fmt.Sprintf("FAULT %s: %d faults,", f.scenario, faults)
	if len(f.splits) > 0 {
		line += fmt.Sprintf(" %d of %d kills split the change's expected writes (%s),", mid, len(f.splits), joinWrites(f.splits[0].expected))
	}
	line += fmt.Sprintf(" %d converged", len(f.times))
	if s := slices.Sorted(slices.Values(f.times)); len(s) > 0 {
		q := func(p float64) time.Duration { return s[int(p*float64(len(s)-1)+0.5)].Round(time.Millisecond) }
		line += fmt.Sprintf(", time from the fault to converged: p50 %s, p99 %s, max %s", q(0.5), q(0.99), s[len(s)-1].Round(time.Millisecond))
	}
	t.Log(line)
	for _, u := range f.unconverged {
		t.Errorf("FAULT %s: %s", f.scenario, u)
	}
	if len(f.splits) > 0 && mid*4 < len(f.splits)*3 {
		t.Errorf("FAULT %s: only %d of %d kills split the change's expected writes (at least 3 in 4 must)", f.scenario, mid, len(f.splits))
	}
}

// joinWrites names expected writes, for a log line.
func joinWrites(ws []expectedWrite) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.String()
	}
	return strings.Join(parts, ", ")
}

var errStillOwned = errors.New("the operator still owns objects")

// faultBaseline applies examples/bin-packing, waits until it is rolled out,
// and returns what the operator owns then and the user's ConfigMap. When the
// test fails, it logs the state of the cluster (logFaultState).
func (c *cluster) faultBaseline(ctx context.Context, t *testing.T) ([]string, *corev1.ConfigMap) {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			c.logFaultState(t)
		}
	})
	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)
	owned, _ := c.ownedObjects(ctx, t)
	user, err := c.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, "bin-packing", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return owned, user
}

// rolloutWrites are the operator's writes of a spec change that changes
// only the scheduler's arguments: the Deployment, then the status, which
// says the rollout is under way (OperandProgressing True) and, once the new
// pod has been available for minReadySeconds, that it is done.
var rolloutWrites = []expectedWrite{
	{verb: "patch", resource: "deployments", name: names.OperandName},
	{verb: "patch", resource: "secondaryschedulers/status", name: crName, count: 2},
}

// TestFaultKillDuringRollout: the operator is killed while it rolls out a
// spec change (the log level alternates, which changes the scheduler's
// arguments): after it patched the Deployment and reported the rollout under
// way, before it reports it done. After a restart the rollout completes and
// the restarted operator reports it (OperandProgressing False again), the
// operator owns what it did before, one scheduler pod runs, and the user's
// ConfigMap is intact.
func TestFaultKillDuringRollout(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	owned, user := c.faultBaseline(ctx, t)
	times := &faultTimes{scenario: "kill during a rollout"}
	for range faultRepeat(t) {
		// Flipped from what the spec holds: setting the level it has is no
		// change, and the operator writes nothing.
		ss, err := c.getCR(ctx)
		if err != nil {
			t.Fatal(err)
		}
		level := otherLogLevel(ss.Spec.LogLevel)
		changed := time.Now()
		killed := c.killWhenRolling(t, func() {
			c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.LogLevel = level })
		})
		// Progressing was True at the kill, so its False since the change
		// is the restarted operator's.
		done, converged := times.converge(t, killed, reconcileTimeout, c.rolloutReported(changed))
		times.killed(t, c, rolloutWrites, changed, killed, done)
		if !converged {
			break
		}
		c.checkOwned(ctx, t, owned)
		c.checkOneSchedulerPod(ctx, t)
		c.userConfigIntact(ctx, t, user)
	}
	times.report(t)
}

// killWhenRolling makes the change and kills the operator once the audit log
// shows its Deployment patch and its status says OperandProgressing True (or,
// under the misplaced trigger, once the rollout is reported done), then
// starts it again. It returns when the kill happened.
func (c *cluster) killWhenRolling(t *testing.T, change func()) time.Time {
	t.Helper()
	ctx := context.Background()
	tail := c.tailAudit(t)
	change()
	seen := c.waitForWrite(t, tail, rolloutWrites[:1], c.rolloutReported(time.Now()))
	framework.WaitForWithin(ctx, t, reconcileTimeout, "OperandProgressing True after "+seen, func() (bool, error) {
		ss, err := c.getCR(ctx)
		if err != nil {
			return false, err
		}
		cond := condition(ss.Status.Conditions, operandstatuscontroller.OperandProgressing)
		return cond != nil && cond.Status == operatorv1.ConditionTrue || killAfterConverged(), nil
	})
	c.killOperator(t)
	killed := time.Now()
	t.Logf("killed the operator after %s and OperandProgressing True", seen)
	c.startOperator(t)
	return killed
}

// rolloutReported holds once the change is reconciled and an operator's
// status write since since says so: OperandProgressing False, set after
// since. The cluster alone converging does not end the operator's work.
func (c *cluster) rolloutReported(since time.Time) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if err := c.reconciledErr(ctx); err != nil {
			return err
		}
		ss, err := c.getCR(ctx)
		if err != nil {
			return err
		}
		cond := condition(ss.Status.Conditions, operandstatuscontroller.OperandProgressing)
		if cond == nil || cond.Status != operatorv1.ConditionFalse || cond.LastTransitionTime.Time.Before(since.Truncate(time.Second)) {
			return fmt.Errorf("the rollout is not reported done since %s: OperandProgressing %+v", since.Format(time.TimeOnly), cond)
		}
		return nil
	}
}

// TestFaultKillDuringRemoved: the operator is killed while it removes the
// scheduler (managementState Removed). After a restart nothing it owned is
// left but the namespace, the user's ConfigMap is intact, and Managed again
// brings everything back.
func TestFaultKillDuringRemoved(t *testing.T) {
	c := needCluster(t)
	c.faultTearDown(t, "kill during Removed",
		func() {
			c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.ManagementState = operatorv1.Removed })
		},
		nil, nil,
		func() {
			c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.ManagementState = operatorv1.Managed })
		})
}

// TestFaultKillDuringDeletion: the operator is killed while it cleans up a
// deleted SecondaryScheduler (its finalizer). After a restart the CR is gone,
// so is everything the operator owned (cluster-scoped bindings included), and
// the user's ConfigMap is intact; the example applied again rolls out again.
func TestFaultKillDuringDeletion(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	c.faultTearDown(t, "kill during CR deletion",
		func() {
			if err := c.admin.Operator.OperatorV1().SecondarySchedulers().Delete(ctx, crName, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		},
		// Its finalizer removed, once everything it owned is gone.
		[]expectedWrite{{verb: "update", resource: "secondaryschedulers", name: crName}},
		func() error {
			if _, err := c.getCR(ctx); !apierrors.IsNotFound(err) {
				return fmt.Errorf("the CR is still there (%v)", err)
			}
			return nil
		},
		func() { c.applyExample(t, "bin-packing") })
}

// faultTearDown repeats: tearDown, a kill at the operator's first write of
// it, a wait until the operator owns nothing (and gone() says so, when set),
// a check of the user's ConfigMap, then bringBack and a wait until it has
// converged to what it owned before. The expected writes are a delete of
// each object it owned, then last.
func (c *cluster) faultTearDown(t *testing.T, scenario string, tearDown func(), last []expectedWrite, gone func() error, bringBack func()) {
	t.Helper()
	ctx := context.Background()
	owned, user := c.faultBaseline(ctx, t)
	times := &faultTimes{scenario: scenario}
	nothingOwned := c.nothingOwnedErr(t)
	for range faultRepeat(t) {
		expected := append(deletesOf(owned), last...)
		changed := time.Now()
		killed := c.killAtFirstExpectedWrite(t, tearDown, expected, nothingOwned)
		done, converged := times.converge(t, killed, reconcileTimeout, func(ctx context.Context) error {
			if gone != nil {
				if err := gone(); err != nil {
					return err
				}
			}
			return nothingOwned(ctx)
		})
		times.killed(t, c, expected, changed, killed, done)
		if !converged {
			break
		}
		c.userConfigIntact(ctx, t, user)
		bringBack()
		c.waitReconciled(t)
		c.checkOwned(ctx, t, owned)
	}
	times.report(t)
}

// deletesOf are the deletes of owned objects (kind/name).
func deletesOf(owned []string) []expectedWrite {
	ws := make([]expectedWrite, 0, len(owned))
	for _, o := range owned {
		kind, name, _ := strings.Cut(o, "/")
		ws = append(ws, expectedWrite{verb: "delete", resource: strings.ToLower(kind) + "s", name: name})
	}
	return ws
}

// editEachOwned applies the fault baseline, then for each object the operator
// owns (kind/name) makes a hand edit and waits until the check edit returns
// passes and everything has converged, logging the times from the edit under
// scenario. It then checks the operator owns what it did before, and returns
// that and the user's ConfigMap.
func (c *cluster) editEachOwned(t *testing.T, scenario string, edit func(kind, name string) (repaired func() error)) ([]string, *corev1.ConfigMap) {
	t.Helper()
	ctx := context.Background()
	owned, user := c.faultBaseline(ctx, t)
	times := &faultTimes{scenario: scenario}
	for _, obj := range owned {
		kind, name, _ := strings.Cut(obj, "/")
		repaired := edit(kind, name)
		edited := time.Now()
		framework.WaitForWithin(ctx, t, reconcileTimeout, obj+" to be repaired", func() (bool, error) {
			err := repaired()
			return err == nil, err
		})
		c.waitReconciled(t)
		times.add(time.Since(edited))
		t.Logf("%s: repaired and converged %s after the edit", obj, time.Since(edited).Round(time.Millisecond))
	}
	times.report(t)
	c.checkOwned(ctx, t, owned)
	return owned, user
}

// TestFaultHandEdits: what an administrator does by hand to what the operator
// owns is repaired, or reported, and never wedges it:
//
//   - the managed-by label removed from each object it owns (cluster-scoped
//     objects then drop out of its label-filtered caches): the label comes
//     back and everything converges;
//   - a foreign annotation added to the Deployment stays, and its replicas
//     changed by hand are set back;
//   - the operand namespace deleted (with the user's ConfigMap and the
//     operator's own Role in it): the operator creates the namespace again and
//     reports Degraded (it may not grant itself the Role back); once manifests/
//     are applied again (the cluster-version operator does on OpenShift) and
//     the user's ConfigMap too, it converges.
func TestFaultHandEdits(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	owned, _ := c.editEachOwned(t, "managed-by label removed", func(kind, name string) func() error {
		args := []string{"label", strings.ToLower(kind), name, names.ManagedByLabel + "-"}
		if !strings.HasPrefix(kind, "Cluster") {
			args = append(args, "-n", names.OperandNamespace)
		}
		if out, err := c.kubectl(args...); err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		obj := kind + "/" + name
		return func() error {
			if got, _ := c.ownedObjects(ctx, t); !slices.Contains(got, obj) {
				return fmt.Errorf("%s has no managed-by label", obj)
			}
			return nil
		}
	})

	deployments := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace)
	d, err := deployments.Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const foreign = "example.com/owner"
	d.Annotations[foreign] = "platform-team"
	d.Spec.Replicas = ptr.To(int32(3))
	if _, err := deployments.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the Deployment's replicas to be set back, its foreign annotation kept", func() (bool, error) {
		d, err := deployments.Get(ctx, names.OperandName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if d.Annotations[foreign] != "platform-team" {
			t.Fatalf("the operator removed the annotation %s an administrator added", foreign)
		}
		if *d.Spec.Replicas != 1 {
			return false, fmt.Errorf("%d replicas", *d.Spec.Replicas)
		}
		return true, nil
	})
	c.waitReconciled(t)

	nsDeleted := time.Now()
	if err := c.admin.Kube.CoreV1().Namespaces().Delete(ctx, names.OperandNamespace, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitForWithin(ctx, t, 3*time.Minute, "the operator to create the operand namespace again and report what it cannot repair", func() (bool, error) {
		ns, err := c.admin.Kube.CoreV1().Namespaces().Get(ctx, names.OperandNamespace, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if ns.DeletionTimestamp != nil || ns.CreationTimestamp.Time.Before(nsDeleted.Add(-time.Second)) {
			return false, fmt.Errorf("the namespace is the deleted one (terminating: %v)", ns.DeletionTimestamp != nil)
		}
		ss, err := c.getCR(ctx)
		if err != nil {
			return false, err
		}
		// The operator's own Role in the namespace went with it, and the
		// operator may not grant itself one: Degraded says so.
		deg := condition(ss.Status.Conditions, "Degraded")
		if deg == nil || deg.Status != operatorv1.ConditionTrue || !strings.Contains(deg.Message, "forbidden") {
			return false, fmt.Errorf("Degraded: %+v", deg)
		}
		t.Logf("after %s: namespace created again; Degraded: %s", time.Since(nsDeleted).Round(time.Millisecond), deg.Message)
		return true, nil
	})
	// What the cluster-version operator does on OpenShift, and an
	// administrator on Kubernetes: apply manifests/ again (the operator's Role),
	// then the user's own objects.
	if out, err := c.kubectl("apply", "-f", repoPath(t, "manifests")+"/"); err != nil {
		t.Fatalf("kubectl apply -f manifests/: %v\n%s", err, out)
	}
	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)
	c.checkOwned(ctx, t, owned)
	t.Logf("FAULT operand namespace deleted: converged %s after the deletion (manifests/ and the example applied again)", time.Since(nsDeleted).Round(time.Millisecond))
}

// TestFaultKillWhileCreatingSimulators: the operator is killed while 200
// Simulators are being created. After a restart each has exactly one Pod,
// Service and NetworkPolicy, and all are Available; no Pod is left without its
// Simulator. kwok leaves Simulator Pods alone, so a stand-in kubelet marks
// them ready.
func TestFaultKillWhileCreatingSimulators(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	const n = 200
	times := &faultTimes{scenario: fmt.Sprintf("kill while %d Simulators are created", n)}
	for range faultRepeat(t) {
		ns := c.createNamespace(t, "fault-simulators")
		framework.RunInBackground(t, func(ctx context.Context) { c.markSimulatorPodsReady(ctx, ns) })
		t.Cleanup(func() {
			if !t.Failed() {
				return
			}
			out, _ := c.kubectl("get", "simulators", "-n", ns, "-o", "custom-columns=NAME:.metadata.name,PHASE:.status.phase,OBSERVED:.status.observedGeneration,MESSAGE:.status.message")
			t.Logf("Simulators of %s:\n%s", ns, grepLines(out, "Creating|Pending|NAME"))
			out, _ = c.kubectl("get", "pods", "-n", ns, "-o", "wide")
			t.Logf("Pods of %s (not Running):\n%s", ns, grepLines(out, "Pending|NAME|ContainerCreating"))
		})
		sims := c.admin.Operator.SimulationV1alpha1().Simulators(ns)
		created := make(chan error, 1)
		go func() {
			created <- forEachParallel(n, 8, func(i int) error {
				_, err := sims.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sim-%03d", i)}}, metav1.CreateOptions{})
				return err
			})
		}()
		allAvailable := func(ctx context.Context) error {
			available, err := c.availableSimulators(ctx, ns)
			if err == nil && available != n {
				err = fmt.Errorf("%d of %d Available", available, n)
			}
			return err
		}
		expected := []expectedWrite{
			{verb: "create", resource: "pods", count: n},
			{verb: "create", resource: "services", count: n},
			{verb: "create", resource: "networkpolicies", count: n},
		}
		changed := time.Now()
		killed := c.killAfter(t, time.Duration(rand.Int64N(int64(3*time.Second))), allAvailable)
		if err := <-created; err != nil {
			t.Fatal(err)
		}
		done, converged := times.converge(t, killed, 5*time.Minute, allAvailable)
		times.killed(t, c, expected, changed, killed, done)
		if !converged {
			break
		}
		c.checkOnePerSimulator(ctx, t, ns, n)
		// The next round's Pods need the room: the three kwok nodes take 110
		// pods each.
		if err := c.admin.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		framework.WaitForWithin(ctx, t, 3*time.Minute, "the round's namespace to be gone", func() (bool, error) {
			_, err := c.admin.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
	}
	times.report(t)
}

// availableSimulators counts the Simulators of ns that are Available.
func (c *cluster) availableSimulators(ctx context.Context, ns string) (int, error) {
	list, err := c.admin.Operator.SimulationV1alpha1().Simulators(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	available := 0
	for _, s := range list.Items {
		if s.Status.Phase == simv1alpha1.SimulatorAvailable {
			available++
		}
	}
	return available, nil
}

// checkOnePerSimulator checks that each of the n Simulators in ns owns exactly
// one live Pod, and that Services and NetworkPolicies number n.
func (c *cluster) checkOnePerSimulator(ctx context.Context, t *testing.T, ns string, n int) {
	t.Helper()
	pods, err := c.admin.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	perSimulator := map[string]int{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		owner := ""
		for _, ref := range p.OwnerReferences {
			if ref.Kind == "Simulator" {
				owner = ref.Name
			}
		}
		if owner == "" {
			t.Errorf("pod %s has no Simulator", p.Name)
		}
		perSimulator[owner]++
	}
	for sim, count := range perSimulator {
		if count != 1 {
			t.Errorf("Simulator %s has %d Pods", sim, count)
		}
	}
	if len(perSimulator) != n {
		t.Errorf("%d Simulators have a Pod, want %d", len(perSimulator), n)
	}
	svcs, err := c.admin.Kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nps, err := c.admin.Kube.NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(svcs.Items) != n || len(nps.Items) != n {
		t.Errorf("%d Services and %d NetworkPolicies, want %d each", len(svcs.Items), len(nps.Items), n)
	}
}

// markSimulatorPodsReady plays a kubelet that starts every container at once
// for the Simulator Pods of ns, until ctx ends.
func (c *cluster) markSimulatorPodsReady(ctx context.Context, ns string) {
	pods := c.admin.Kube.CoreV1().Pods(ns)
	for ctx.Err() == nil {
		list, err := pods.List(ctx, metav1.ListOptions{})
		if err == nil {
			for i := range list.Items {
				p := &list.Items[i]
				if p.Spec.NodeName == "" || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodRunning {
					continue
				}
				now := metav1.Now()
				p.Status.Phase = corev1.PodRunning
				p.Status.StartTime = &now
				p.Status.ContainerStatuses = nil
				for _, ctr := range p.Spec.Containers {
					p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: ctr.Name, Image: ctr.Image,
						Ready: true, Started: ptr.To(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}})
				}
				p.Status.Conditions = nil
				for _, ct := range []corev1.PodConditionType{corev1.PodScheduled, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady} {
					p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: ct, Status: corev1.ConditionTrue, LastTransitionTime: now})
				}
				_, _ = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// forEachParallel runs fn(0..n-1) on workers goroutines and returns the first
// error.
func forEachParallel(n, workers int, fn func(i int) error) error {
	next := make(chan int)
	errs := make(chan error, workers)
	for range workers {
		go func() {
			var first error
			for i := range next {
				if err := fn(i); err != nil && first == nil {
					first = err
				}
			}
			errs <- first
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// The operator's leader-election lease.
const operatorLeaseNamespace, operatorLeaseName = "openshift-secondary-scheduler-operator", "secondary-scheduler-operator-lock"

// leaseHolder is the identity holding the operator's lease.
func (c *cluster) leaseHolder(ctx context.Context) (string, error) {
	lease, err := c.admin.Kube.CoordinationV1().Leases(operatorLeaseNamespace).Get(ctx, operatorLeaseName, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return ptr.Deref(lease.Spec.HolderIdentity, ""), nil
}

// TestFaultTwoReplicas: a second operator process beside the first: exactly
// one leads, the other sends no write while it waits (counted by the API
// server's audit log, by the second's own token); killing the leader hands
// over within the lease settings (measured), and the new leader reconciles
// the next change.
func TestFaultTwoReplicas(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	c.faultBaseline(ctx, t)
	leader, err := c.leaseHolder(ctx)
	if err != nil || leader == "" {
		t.Fatalf("the lease holder: %q, %v", leader, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	second := l.Addr().String()
	l.Close()
	secondKubeconfig := c.operatorKubeconfig(t, "operator-second")
	secondCredential := kubeconfigCredentialID(t, secondKubeconfig)
	launched := time.Now()
	secondPID := c.launchOperator(t, secondKubeconfig, second, c.operator.log+".second")
	t.Cleanup(func() {
		// Whatever happened, the stack ends with one operator on the
		// script's address, as it started.
		_ = syscall.Kill(secondPID, syscall.SIGKILL)
		if c.operatorAlive(t) {
			return
		}
		c.startOperator(t)
	})

	// The second waits: the lease stays with the first, and over three retry
	// periods (2 s each here) it writes nothing, not even to the lease.
	time.Sleep(6 * time.Second)
	if holder, err := c.leaseHolder(ctx); err != nil || holder != leader {
		t.Fatalf("the lease went from %q to %q (%v) while its holder ran", leader, holder, err)
	}
	var fromSecond, writes []auditv1.Event
	for _, ev := range c.operatorRequests(t, launched) {
		if credentialID(ev) != secondCredential {
			continue
		}
		fromSecond = append(fromSecond, ev)
		if isWrite(ev) {
			writes = append(writes, ev)
		}
	}
	if len(fromSecond) == 0 {
		t.Fatalf("the audit log holds no request of the second replica (credential %s): the count below would prove nothing", secondCredential)
	}
	if len(writes) != 0 {
		t.Fatalf("the replica that does not lead sent %d writes: %s", len(writes), requestsByKind(writes))
	}
	t.Logf("FAULT second replica while it waited 6 s, as the API server's audit log counts it: %s", requestsByKind(fromSecond))

	c.killOperator(t)
	killed := time.Now()
	var handover time.Duration
	framework.WaitForWithin(ctx, t, time.Minute, "the second replica to take the lease", func() (bool, error) {
		holder, err := c.leaseHolder(ctx)
		if err != nil || holder == leader {
			return false, fmt.Errorf("holder %q (%v)", holder, err)
		}
		handover = time.Since(killed)
		return true, nil
	})
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.LogLevel = operatorv1.Debug })
	c.waitReconciled(t)
	t.Logf("FAULT leader killed with a second replica: lease taken over %s after the kill (lease 15 s, retry 2 s); the next change reconciled %s after the kill",
		handover.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.LogLevel = operatorv1.Normal })

	// Back to one operator on the script's address.
	killProcess(t, secondPID)
	c.startOperator(t)
	c.waitReconciled(t)
}

// rollbackWrites are the operator's writes of a configuration the scheduler
// refuses: its ConfigMap, the Deployment taken back (the last patch of it),
// and the status that records the failed rollout.
var rollbackWrites = []expectedWrite{
	{verb: "create", resource: "configmaps"},
	{verb: "patch", resource: "deployments", name: names.OperandName},
	{verb: "patch", resource: "secondaryschedulers/status", name: crName},
}

// TestFaultKillDuringRollback: a configuration the real kube-scheduler refuses
// is written (the harness runs the scheduler, so its pod crash-loops). The
// operator is frozen (SIGSTOP) as soon as the audit log shows its patch of
// the Deployment to the bad configuration, and killed once the pod reports
// the crash: after the bad rollout was written and its crash reported,
// before the operator could take it back (it reacts to the crash within
// milliseconds, faster than any poll). After a restart the Deployment is
// back on the last known good configuration, status.failedRollout names the
// bad one, one scheduler pod runs, and the operator owns what it did before.
func TestFaultKillDuringRollback(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	owned, _ := c.faultBaseline(ctx, t)
	c.playKubelet(t)
	good := c.waitLastKnownGood(t)
	original := c.userConfig(t)
	t.Cleanup(func() { c.setUserConfig(t, original) })
	times := &faultTimes{scenario: "kill during a rollback"}
	for i := range faultRepeat(t) {
		bad := withUnknownFilterPlugin(t, original, fmt.Sprintf("FaultPlugin%d", i))
		badHash := c.renderedConfigHash(t, bad)
		rolledBack := c.rolledBackFrom(good.ConfigHash, badHash)
		changed := time.Now()
		tail := c.tailAudit(t)
		c.setUserConfig(t, bad)
		rolled := c.waitForWrite(t, tail, rollbackWrites[1:2], rolledBack)
		c.freezeOperator(t)
		seen := c.waitForCrash(t, badHash, rolledBack)
		c.killOperator(t)
		killed := time.Now()
		t.Logf("froze the operator after %s, killed it at %s", rolled, seen)
		c.startOperator(t)
		done, converged := times.converge(t, killed, reconcileTimeout, rolledBack)
		times.killed(t, c, rollbackWrites, changed, killed, done)
		if !converged {
			break
		}
		c.checkOneSchedulerPod(ctx, t)
		c.checkOwned(ctx, t, owned)
	}
	c.setUserConfig(t, original)
	c.waitReconciled(t)
	times.report(t)
}

// rolledBackFrom fails until the Deployment is back on the good
// configuration with the bad one recorded as failed.
func (c *cluster) rolledBackFrom(goodHash, badHash string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		d, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if h := d.Spec.Template.Annotations[names.ConfigHashAnnotation]; h != goodHash {
			return fmt.Errorf("template config %.12s, want the good %.12s", h, goodHash)
		}
		ss, err := c.getCR(ctx)
		if err != nil {
			return err
		}
		if f := ss.Status.FailedRollout; f == nil || f.ConfigHash != badHash {
			return fmt.Errorf("failedRollout %+v, want config %.12s", f, badHash)
		}
		return nil
	}
}

// waitForCrash waits until a scheduler pod of the configuration badHash
// reports a container that exited with an error (or, under the misplaced
// trigger, until rolledBack passes), and says what it saw.
func (c *cluster) waitForCrash(t *testing.T, badHash string, rolledBack func(ctx context.Context) error) string {
	t.Helper()
	if killAfterConverged() {
		return c.waitForWrite(t, nil, nil, rolledBack)
	}
	ctx := context.Background()
	for deadline := time.Now().Add(reconcileTimeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if seen := c.crashOf(ctx, badHash); seen != "" {
			return seen
		}
		if rolledBack(ctx) == nil {
			return "no crash seen before the rollout was taken back (the kill comes after it)"
		}
	}
	t.Fatalf("no scheduler pod of config %.12s reported a crash, and the rollout was not taken back, within %s", badHash, reconcileTimeout)
	return ""
}

// crashOf names a container of a scheduler pod of config badHash that
// exited with an error, or says "".
func (c *cluster) crashOf(ctx context.Context, badHash string) string {
	pods, err := c.admin.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=" + names.OperandName})
	if err != nil {
		return ""
	}
	for _, p := range pods.Items {
		if p.Annotations[names.ConfigHashAnnotation] != badHash {
			continue
		}
		for _, cs := range p.Status.ContainerStatuses {
			for _, st := range []corev1.ContainerState{cs.State, cs.LastTerminationState} {
				if st.Terminated != nil && st.Terminated.ExitCode != 0 {
					return fmt.Sprintf("the crash of pod %s container %s (exit code %d)", p.Name, cs.Name, st.Terminated.ExitCode)
				}
			}
		}
	}
	return ""
}

// logFaultState logs, in a few lines, what a failed fault test left: the
// last errors of the operator and of the controllers it relies on, the
// operator's view (its conditions), then the API server's (the operand's
// ReplicaSets and pods, and what is not reconciled yet). The API server's
// view comes last, so that the tail of a failed run tells whether the
// rollout is stuck or the operator has not seen it end.
func (c *cluster) logFaultState(t *testing.T) {
	if data, err := os.ReadFile(c.operator.log); err == nil {
		t.Logf("the operator's last errors:\n%s", lastLinesWith(string(data), "E", 5))
	}
	if data, err := os.ReadFile(filepath.Join(c.controlPlaneDir, "logs", "kube-controller-manager.log")); err == nil {
		t.Logf("kube-controller-manager's last errors:\n%s", lastLinesWith(string(data), "E", 3))
	}
	if data, err := os.ReadFile(filepath.Join(c.controlPlaneDir, "logs", "kwok.log")); err == nil {
		t.Logf("kwok's last errors:\n%s", lastLines(string(data), 3, func(line string) bool { return strings.Contains(line, `"level":"ERROR"`) }))
	}
	out, _ := c.kubectl("get", "lease", operatorLeaseName, "-n", operatorLeaseNamespace,
		"-o", "jsonpath=holder {.spec.holderIdentity}, renewed {.spec.renewTime}, transitions {.spec.leaseTransitions}")
	t.Logf("operator lease: %s", out)
	out, _ = c.kubectl("get", "secondaryscheduler", crName,
		"-o", `jsonpath={range .status.conditions[?(@.status!="False")]}{.type}={.status} {.reason}: {.message}{"\n"}{end}`)
	t.Logf("SecondaryScheduler conditions not False (the operator's view):\n%s", out)
	out, _ = c.kubectl("get", "replicasets", "-n", names.OperandNamespace, "-o",
		`custom-columns=REPLICASET:.metadata.name,REVISION:.metadata.annotations.deployment\.kubernetes\.io/revision,WANT:.spec.replicas,HAS:.status.replicas,READY:.status.readyReplicas,TERMINATING:.status.terminatingReplicas`)
	t.Logf("operand ReplicaSets:\n%s", out)
	out, _ = c.kubectl("get", "pods", "-n", names.OperandNamespace, "-o",
		`custom-columns=POD:.metadata.name,NODE:.spec.nodeName,PHASE:.status.phase,READY:.status.conditions[?(@.type=="Ready")].status,DELETING:.metadata.deletionTimestamp`)
	t.Logf("operand pods:\n%s", out)
	t.Logf("reconciled now: %v", c.reconciledErr(context.Background()))
}

// lastLinesWith is the last n lines of log that start with prefix (klog's
// severity letter), joined.
func lastLinesWith(log, prefix string, n int) string {
	return lastLines(log, n, func(line string) bool { return strings.HasPrefix(line, prefix) })
}

// lastLines is the last n lines of log that match, joined.
func lastLines(log string, n int, match func(string) bool) string {
	var found []string
	for _, line := range strings.Split(log, "\n") {
		if match(line) {
			found = append(found, line)
		}
	}
	return strings.Join(found[max(0, len(found)-n):], "\n")
}
