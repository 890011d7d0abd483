package e2e

// Trials through the operator of what is not the configuration (arguments,
// command), of a current arm that decides nothing, and of an operator killed
// while a trial runs.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// featureGates is an argument kube-scheduler v1.37 takes and that changes
// nothing it does: ContextualLogging is on by default.
const featureGates = "--feature-gates=ContextualLogging=true"

// TestTrialArgsAndCommandThroughTheOperator: under strategy Trial, a change of
// spec.schedulerContainer.args alone (the configuration stays) is held for a
// trial, and the trial's candidate scheduler runs with the argument, the
// current one without it; the Deployment keeps its generation until the
// trial allows the change. A change of command while a trial runs stops
// that trial (its Pods, Secrets and NetworkPolicies go) and starts one of
// the new key, whose candidate Pod runs the new command.
func TestTrialArgsAndCommandThroughTheOperator(t *testing.T) {
	c := needCluster(t)
	c.trialStack(t, "trial-inputs", 180)
	// Runs first: the next test starts from a scheduler without them.
	t.Cleanup(func() {
		c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.Rollout, s.SchedulerContainer = nil, nil })
		c.waitReconciled(t)
	})

	t.Run("an argument alone is tried and reaches the candidate", func(t *testing.T) {
		before := c.operandGeneration(t)
		c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{Args: []string{featureGates}}
		})
		req := c.waitTrialRequest(t, "the args "+featureGates, func(r *secondaryschedulerv1.TrialRequest) bool {
			return slices.Contains(r.Candidate.Args, featureGates)
		})
		started := c.trialStarted(t, req.Key)
		if req.Candidate.ConfigHash != req.Current.ConfigHash || slices.Contains(req.Current.Args, featureGates) {
			t.Errorf("trialRequest %+v: want both arms of one configuration, the argument only in the candidate", req)
		}
		candidate := c.trials.waitArm(t, started, "candidate")
		if !slices.Contains(candidate.Args, featureGates) {
			t.Errorf("the candidate's trial scheduler ran with %q, without %s", candidate.Args, featureGates)
		}
		if current := c.trials.waitArm(t, started, "current"); slices.Contains(current.Args, featureGates) {
			t.Errorf("the current arm's trial scheduler ran with %q, which holds the candidate's %s", current.Args, featureGates)
		}
		if after := c.operandGeneration(t); after != before {
			t.Errorf("the Deployment went from generation %d to %d while the change was tried", before, after)
		}
		result := c.waitTrialVerdictOf(t, req.Key, trialVerdictTimeout)
		if result.Verdict != secondaryschedulerv1.TrialAllowed {
			t.Fatalf("lastTrial %+v, want Allowed: the argument changes nothing the scheduler decides", result)
		}
		if args := schedulerContainer(t, c.waitReconciled(t)).Args; !slices.Contains(args, featureGates) {
			t.Errorf("the allowed change did not roll out: the scheduler container's args are %q", args)
		}
		c.checkNoTrialObjects(t)
	})

	t.Run("a command changed while a trial runs starts a trial of the new key", func(t *testing.T) {
		// The operator's default command is kube-scheduler: each of these is a change.
		first := c.changeCommand(t, "/usr/bin/kube-scheduler")
		// Stopped, it cannot decide: the trial runs until the next change.
		c.trials.waitArms(t, c.trialStarted(t, first.Key)).stop(t)
		old := c.trialObjects(t)
		before := c.operandGeneration(t)
		second := c.changeCommand(t, "/usr/local/bin/kube-scheduler")
		if second.Key == first.Key {
			t.Fatalf("the command changed and the trial key did not: %s", first.Key)
		}
		c.waitTrialObjectsGone(t, old, time.Minute)
		candidate := c.trials.waitArmNotOf(t, c.trialStarted(t, second.Key), "candidate", old)
		if cmd := candidate.Pod.Scheduler.Command; len(cmd) == 0 || cmd[0] != "/usr/local/bin/kube-scheduler" {
			t.Errorf("the new trial's candidate Pod runs command %q, want the new one", cmd)
		}
		result := c.waitTrialVerdictOf(t, second.Key, trialVerdictTimeout)
		if result.Verdict != secondaryschedulerv1.TrialAllowed {
			t.Fatalf("lastTrial %+v, want Allowed", result)
		}
		after := c.waitReconciled(t)
		if cmd := schedulerContainer(t, after).Command; after.Generation == before || !slices.Equal(cmd, []string{"/usr/local/bin/kube-scheduler"}) {
			t.Errorf("the allowed command did not roll out: generation %d (was %d), command %q", after.Generation, before, cmd)
		}
		c.checkNoTrialObjects(t)
	})
}

