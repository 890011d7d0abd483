// Package trialrunner runs the trial of a scheduler change in the background,
// one at a time, and reports its verdict in status.lastTrial, in an event and
// in a report ConfigMap. The target config controller decides when a change
// needs a trial and reads the verdict back from status (rollout.Decide); a
// trial takes tens of seconds, so it never runs inside a sync.
package trialrunner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/message"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// FieldManager owns status.lastTrial.
const FieldManager = "TrialRunner"

// ReportName is the ConfigMap, in the operand namespace, that holds the last
// trial's full report.
const ReportName = "secondary-scheduler-trial-report"

// Arm is one scheduler of a trial, as its pods would run it.
type Arm struct {
	rollout.Change
	// Config is the merged KubeSchedulerConfiguration.
	Config []byte
	// Command and Args are the scheduler container's, without the flags the
	// trial sets itself.
	Command, Args []string
}

// Request is one trial: the candidate change against what runs.
type Request struct {
	Current, Candidate Arm
	// Policy is spec.rollout.trial with its defaults.
	Policy secondaryschedulerv1.TrialPolicy
	// Owner owns the trial's objects: the SecondaryScheduler.
	Owner metav1.OwnerReference
	// Retry runs the candidate's trial again although this runner reported
	// it (one that could not run, RetryFailedTrialAfter ago).
	Retry bool
}

// RunFunc runs a trial to its report; an error means it could not run.
type RunFunc func(ctx context.Context, req Request) (*trial.Report, error)

// Runner runs at most one trial at a time.
type Runner struct {
	operatorClient operatorclient.Interface
	kube           kubernetes.Interface
	run            RunFunc
	recorderOn     func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder
	clock          clock.PassiveClock
	// base is the operator's lifetime: a trial outlives the sync that started it.
	base context.Context

	mu     sync.Mutex
	active *active
}

type active struct {
	change rollout.Change
	cancel context.CancelFunc
	done   chan struct{}
	// reported: the verdict is written. Until the cache shows it, the
	// controller still asks for this trial, which must not run again.
	reported atomic.Bool
}

// New returns a runner whose trials live until base is done.
func New(base context.Context, operatorClient operatorclient.Interface, kube kubernetes.Interface, run RunFunc,
	recorderOn func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder) *Runner {
	return &Runner{base: base, operatorClient: operatorClient, kube: kube, run: run, recorderOn: recorderOn, clock: clock.RealClock{}}
}

// Ensure starts a trial of req.Candidate unless this process runs one
// already. A trial of another change is cancelled first: its verdict would
// be of an input that is gone.
func (r *Runner) Ensure(ss *secondaryschedulerv1.SecondaryScheduler, req Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a := r.active; a != nil && a.change == req.Candidate.Change && (!closed(a.done) || (a.reported.Load() && !req.Retry)) {
		return
	}
	r.stopLocked()
	ctx, cancel := context.WithCancel(r.base)
	a := &active{change: req.Candidate.Change, cancel: cancel, done: make(chan struct{})}
	r.active = a
	go func() {
		defer close(a.done)
		a.reported.Store(r.execute(ctx, ss.DeepCopy(), req))
	}()
}

// Cancel stops a running trial, when no change needs one any more, and
// waits until it has cleaned up.
func (r *Runner) Cancel() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopLocked()
}

