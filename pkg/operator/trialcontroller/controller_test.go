package trialcontroller

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/kubecache"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// fakeOperator serves one SecondaryScheduler and keeps the lastTrial values applied.
type fakeOperator struct {
	operatorclient.Interface
	mu      sync.Mutex
	ss      *secondaryschedulerv1.SecondaryScheduler
	applied []secondaryschedulerapply.TrialResultApplyConfiguration
}

func (f *fakeOperator) Get() (*secondaryschedulerv1.SecondaryScheduler, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ss == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secondaryschedulers"}, "cluster")
	}
	return f.ss.DeepCopy(), nil
}

func (f *fakeOperator) ApplyStatus(_ context.Context, manager string, st *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration) (bool, error) {
	if manager != FieldManager || st.LastTrial == nil || st.TrialRequest != nil || len(st.Conditions) != 0 {
		return false, errors.New("the trial controller must apply lastTrial alone, as " + FieldManager)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = append(f.applied, *st.LastTrial)
	return true, nil
}

func (f *fakeOperator) last() *secondaryschedulerapply.TrialResultApplyConfiguration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.applied) == 0 {
		return nil
	}
	return &f.applied[len(f.applied)-1]
}

type fixture struct {
	c    *controller
	op   *fakeOperator
	kube *fake.Clientset
	runs chan Run
	// release ends a run with its report.
	release chan *trial.Report
}

func newFixture(t *testing.T, ss *secondaryschedulerv1.SecondaryScheduler, objects ...runtime.Object) *fixture {
	t.Helper()
	configs := []runtime.Object{operatorConfigMap(currentConfig), operatorConfigMap(candidateConfig)}
	f := &fixture{op: &fakeOperator{ss: ss}, kube: fake.NewClientset(append(configs, objects...)...), runs: make(chan Run, 4), release: make(chan *trial.Report, 4)}
	watching := watchesStarted(f.kube)
	informers := kubecache.NewKubeInformers(f.kube)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	run := func(ctx context.Context, r Run) (*trial.Report, error) {
		f.runs <- r
		select {
		case rep := <-f.release:
			return rep, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.c = newController(ctx, f.op, f.kube, informers, run, func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder {
		return events.NewInMemoryRecorder("t", clocktesting.NewFakeClock(time.Now()))
	})
	informers.Start(ctx.Done())
	informers.WaitForCacheSync(ctx.Done())
	// The fake's watch does not replay what happened since the list: a
	// deletion before the watch starts would never reach the caches.
	for _, resource := range []string{"pods", "secrets", "networkpolicies"} {
		waitFor(t, "the informer's watch of "+resource, func() bool { return watching(resource) })
	}
	return f
}

// watchesStarted reports, per resource, whether a watch of it has started
// on client.
func watchesStarted(client *fake.Clientset) func(resource string) bool {
	var mu sync.Mutex
	started := map[string]bool{}
	client.PrependWatchReactor("*", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		if err != nil {
			return false, nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		started[action.GetResource().Resource] = true
		return true, w, nil
	})
	return func(resource string) bool {
		mu.Lock()
		defer mu.Unlock()
		return started[resource]
	}
}

func (f *fixture) sync(t *testing.T) {
	t.Helper()
	if err := f.c.sync(context.Background(), factory.NewSyncContext("TrialController", events.NewInMemoryRecorder("t", clocktesting.NewFakeClock(time.Now())))); err != nil {
		t.Fatal(err)
	}
}

const (
	currentConfig   = "profiles:\n- schedulerName: s\n"
	candidateConfig = "profiles:\n- schedulerName: s\n  percentageOfNodesToScore: 50\n"
)

// operatorConfigMap is config in a ConfigMap as the operator writes it.
func operatorConfigMap(config string) *corev1.ConfigMap {
	hash := schedulerconfig.Hash([]byte(config))
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: names.ConfigMapNameFor(hash), Namespace: names.OperandNamespace,
		Labels: map[string]string{names.ManagedByLabel: names.ManagedByValue}, Annotations: map[string]string{names.ConfigHashAnnotation: hash}},
		Immutable: ptr.To(true), Data: map[string]string{names.ConfigKey: config}}
}

