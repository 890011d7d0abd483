package trialrunner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// statusRecorder keeps the lastTrial values applied, in order.
type statusRecorder struct {
	operatorclient.Interface
	mu      sync.Mutex
	applied []secondaryschedulerapply.TrialResultApplyConfiguration
}

func (s *statusRecorder) ApplyStatus(_ context.Context, manager string, st *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration) (bool, error) {
	if manager != FieldManager || st.LastTrial == nil || len(st.Conditions) != 0 {
		return false, errors.New("the runner must apply lastTrial alone, as " + FieldManager)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.applied = append(s.applied, *st.LastTrial)
	return true, nil
}

func (s *statusRecorder) verdicts() []secondaryschedulerv1.TrialVerdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []secondaryschedulerv1.TrialVerdict
	for _, a := range s.applied {
		out = append(out, *a.Verdict)
	}
	return out
}

func (s *statusRecorder) last() secondaryschedulerapply.TrialResultApplyConfiguration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied[len(s.applied)-1]
}

func newRunner(t *testing.T, run RunFunc, objects ...*corev1.ConfigMap) (*Runner, *statusRecorder, *fake.Clientset) {
	kube := fake.NewClientset()
	for _, o := range objects {
		if _, err := kube.CoreV1().ConfigMaps(o.Namespace).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	status := &statusRecorder{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := New(ctx, status, kube, run, func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder {
		return events.NewInMemoryRecorder("test", clock.RealClock{})
	})
	return r, status, kube
}

func request(hash string) Request {
	return Request{Candidate: Arm{Change: rollout.Change{ConfigHash: hash, Image: "img"}},
		Owner: metav1.OwnerReference{APIVersion: "operator.openshift.io/v1", Kind: "SecondaryScheduler", Name: "cluster", UID: "uid-1"}}
}

func waitDone(t *testing.T, r *Runner) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, running := r.Running(); !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the trial did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func blockedReport() *trial.Report {
	return &trial.Report{Comparison: trial.Comparison{Counts: trial.Counts{Units: 6, NewlyUnschedulable: 6}},
		Verdict: trial.Verdict{Message: "blocked: 6 newly unschedulable (at most 0 allowed)", Reasons: []string{"NodeAffinity: 0/3 nodes"}}}
}

// A trial is recorded Running, then with its verdict, counts and report;
// asking again for the same change runs nothing more.
func TestRunnerReportsAVerdictOnce(t *testing.T) {
	runs := 0
	r, status, kube := newRunner(t, func(context.Context, Request) (*trial.Report, error) {
		runs++
		return blockedReport(), nil
	})
	ss := &secondaryschedulerv1.SecondaryScheduler{}
	r.Ensure(ss, request("h1"))
	waitDone(t, r)
	r.Ensure(ss, request("h1"))
	waitDone(t, r)
	if runs != 1 {
		t.Errorf("the same change ran %d trials, want 1", runs)
	}
	retry := request("h1")
	retry.Retry = true
	r.Ensure(ss, retry)
	waitDone(t, r)
	if runs != 2 {
		t.Errorf("a retry ran %d trials in all, want 2", runs)
	}
	status.mu.Lock()
	status.applied = status.applied[:2]
	status.mu.Unlock()
	if v := status.verdicts(); len(v) != 2 || v[0] != secondaryschedulerv1.TrialRunning || v[1] != secondaryschedulerv1.TrialBlocked {
		t.Fatalf("lastTrial verdicts %v, want Running then Blocked", v)
	}
	last := status.last()
	if !strings.Contains(*last.Message, "NodeAffinity") || *last.Counts.NewlyUnschedulable != 6 || *last.Report != ReportName || last.FinishedAt == nil {
		t.Errorf("lastTrial %+v, want the reasons, the counts, the report and the finish time", last)
	}
	cm, err := kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(context.Background(), ReportName, metav1.GetOptions{})
	if err != nil || !strings.Contains(cm.Data["report.txt"], "6 newly unschedulable") || cm.OwnerReferences[0].UID != "uid-1" {
		t.Errorf("report ConfigMap %v (%v), want the text report owned by the SecondaryScheduler", cm, err)
	}
}

// A trial that cannot run is Failed with its error; one that runs out of
// time says which knob bounds it.
func TestRunnerReportsFailures(t *testing.T) {
	r, status, _ := newRunner(t, func(ctx context.Context, req Request) (*trial.Report, error) {
		if req.Candidate.ConfigHash == "slow" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return nil, errors.New("candidate: container scheduler terminated: plugin Nope does not exist")
	})
	r.Ensure(&secondaryschedulerv1.SecondaryScheduler{}, request("bad"))
	waitDone(t, r)
	if last := status.last(); *last.Verdict != secondaryschedulerv1.TrialFailed || !strings.Contains(*last.Message, "plugin Nope") {
		t.Errorf("lastTrial %s %q, want Failed with the error", *last.Verdict, *last.Message)
	}
	slow := request("slow")
	slow.Policy.TimeoutSeconds = new(int32) // 0 s: the deadline passes at once
	r.Ensure(&secondaryschedulerv1.SecondaryScheduler{}, slow)
	waitDone(t, r)
	if last := status.last(); *last.Verdict != secondaryschedulerv1.TrialFailed || !strings.Contains(*last.Message, "timeoutSeconds") {
		t.Errorf("lastTrial %s %q, want Failed naming the timeout", *last.Verdict, *last.Message)
	}
}

// A newer change cancels the trial of the older one, whose verdict is never
// written; Cancel stops the last.
func TestRunnerCancelsAnOlderChange(t *testing.T) {
	started := make(chan string, 2)
	r, status, _ := newRunner(t, func(ctx context.Context, req Request) (*trial.Report, error) {
		started <- req.Candidate.ConfigHash
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ss := &secondaryschedulerv1.SecondaryScheduler{}
	r.Ensure(ss, request("old"))
	<-started
	r.Ensure(ss, request("new"))
	<-started
	if change, running := r.Running(); !running || change.ConfigHash != "new" {
		t.Errorf("running %+v (%v), want the newer change", change, running)
	}
	r.Cancel()
	if _, running := r.Running(); running {
		t.Error("a trial still runs after Cancel")
	}
	for _, v := range status.verdicts() {
		if v != secondaryschedulerv1.TrialRunning {
			t.Errorf("a cancelled trial wrote verdict %s", v)
		}
	}
}

// Someone else's ConfigMap of the report's name is left alone, and the
// verdict says the report was not kept.
func TestRunnerLeavesAForeignReportConfigMap(t *testing.T) {
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ReportName, Namespace: names.OperandNamespace}, Data: map[string]string{"mine": "x"}}
	r, status, kube := newRunner(t, func(context.Context, Request) (*trial.Report, error) { return blockedReport(), nil }, foreign)
	r.Ensure(&secondaryschedulerv1.SecondaryScheduler{}, request("h1"))
	waitDone(t, r)
	cm, err := kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(context.Background(), ReportName, metav1.GetOptions{})
	if err != nil || cm.Data["mine"] != "x" || len(cm.Data) != 1 {
		t.Errorf("the foreign ConfigMap became %v (%v)", cm.Data, err)
	}
	if last := status.last(); last.Report != nil || !strings.Contains(*last.Message, "not the operator's") {
		t.Errorf("lastTrial report %v, message %q; want no report named and the reason", last.Report, *last.Message)
	}
}