// TestTrialUndecidedCurrentArmIsInconclusive: a change whose current arm
// decides nothing (its trial scheduler is stopped) is Inconclusive, not
// Allowed, naming an undecided pod; the change is held (TrialBlocked,
// reason TrialInconclusive, the Deployment's generation kept), the retry is
// counted, and no trial object is left.
func TestTrialUndecidedCurrentArmIsInconclusive(t *testing.T) {
	c := needCluster(t)
	// Room for the arms' own bound (trial.DefaultTimeout) after they start.
	dir := c.trialStack(t, "trial-undecided", 300)
	before := c.operandGeneration(t)
	c.applyFile(t, writeTrialInput(t, dir, "undecided-most", "MostAllocated", ""))
	req := c.waitTrialRequest(t, "MostAllocated", func(r *secondaryschedulerv1.TrialRequest) bool { return r.Candidate.ConfigHash != r.Current.ConfigHash })
	c.trials.waitArm(t, c.trialStarted(t, req.Key), "current").stop(t)
	result := c.waitTrialVerdictOf(t, req.Key, 6*time.Minute)
	if result.Verdict != secondaryschedulerv1.TrialInconclusive || result.Counts == nil || result.Counts.Undecided == 0 ||
		!strings.Contains(result.Message, "no decision within") {
		t.Fatalf("lastTrial %+v (counts %+v), want Inconclusive naming the units the current arm left undecided", result, result.Counts)
	}
	if result.FailedAttempts != 1 || !strings.Contains(result.Message, "It is tried again at") {
		t.Errorf("lastTrial counts %d failed attempts and says %q: want the first, with when it is tried again", result.FailedAttempts, result.Message)
	}
	c.waitCondition(t, targetconfigcontroller.TrialBlockedCondition, operatorv1.ConditionTrue, "TrialInconclusive", "")
	if after := c.operandGeneration(t); after != before {
		t.Errorf("the Deployment went from generation %d to %d on an inconclusive trial", before, after)
	}
	c.checkNoTrialObjects(t)
}

// TestFaultKillDuringTrial: the operator is killed while a trial runs
// (status.lastTrial says Running when it dies). The trial controller of the
// operator started again deletes every trial object no trial of its own
// holds before it starts one: within a minute none of the killed trial's
// Pods, Secrets and NetworkPolicies is left, a new trial (another trial
// label) of the same key runs to its verdict, and then no trial object is
// left. The Deployment keeps its generation until the verdict.
func TestFaultKillDuringTrial(t *testing.T) {
	c := needCluster(t)
	dir := c.trialStack(t, "trial-killed", 180)
	t.Cleanup(func() {
		if !c.operatorAlive(t) {
			c.startOperator(t)
		}
	})
	before := c.operandGeneration(t)
	c.applyFile(t, writeTrialInput(t, dir, "killed-most", "MostAllocated", ""))
	req := c.waitTrialRequest(t, "MostAllocated", func(r *secondaryschedulerv1.TrialRequest) bool { return r.Candidate.ConfigHash != r.Current.ConfigHash })
	killedArm := c.trials.waitArms(t, c.trialStarted(t, req.Key))
	// Stopped, it cannot decide: the trial still runs when the kill lands.
	killedArm.stop(t)
	old := c.trialObjects(t)
	c.killOperator(t)
	ss, err := c.getCR(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if last := ss.Status.LastTrial; last == nil || last.Key != req.Key || last.Verdict != secondaryschedulerv1.TrialRunning {
		t.Fatalf("the operator was killed with lastTrial %+v: not mid-trial of %s", last, req.Key)
	}
	restarted := time.Now()
	c.startOperator(t)
	c.waitTrialObjectsGone(t, old, time.Minute)
	t.Logf("the killed trial's %d objects were gone %s after the operator started again", len(old), time.Since(restarted).Round(100*time.Millisecond))
	// A trial of the operator started again, on Pods of its own.
	c.trials.waitArm(t, restarted, "candidate")
	if after := c.operandGeneration(t); after != before {
		t.Errorf("the Deployment went from generation %d to %d before the trial's verdict", before, after)
	}
	result := c.waitTrialVerdictOf(t, req.Key, trialVerdictTimeout)
	if result.Verdict != secondaryschedulerv1.TrialAllowed || result.StartedAt.Time.Before(restarted.Truncate(time.Second)) {
		t.Fatalf("lastTrial %+v, want Allowed by a trial started after the restart (%s)", result, restarted.Format(time.RFC3339))
	}
	c.checkNoTrialObjects(t)
}

// trialStack rolls out LeastAllocated scoring, sets strategy Trial with a
// trial timeout of timeoutSeconds, and creates the replay set (two pods of
// ours bound on a node, four pending) in a namespace of its own. It returns
// the test's directory.
func (c *cluster) trialStack(t *testing.T, prefix string, timeoutSeconds int32) string {
	t.Helper()
	dir := c.testDir(t, prefix)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	c.applyFile(t, writeTrialInput(t, dir, prefix+"-least", "LeastAllocated", ""))
	c.waitReconciled(t)
	c.useTrialStrategy(t)
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.Rollout.Trial.TimeoutSeconds = ptr.To(timeoutSeconds)
	})
	nodes, err := c.admin.Kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) < 2 {
		t.Fatalf("the stack's nodes: %v (%d)", err, len(nodes.Items))
	}
	c.createReplaySet(t, c.createNamespace(t, "e2e-"+prefix), nodes.Items[0].Name)
	return dir
}