func trialSpec() *secondaryschedulerv1.SecondaryScheduler {
	return &secondaryschedulerv1.SecondaryScheduler{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster", UID: "ss-uid"},
		Spec: secondaryschedulerv1.SecondarySchedulerSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed},
			Rollout: &secondaryschedulerv1.RolloutPolicy{Strategy: secondaryschedulerv1.RolloutTrial}},
		Status: secondaryschedulerv1.SecondarySchedulerStatus{TrialRequest: &secondaryschedulerv1.TrialRequest{Key: "k1",
			Current:   secondaryschedulerv1.TrialArm{ConfigHash: schedulerconfig.Hash([]byte(currentConfig)), Image: "img:1"},
			Candidate: secondaryschedulerv1.TrialArm{ConfigHash: schedulerconfig.Hash([]byte(candidateConfig)), Image: "img:1", Args: []string{"--feature-gates=A=true"}}}},
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A request written to status by the target-config controller is run, with
// the arguments it names, and answered in lastTrial under its key and gate.
func TestRunsTheRequestAndAnswersInStatus(t *testing.T) {
	f := newFixture(t, trialSpec())
	f.sync(t)
	r := <-f.runs
	if len(r.Candidate.Args) != 1 || r.Candidate.Args[0] != "--feature-gates=A=true" || string(r.Current.Config) == "" || r.Owner.UID != "ss-uid" {
		t.Errorf("run %+v, want the candidate's arguments, both configurations and the owner", r)
	}
	f.sync(t) // while it runs, nothing more starts
	const candidateID = "quay.io/org/sched@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	f.release <- &trial.Report{Comparison: trial.Comparison{Counts: trial.Counts{Units: 2, Moved: 2}}, Verdict: trial.Verdict{Allowed: true, Message: "allowed"},
		Current: trial.ArmReport{ImageID: "img@sha256:current"}, Candidate: trial.ArmReport{ImageID: candidateID}}
	waitFor(t, "the verdict", func() bool {
		l := f.op.last()
		return l != nil && *l.Verdict == secondaryschedulerv1.TrialAllowed
	})
	l := f.op.last()
	if *l.Key != "k1" || l.Gate == nil || l.Counts == nil || *l.Counts.Moved != 2 {
		t.Errorf("lastTrial %+v, want the request's key, its gate and the counts", l)
	}
	if l.CandidateImageID == nil || *l.CandidateImageID != candidateID || l.CurrentImageID == nil || *l.CurrentImageID != "img@sha256:current" {
		t.Errorf("lastTrial image IDs %v, %v; want what the arms' trial Pods reported", l.CurrentImageID, l.CandidateImageID)
	}
	report, err := f.kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(context.Background(), ReportName, metav1.GetOptions{})
	if err != nil || !strings.Contains(report.Data["report.txt"], "candidate "+candidateID) {
		t.Errorf("report %v (%v); want it to name the image the candidate ran", report, err)
	}
	if len(f.runs) != 0 {
		t.Errorf("%d more trials started while one ran", len(f.runs))
	}
}

// A request that goes cancels its trial; the objects no trial holds are
// deleted; Unmanaged is a request that went.
func TestCancelsWhatNoRequestNamesAndRemovesItsObjects(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(ss *secondaryschedulerv1.SecondaryScheduler)
	}{
		{"request removed", func(ss *secondaryschedulerv1.SecondaryScheduler) { ss.Status.TrialRequest = nil }},
		{"Unmanaged", func(ss *secondaryschedulerv1.SecondaryScheduler) { ss.Spec.ManagementState = operatorv1.Unmanaged }},
		{"Removed", func(ss *secondaryschedulerv1.SecondaryScheduler) { ss.Spec.ManagementState = operatorv1.Removed }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labels := podruntime.Labels("candidate", "0123456789ab")
			meta := metav1.ObjectMeta{Name: podruntime.ObjectName("candidate"), Namespace: names.OperandNamespace, Labels: labels, UID: "leftover"}
			foreign := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "secondary-scheduler-trial-current", Namespace: names.OperandNamespace}}
			f := newFixture(t, trialSpec(), &corev1.Pod{ObjectMeta: meta}, &corev1.Secret{ObjectMeta: meta}, &networkingv1.NetworkPolicy{ObjectMeta: meta}, foreign)
			f.sync(t) // leftovers go first; the trial waits for them
			if len(f.runs) != 0 {
				t.Fatal("a trial started while an earlier trial's objects were there")
			}
			ctx := context.Background()
			if pods, _ := f.kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{}); len(pods.Items) != 0 {
				t.Errorf("%d trial Pods left", len(pods.Items))
			}
			if _, err := f.kube.NetworkingV1().NetworkPolicies(names.OperandNamespace).Get(ctx, foreign.Name, metav1.GetOptions{}); err != nil {
				t.Errorf("a NetworkPolicy that is no trial object went: %v", err)
			}
			waitFor(t, "the caches to see the deletions", func() bool { n, _ := f.c.removeLeftovers(ctx); return n == 0 })
			f.sync(t)
			<-f.runs
			ss := trialSpec()
			tc.stop(ss)
			f.op.mu.Lock()
			f.op.ss = ss
			f.op.mu.Unlock()
			a := f.c.running()
			f.sync(t)
			select {
			case <-a.done:
			case <-time.After(10 * time.Second):
				t.Fatal("the trial was not cancelled")
			}
			if l := f.op.last(); l != nil && *l.Verdict != secondaryschedulerv1.TrialRunning {
				t.Errorf("a cancelled trial reported %s", *l.Verdict)
			}
		})
	}
}