// Running is the change whose trial runs in this process, if any.
func (r *Runner) Running() (rollout.Change, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == nil || closed(r.active.done) {
		return rollout.Change{}, false
	}
	return r.active.change, true
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (r *Runner) stopLocked() {
	if r.active == nil {
		return
	}
	r.active.cancel()
	<-r.active.done
	r.active = nil
}

// execute runs one trial and reports it, unless it was cancelled: then a
// newer input has taken over, and it reports its own trial. It returns
// whether the verdict was written.
func (r *Runner) execute(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, req Request) bool {
	result := secondaryschedulerv1.TrialResult{ConfigHash: req.Candidate.ConfigHash, Image: req.Candidate.Image,
		Verdict: secondaryschedulerv1.TrialRunning, StartedAt: metav1.NewTime(r.clock.Now())}
	if err := r.writeStatus(ctx, result); err != nil {
		klog.ErrorS(err, "Recording the start of a trial", "configHash", result.ConfigHash, "image", result.Image)
	}
	timeout := time.Duration(ptr.Deref(req.Policy.TimeoutSeconds, 300)) * time.Second
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	report, err := r.run(runCtx, req)
	cancel()
	if ctx.Err() != nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || (err != nil && runCtx.Err() != nil) {
		err = fmt.Errorf("no verdict within spec.rollout.trial.timeoutSeconds (%s): %w", timeout, err)
	}
	finished := metav1.NewTime(r.clock.Now())
	result.FinishedAt = &finished
	judge(&result, report, err)
	if report != nil {
		if werr := r.writeReport(ctx, req, report); werr != nil {
			klog.ErrorS(werr, "Writing the trial report", "configMap", ReportName)
			result.Message = message.Bounded(result.Message+"\nThe full report was not kept: "+werr.Error(), maxMessage)
		} else {
			result.Report = ReportName
		}
	}
	if err := r.writeStatus(ctx, result); err != nil {
		klog.ErrorS(err, "Recording a trial's verdict", "verdict", result.Verdict)
		return false
	}
	r.tell(ss, result)
	return true
}

// judge fills in the verdict, its message and counts.
func judge(result *secondaryschedulerv1.TrialResult, report *trial.Report, err error) {
	if err != nil {
		result.Verdict = secondaryschedulerv1.TrialFailed
		result.Message = message.Bounded(err.Error(), maxMessage)
		return
	}
	result.Verdict = secondaryschedulerv1.TrialBlocked
	if report.Verdict.Allowed {
		result.Verdict = secondaryschedulerv1.TrialAllowed
	}
	msg := report.Verdict.Message
	for _, reason := range report.Verdict.Reasons {
		msg += "\n" + reason
	}
	result.Message = message.Bounded(msg, maxMessage)
	n := report.Counts
	result.Counts = &secondaryschedulerv1.TrialCounts{Units: int32(n.Units), Same: int32(n.Same), Moved: int32(n.Moved),
		NewlyUnschedulable: int32(n.NewlyUnschedulable), NewlySchedulable: int32(n.NewlySchedulable), StillUnschedulable: int32(n.StillUnschedulable)}
}

// maxMessage keeps status.lastTrial.message within its schema bound.
const maxMessage = 4000

// tell records an allowed trial on the SecondaryScheduler. A blocked or
// failed one is told by the TrialBlocked condition's transition, with what to do.
func (r *Runner) tell(ss *secondaryschedulerv1.SecondaryScheduler, result secondaryschedulerv1.TrialResult) {
	if result.Verdict == secondaryschedulerv1.TrialAllowed {
		r.recorderOn(ss).Eventf("TrialAllowed", "The trial of configuration %s with image %s allowed it: %s",
			rollout.Short(result.ConfigHash), result.Image, result.Message)
	}
}

func (r *Runner) writeStatus(ctx context.Context, result secondaryschedulerv1.TrialResult) error {
	t := secondaryschedulerapply.TrialResult().WithConfigHash(result.ConfigHash).WithImage(result.Image).
		WithVerdict(result.Verdict).WithStartedAt(result.StartedAt)
	if result.Message != "" {
		t.WithMessage(result.Message)
	}
	if result.FinishedAt != nil {
		t.WithFinishedAt(*result.FinishedAt)
	}
	if result.Report != "" {
		t.WithReport(result.Report)
	}
	if n := result.Counts; n != nil {
		t.WithCounts(secondaryschedulerapply.TrialCounts().WithUnits(n.Units).WithSame(n.Same).WithMoved(n.Moved).
			WithNewlyUnschedulable(n.NewlyUnschedulable).WithNewlySchedulable(n.NewlySchedulable).WithStillUnschedulable(n.StillUnschedulable))
	}
	_, err := r.operatorClient.ApplyStatus(ctx, FieldManager, secondaryschedulerapply.SecondarySchedulerStatus().WithLastTrial(t))
	return err
}

// maxReport keeps the report ConfigMap well under the API server's object
// limit: the text lists only the units that changed, the JSON every pod.
const maxReport = 400 << 10

// writeReport replaces the report ConfigMap with this trial's.
func (r *Runner) writeReport(ctx context.Context, req Request, report *trial.Report) error {
	var text, js bytes.Buffer
	if err := report.WriteText(&text); err != nil {
		return err
	}
	data := map[string]string{"report.txt": message.Bounded(text.String(), maxReport)}
	if err := report.WriteJSON(&js); err == nil && js.Len() <= maxReport {
		data["report.json"] = js.String()
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ReportName, Namespace: names.OperandNamespace,
			Labels:          map[string]string{names.ManagedByLabel: names.ManagedByValue},
			Annotations:     map[string]string{names.ConfigHashAnnotation: req.Candidate.ConfigHash},
			OwnerReferences: []metav1.OwnerReference{req.Owner}},
		Data: data,
	}
	client := r.kube.CoreV1().ConfigMaps(names.OperandNamespace)
	existing, err := client.Get(ctx, ReportName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = client.Create(ctx, cm, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	case !controlledBy(existing, req.Owner.UID):
		// Someone else's ConfigMap of that name is left alone.
		return fmt.Errorf("ConfigMap %s/%s exists and is not the operator's; delete or rename it to get the report", names.OperandNamespace, ReportName)
	}
	cm.ResourceVersion = existing.ResourceVersion
	_, err = client.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

func controlledBy(o metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOfNoCopy(o)
	return ref != nil && ref.UID == uid
}