// changeCommand sets spec.schedulerContainer.command to command alone and
// waits for the trial request of it.
func (c *cluster) changeCommand(t *testing.T, command string) *secondaryschedulerv1.TrialRequest {
	t.Helper()
	c.updateSpec(t, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		if s.SchedulerContainer == nil {
			s.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{}
		}
		s.SchedulerContainer.Command = []string{command}
	})
	return c.waitTrialRequest(t, "command "+command, func(r *secondaryschedulerv1.TrialRequest) bool {
		return slices.Equal(r.Candidate.Command, []string{command})
	})
}

// waitTrialRequest waits for status.trialRequest to be what want says.
func (c *cluster) waitTrialRequest(t *testing.T, what string, want func(*secondaryschedulerv1.TrialRequest) bool) *secondaryschedulerv1.TrialRequest {
	t.Helper()
	var req *secondaryschedulerv1.TrialRequest
	framework.WaitFor(context.Background(), t, "a trial request of "+what, func() (bool, error) {
		ss, err := c.getCR(context.Background())
		if err != nil {
			return false, err
		}
		req = ss.Status.TrialRequest
		return req != nil && want(req), nil
	})
	return req
}

// waitTrialVerdictOf waits for the verdict of the request of key.
func (c *cluster) waitTrialVerdictOf(t *testing.T, key string, timeout time.Duration) *secondaryschedulerv1.TrialResult {
	t.Helper()
	var result *secondaryschedulerv1.TrialResult
	framework.WaitForWithin(context.Background(), t, timeout, "the verdict of trial request "+key, func() (bool, error) {
		ss, err := c.getCR(context.Background())
		if err != nil {
			return false, err
		}
		result = ss.Status.LastTrial
		return result != nil && result.Key == key && result.Verdict != secondaryschedulerv1.TrialRunning, nil
	})
	t.Logf("lastTrial: %s %s (counts %+v)", result.Verdict, result.Message, result.Counts)
	return result
}

// trialStarted waits for the trial of key to run and returns when it started
// (status.lastTrial.startedAt, to the second).
func (c *cluster) trialStarted(t *testing.T, key string) time.Time {
	t.Helper()
	var started time.Time
	framework.WaitFor(context.Background(), t, "the trial of request "+key+" to run", func() (bool, error) {
		ss, err := c.getCR(context.Background())
		if err != nil {
			return false, err
		}
		last := ss.Status.LastTrial
		if last == nil || last.Key != key || last.Verdict != secondaryschedulerv1.TrialRunning {
			return false, nil
		}
		started = last.StartedAt.Time
		return true, nil
	})
	return started
}