// A verdict judged by another gate is judged again from its counts, with no
// new trial; one that failed is retried only RetryFailedTrialAfter later.
func TestJudgesAgainAndRetries(t *testing.T) {
	ss := trialSpec()
	ss.Status.TrialRequest.Gate = secondaryschedulerv1.TrialGate{MaxNewlyUnschedulable: 2}
	ss.Status.LastTrial = &secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialBlocked, Gate: &secondaryschedulerv1.TrialGate{},
		Message: "blocked: 1 newly unschedulable (at most 0 allowed)\nNodeAffinity: no node", Counts: &secondaryschedulerv1.TrialCounts{Units: 3, NewlyUnschedulable: 1}}
	f := newFixture(t, ss)
	f.sync(t)
	l := f.op.last()
	if l == nil || *l.Verdict != secondaryschedulerv1.TrialAllowed || *l.Gate.MaxNewlyUnschedulable != 2 || len(f.runs) != 0 {
		t.Fatalf("lastTrial %+v and %d runs, want Allowed by the widened gate with no new trial", l, len(f.runs))
	}

	finished := metav1.NewTime(time.Now())
	ss.Status.LastTrial = &secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialFailed, FinishedAt: &finished}
	f.op.ss = ss
	f.sync(t)
	if len(f.runs) != 0 {
		t.Fatal("a trial that just failed ran again at once")
	}
	earlier := metav1.NewTime(time.Now().Add(-RetryFailedTrialAfter))
	ss.Status.LastTrial.FinishedAt = &earlier
	f.sync(t)
	<-f.runs
}

// failOnSwappedBaseline runs a trial of ss whose baseline ConfigMap was
// swapped for one that places nothing, and waits for its Failed verdict.
func failOnSwappedBaseline(t *testing.T, ss *secondaryschedulerv1.SecondaryScheduler) (*fixture, *corev1.ConfigMap) {
	t.Helper()
	swapped := operatorConfigMap(currentConfig)
	swapped.Data[names.ConfigKey] = "profiles:\n- schedulerName: s\n  plugins: {filter: {disabled: [{name: '*'}]}}\n"
	f := newFixture(t, ss)
	if _, err := f.kube.CoreV1().ConfigMaps(names.OperandNamespace).Update(context.Background(), swapped, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the cache to see the swap", func() bool {
		cm, err := f.c.configMaps.Get(swapped.Name)
		return err == nil && cm.Data[names.ConfigKey] == swapped.Data[names.ConfigKey]
	})
	f.sync(t)
	waitFor(t, "the verdict", func() bool {
		l := f.op.last()
		return l != nil && *l.Verdict == secondaryschedulerv1.TrialFailed
	})
	return f, swapped
}