// waitArm waits for the harness to start the trial scheduler of arm of a
// trial that started at since (to the second) or later: an earlier trial's
// are gone before a trial starts.
func (h *trialHarness) waitArm(t *testing.T, since time.Time, arm string) *trialScheduler {
	t.Helper()
	return h.waitArmNotOf(t, since, arm, nil)
}

// waitArmNotOf is waitArm for a trial that started in the same second as
// the one before it, whose Pods (by UID, as trialObjects lists them) are
// not it.
func (h *trialHarness) waitArmNotOf(t *testing.T, since time.Time, arm string, earlier map[types.UID]string) *trialScheduler {
	t.Helper()
	var found *operandrunner.TrialScheduler
	framework.WaitForWithin(context.Background(), t, trialVerdictTimeout, fmt.Sprintf("the harness to start a %s trial scheduler (see %s)", arm, h.log),
		func() (bool, error) {
			for _, s := range h.startedList() {
				if _, old := earlier[s.Pod.UID]; s.Pod.Arm == arm && !s.StartedAt.Before(since) && !old {
					found = s
				}
			}
			return found != nil, nil
		})
	return &trialScheduler{found}
}

// waitArms waits for the three arms' trial schedulers of a trial that
// started at since, and returns the candidate.
func (h *trialHarness) waitArms(t *testing.T, since time.Time) *trialScheduler {
	t.Helper()
	h.waitArm(t, since, "current")
	h.waitArm(t, since, "rerun")
	return h.waitArm(t, since, "candidate")
}

// trialScheduler is a trial scheduler the harness runs.
type trialScheduler struct{ *operandrunner.TrialScheduler }

// stop stops the scheduler's process (SIGSTOP): it runs and decides
// nothing, as a hung scheduler; the harness kills it with its Pod.
func (s *trialScheduler) stop(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(s.PID(), syscall.SIGSTOP); err != nil {
		t.Fatalf("stopping the %s trial scheduler (pid %d): %v", s.Pod.Arm, s.PID(), err)
	}
}

// trialObjects are the UIDs of the trial objects that exist (Pods, Secrets,
// NetworkPolicies and ConfigMaps labelled as trial objects), each with its
// trial's label.
func (c *cluster) trialObjects(t *testing.T) map[types.UID]string {
	t.Helper()
	ctx, kube, ns := context.Background(), c.admin.Kube, names.OperandNamespace
	opts := metav1.ListOptions{LabelSelector: podruntime.Selector().String()}
	out := map[types.UID]string{}
	add := func(o metav1.Object) { out[o.GetUID()] = o.GetLabels()[podruntime.TrialLabel] }
	pods, err := kube.CoreV1().Pods(ns).List(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pods.Items {
		add(&pods.Items[i])
	}
	secrets, err := kube.CoreV1().Secrets(ns).List(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range secrets.Items {
		add(&secrets.Items[i])
	}
	policies, err := kube.NetworkingV1().NetworkPolicies(ns).List(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range policies.Items {
		add(&policies.Items[i])
	}
	configMaps, err := kube.CoreV1().ConfigMaps(ns).List(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range configMaps.Items {
		add(&configMaps.Items[i])
	}
	return out
}

// waitTrialObjectsGone waits within timeout for none of the trial objects
// old to exist.
func (c *cluster) waitTrialObjectsGone(t *testing.T, old map[types.UID]string, timeout time.Duration) {
	t.Helper()
	framework.WaitForWithin(context.Background(), t, timeout, fmt.Sprintf("the %d objects of the stopped trial to be gone", len(old)), func() (bool, error) {
		for uid := range c.trialObjects(t) {
			if _, ok := old[uid]; ok {
				return false, nil
			}
		}
		return true, nil
	})
}

// schedulerContainer is the scheduler container of d.
func schedulerContainer(t *testing.T, d *appsv1.Deployment) *corev1.Container {
	t.Helper()
	for i, c := range d.Spec.Template.Spec.Containers {
		if c.Name == secondaryschedulerv1.SchedulerContainerName {
			return &d.Spec.Template.Spec.Containers[i]
		}
	}
	t.Fatalf("Deployment %s/%s has no container %s", d.Namespace, d.Name, secondaryschedulerv1.SchedulerContainerName)
	return nil
}

// TestTrialSwappedBaselineFails: while a blocked change is held, the running
// configuration's ConfigMap is swapped for one of the same name, label,
// annotations and immutability whose data places nothing (a writer of
// ConfigMaps in the operand namespace making every change look harmless).
// The trial of the next change is Failed, naming that ConfigMap, and the
// change is not rolled out: the Deployment keeps its generation.
func TestTrialSwappedBaselineFails(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	dir := c.trialStack(t, "trial-swapped", 180)
	before := c.operandGeneration(t)
	live := c.runningConfigMap(t)

	c.applyFile(t, writeTrialInput(t, dir, "swapped-nowhere", "LeastAllocated", "e2e.trial/no-such-label"))
	if held := c.waitTrialVerdict(t); held.Verdict != secondaryschedulerv1.TrialBlocked {
		t.Fatalf("lastTrial %+v, want the first change Blocked (held while the baseline is swapped)", held)
	}

	// The swap: the held change's rendered configuration, which places
	// nothing, under the running configuration's name.
	held := c.configMapNamed(t, names.ConfigMapNameFor(c.lastTrialHash(t)))
	swapped := live.DeepCopy()
	swapped.ObjectMeta = metav1.ObjectMeta{Name: live.Name, Namespace: live.Namespace, Labels: live.Labels, Annotations: live.Annotations}
	swapped.Data = held.Data
	c.replaceConfigMap(t, live, swapped)
	t.Cleanup(func() {
		restored := live.DeepCopy()
		restored.ObjectMeta = metav1.ObjectMeta{Name: live.Name, Namespace: live.Namespace, Labels: live.Labels, Annotations: live.Annotations}
		current, err := c.admin.Kube.CoreV1().ConfigMaps(live.Namespace).Get(ctx, live.Name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("restoring ConfigMap %s: %v", live.Name, err)
			return
		}
		c.replaceConfigMap(t, current, restored)
	})

	c.applyFile(t, writeTrialInput(t, dir, "swapped-most", "MostAllocated", ""))
	result := c.waitTrialVerdict(t)
	if result.Verdict != secondaryschedulerv1.TrialFailed || !strings.Contains(result.Message, live.Name) ||
		!strings.Contains(result.Message, "not the one the operator wrote") {
		t.Fatalf("lastTrial %+v, want Failed naming the swapped ConfigMap %s", result, live.Name)
	}
	c.waitCondition(t, targetconfigcontroller.TrialBlockedCondition, operatorv1.ConditionTrue, "TrialFailed", live.Name)
	if after := c.operandGeneration(t); after != before {
		t.Errorf("the Deployment went from generation %d to %d with a swapped baseline", before, after)
	}
	c.checkNoTrialObjects(t)
}

// runningConfigMap is the config ConfigMap the scheduler Deployment mounts.
func (c *cluster) runningConfigMap(t *testing.T) *corev1.ConfigMap {
	t.Helper()
	ctx := context.Background()
	d, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c.configMapNamed(t, names.ConfigMapNameFor(d.Spec.Template.Annotations[names.ConfigHashAnnotation]))
}

// configMapNamed is ConfigMap name of the operand namespace.
func (c *cluster) configMapNamed(t *testing.T, name string) *corev1.ConfigMap {
	t.Helper()
	cm, err := c.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ConfigMap %s: %v", name, err)
	}
	return cm
}

// lastTrialHash is the configuration hash status.lastTrial was tried with.
func (c *cluster) lastTrialHash(t *testing.T) string {
	t.Helper()
	ss, err := c.getCR(context.Background())
	if err != nil || ss.Status.LastTrial == nil {
		t.Fatalf("status.lastTrial: %v", err)
	}
	return ss.Status.LastTrial.ConfigHash
}

// replaceConfigMap deletes old (by UID) and creates replacement in its place:
// an immutable ConfigMap cannot be updated.
func (c *cluster) replaceConfigMap(t *testing.T, old, replacement *corev1.ConfigMap) {
	t.Helper()
	ctx, client := context.Background(), c.admin.Kube.CoreV1().ConfigMaps(old.Namespace)
	if err := client.Delete(ctx, old.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &old.UID}}); err != nil {
		t.Fatalf("deleting ConfigMap %s: %v", old.Name, err)
	}
	replacement.Immutable = ptr.To(true)
	if _, err := client.Create(ctx, replacement, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating ConfigMap %s: %v", replacement.Name, err)
	}
}