// A baseline ConfigMap swapped in the namespace (data that no longer hashes
// to its name) fails the trial, naming it, and nothing is run with it.
func TestSwappedBaselineFailsTheTrial(t *testing.T) {
	f, swapped := failOnSwappedBaseline(t, trialSpec())
	if l := f.op.last(); !strings.Contains(*l.Message, swapped.Name) || !strings.Contains(*l.Message, "not the one the operator wrote") {
		t.Errorf("message %q, want the swapped ConfigMap named", *l.Message)
	} else if strings.Contains(*l.Message, "no verdict within") {
		t.Errorf("message %q blames the timeout for a trial that failed at once", *l.Message)
	}
	if len(f.runs) != 0 {
		t.Error("a trial ran with the swapped baseline")
	}
}

// Tie-break noise reaches status and back: a verdict judged again by another
// gate leaves it out of maxMovedPercent, and a verdict recorded without it
// (before it was counted) judges all its moves as the change's.
func TestRejudgeLeavesOutTieBreakNoise(t *testing.T) {
	n := trial.Counts{Units: 4, Same: 1, Moved: 3, TieBreakNoise: 2, MovedByChange: 1}
	if got := trialCounts(*statusCounts(n)); got != n {
		t.Fatalf("counts through status: %+v, want %+v", got, n)
	}
	gate := secondaryschedulerv1.TrialGate{MaxMovedPercent: ptr.To[int32](25)}
	for _, tc := range []struct {
		name   string
		counts secondaryschedulerv1.TrialCounts
		want   secondaryschedulerv1.TrialVerdict
	}{
		{"noise left out", *statusCounts(n), secondaryschedulerv1.TrialAllowed},
		{"no noise recorded", secondaryschedulerv1.TrialCounts{Units: 4, Same: 1, Moved: 3}, secondaryschedulerv1.TrialBlocked},
	} {
		last := &secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialBlocked, Gate: &secondaryschedulerv1.TrialGate{},
			Message: "blocked", Counts: &tc.counts}
		if got := rejudge(last, gate); got.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.name, got.Verdict, got.Message, tc.want)
		}
	}
}

// The sync a trial's end queues may read a cache that still holds the trial's
// Running record, or an older one: the verdict this process wrote stands, and
// an Inconclusive one is retried only RetryDelay later, not at once.
func TestVerdictNotYetCachedIsNotRunAgain(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cached func(started metav1.Time) *secondaryschedulerv1.TrialResult
	}{
		{"cache holds the start", func(started metav1.Time) *secondaryschedulerv1.TrialResult {
			return &secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialRunning, StartedAt: started}
		}},
		{"cache holds nothing yet", func(metav1.Time) *secondaryschedulerv1.TrialResult { return nil }},
		{"cache holds an older trial", func(started metav1.Time) *secondaryschedulerv1.TrialResult {
			return &secondaryschedulerv1.TrialResult{Key: "k0", Verdict: secondaryschedulerv1.TrialAllowed, StartedAt: metav1.NewTime(started.Add(-time.Hour))}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, trialSpec())
			f.sync(t)
			<-f.runs
			a := f.c.running()
			f.release <- &trial.Report{Verdict: trial.Verdict{Inconclusive: true, Message: "the current arm decided nothing"}}
			<-a.done
			l := f.op.last()
			if l == nil || *l.Verdict != secondaryschedulerv1.TrialInconclusive {
				t.Fatalf("lastTrial %+v, want Inconclusive", l)
			}
			// The second-precision time status round-trips.
			started := metav1.NewTime(l.StartedAt.Truncate(time.Second))
			f.op.mu.Lock()
			f.op.ss.Status.LastTrial = tc.cached(started)
			f.op.mu.Unlock()
			f.sync(t)
			if f.c.running() != nil {
				t.Fatal("the trial ran again at once: the sync read the stale cache, not the verdict just written")
			}
		})
	}
	// Another SecondaryScheduler of the same name (deleted and created again)
	// does not inherit what this process recorded.
	f := newFixture(t, trialSpec())
	f.c.record(&secondaryschedulerv1.SecondaryScheduler{ObjectMeta: metav1.ObjectMeta{UID: "gone"}},
		secondaryschedulerv1.TrialResult{Key: "k1", Verdict: secondaryschedulerv1.TrialInconclusive, StartedAt: metav1.Now(), FinishedAt: ptr.To(metav1.Now())})
	f.sync(t)
	select {
	case <-f.runs:
	case <-time.After(30 * time.Second):
		t.Fatal("no trial started: a SecondaryScheduler of another UID inherited the verdict recorded for the gone one")
	}
}
