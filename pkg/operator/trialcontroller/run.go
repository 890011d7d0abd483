package trialcontroller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/message"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/metrics"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// execute runs one trial of req and reports it, unless it was cancelled:
// then a newer request has taken over, and its own trial reports.
func (c *controller) execute(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, req *secondaryschedulerv1.TrialRequest) {
	result := secondaryschedulerv1.TrialResult{Key: req.Key, ConfigHash: req.Candidate.ConfigHash, Image: req.Candidate.Image,
		Verdict: secondaryschedulerv1.TrialRunning, StartedAt: metav1.NewTime(c.clock.Now()), FailedAttempts: priorFailures(ss.Status.LastTrial, req.Key)}
	if err := c.writeStatus(ctx, result); err != nil {
		klog.ErrorS(err, "Recording the start of a trial", "key", req.Key)
	}
	policy := secondaryschedulerv1.TrialPolicy{}
	if ss.Spec.Rollout != nil && ss.Spec.Rollout.Trial != nil {
		policy = *ss.Spec.Rollout.Trial.DeepCopy()
	}
	timeout := time.Duration(ptr.Deref(policy.TimeoutSeconds, secondaryschedulerv1.DefaultTrialTimeoutSeconds)) * time.Second
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	report, err := c.runTrial(runCtx, ss, req, policy)
	timedOut := errors.Is(runCtx.Err(), context.DeadlineExceeded) // before cancel, which cancels it either way
	cancel()
	if ctx.Err() != nil {
		return
	}
	if err != nil && timedOut {
		err = fmt.Errorf("no verdict within spec.rollout.trial.timeoutSeconds (%s): %w", timeout, err)
	}
	finished := metav1.NewTime(c.clock.Now())
	result.FinishedAt = &finished
	judge(&result, req.Gate, minFidelity(policy), report, err)
	metrics.ObserveTrial(result.Verdict, finished.Sub(result.StartedAt.Time))
	if report != nil {
		metrics.ObserveTrialFidelity(report.Fidelity.PlacedPercent, report.Fidelity.SameNodePercent)
	}
	backOff(&result, finished.Time)
	if report != nil {
		result.CurrentImageID, result.CandidateImageID = report.Current.ImageID, report.Candidate.ImageID
		if werr := c.writeReport(ctx, ss, req, report); werr != nil {
			klog.ErrorS(werr, "Writing the trial report", "configMap", ReportName)
			result.Message = message.Bounded(result.Message+"\nThe full report was not kept: "+werr.Error(), maxMessage)
		} else {
			result.Report = ReportName
		}
	}
	if err := c.writeStatus(ctx, result); err != nil {
		klog.ErrorS(err, "Recording a trial's verdict", "verdict", result.Verdict)
		return
	}
	c.record(ss, result)
	if result.Verdict == secondaryschedulerv1.TrialAllowed {
		c.recorderOn(ss).Eventf("TrialAllowed", "The trial of configuration %s with image %s (run as %s) allowed it: %s",
			rollout.Short(result.ConfigHash), result.Image, imageRun(result.CandidateImageID), result.Message)
	}
}

// runTrial reads both arms' configurations and runs the trial.
func (c *controller) runTrial(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, req *secondaryschedulerv1.TrialRequest,
	policy secondaryschedulerv1.TrialPolicy) (*trial.Report, error) {
	current, err := c.armOf("current", req.Current)
	if err != nil {
		return nil, err
	}
	candidate, err := c.armOf("candidate", req.Candidate)
	if err != nil {
		return nil, err
	}
	owner := metav1.OwnerReference{APIVersion: secondaryschedulerv1.SchemeGroupVersion.String(), Kind: "SecondaryScheduler",
		Name: ss.Name, UID: ss.UID, Controller: ptr.To(true)}
	gate := gateOf(req.Gate)
	gate.MinFidelityPercent = float64(minFidelity(policy))
	return c.run(ctx, Run{Current: current, Candidate: candidate, Gate: gate, Policy: policy, Owner: owner})
}

// armOf is arm as a trial runs it, with the configuration its ConfigMap
// holds. The ConfigMap must be one the operator wrote, as a rollout would
// require (its label, immutable, its name, hash annotation and data
// agreeing), and of arm's hash: a ConfigMap swapped in the namespace would
// otherwise be the baseline every change is judged against.
func (c *controller) armOf(name string, arm secondaryschedulerv1.TrialArm) (trial.Arm, error) {
	cmName := names.ConfigMapNameFor(arm.ConfigHash)
	cm, err := c.configMaps.Get(cmName)
	if err != nil || cm.Data[names.ConfigKey] == "" {
		return trial.Arm{}, fmt.Errorf("ConfigMap %s/%s of the %s configuration is not there (%v), so there is nothing to try",
			names.OperandNamespace, cmName, name, err)
	}
	problem := render.ConfigMapProblem(cm)
	if problem == "" && cm.Annotations[names.ConfigHashAnnotation] != arm.ConfigHash {
		problem = "its " + names.ConfigHashAnnotation + " annotation is not the configuration requested"
	}
	if problem == "" {
		if err := schedulerconfig.CheckDocument([]byte(cm.Data[names.ConfigKey])); err != nil {
			problem = err.Error()
		}
	}
	if problem != "" {
		return trial.Arm{}, fmt.Errorf("ConfigMap %s/%s of the %s configuration is not the one the operator wrote: %s; nothing is tried with it",
			names.OperandNamespace, cmName, name, problem)
	}
	return trial.Arm{Name: name, Image: arm.Image, Command: arm.Command, Args: arm.Args, Config: []byte(cm.Data[names.ConfigKey])}, nil
}

// backOff counts a Failed or Inconclusive result as one more attempt that
// failed, and says when it is tried again; any other verdict ends the run of
// failures.
func backOff(result *secondaryschedulerv1.TrialResult, finished time.Time) {
	if result.Verdict != secondaryschedulerv1.TrialFailed && result.Verdict != secondaryschedulerv1.TrialInconclusive {
		result.FailedAttempts = 0
		return
	}
	result.FailedAttempts++
	delay := RetryDelay(result.FailedAttempts)
	// The reasons are cut, never when it is tried again.
	retry := fmt.Sprintf("\nIt is tried again at %s, %s after this trial (attempt %d in a row without a verdict; the wait doubles from %s up to %s), "+
		"or at once when an input changes.", finished.Add(delay).UTC().Format("15:04:05Z"), delay, result.FailedAttempts,
		RetryFailedTrialAfter, MaxRetryFailedTrialAfter)
	result.Message = message.Bounded(result.Message, maxMessage-len(retry)) + retry
}

// imageRun is an arm's image as its trial Pod reported it.
func imageRun(imageID string) string {
	if imageID == "" {
		return "an image its trial Pod did not report"
	}
	return imageID
}

// gateOf is the gate a request names, as package trial judges by it.
func gateOf(g secondaryschedulerv1.TrialGate) trial.Gate {
	out := trial.Gate{MaxNewlyUnschedulable: int(g.MaxNewlyUnschedulable)}
	if g.MaxMovedPercent != nil {
		moved := float64(*g.MaxMovedPercent)
		out.MaxMovedPercent = &moved
	}
	return out
}

// minFidelity is policy's minFidelityPercent, with its default. It is not
// part of the request's gate: a change of it applies from the next trial.
func minFidelity(policy secondaryschedulerv1.TrialPolicy) int32 {
	return ptr.Deref(policy.MinFidelityPercent, secondaryschedulerv1.DefaultTrialMinFidelityPercent)
}

// statusFidelity and trialFidelity convert between the fidelity of status
// (nil: not measured) and the one package trial judges, with the floor it
// was held to.
func statusFidelity(f trial.Fidelity, floor int32) *secondaryschedulerv1.TrialFidelity {
	if !f.Measured() {
		return nil
	}
	out := &secondaryschedulerv1.TrialFidelity{BoundReplayed: int32(f.Bound), Placed: int32(f.Placed), PlacedPercent: percentDown(f.Placed, f.Bound),
		SameNode: int32(f.SameNode), SameNodeCompared: int32(f.Compared), MinFidelityPercent: floor}
	if f.Compared > 0 {
		out.SameNodePercent = ptr.To(percentDown(f.SameNode, f.Compared))
	}
	return out
}

// percentDown is n of total in whole percent, rounded down: 100 only when n is total.
func percentDown(n, total int) int32 { return int32(100 * n / total) }

// trialFidelity is the fidelity a verdict's counts were judged with, and its
// floor; the pods not placed are named in the verdict's message, not here.
func trialFidelity(f *secondaryschedulerv1.TrialFidelity) (trial.Fidelity, float64) {
	if f == nil {
		return trial.Fidelity{}, 0
	}
	out := trial.Fidelity{Bound: int(f.BoundReplayed), Placed: int(f.Placed), SameNode: int(f.SameNode), Compared: int(f.SameNodeCompared)}
	if out.Bound > 0 {
		out.PlacedPercent = ptr.To(100 * float64(out.Placed) / float64(out.Bound))
	}
	if out.Compared > 0 {
		out.SameNodePercent = ptr.To(100 * float64(out.SameNode) / float64(out.Compared))
	}
	return out, float64(f.MinFidelityPercent)
}

// statusCounts and trialCounts convert between the counts of status and
// those package trial judges.
func statusCounts(n trial.Counts) *secondaryschedulerv1.TrialCounts {
	return &secondaryschedulerv1.TrialCounts{Units: int32(n.Units), Same: int32(n.Same), Moved: int32(n.Moved), TieBreakNoise: int32(n.TieBreakNoise),
		NewlyUnschedulable: int32(n.NewlyUnschedulable), NewlySchedulable: int32(n.NewlySchedulable), StillUnschedulable: int32(n.StillUnschedulable),
		Undecided: int32(n.Undecided)}
}

// A verdict recorded before tieBreakNoise was counted has none: all its
// moves are judged as the change's.
func trialCounts(n secondaryschedulerv1.TrialCounts) trial.Counts {
	return trial.Counts{Units: int(n.Units), Same: int(n.Same), Moved: int(n.Moved),
		TieBreakNoise: int(n.TieBreakNoise), MovedByChange: int(n.Moved - n.TieBreakNoise),
		NewlyUnschedulable: int(n.NewlyUnschedulable), NewlySchedulable: int(n.NewlySchedulable), StillUnschedulable: int(n.StillUnschedulable),
		Undecided: int(n.Undecided)}
}

// judge fills in the verdict, its message, counts and fidelity (held to floor).
func judge(result *secondaryschedulerv1.TrialResult, gate secondaryschedulerv1.TrialGate, floor int32, report *trial.Report, err error) {
	if err != nil {
		result.Verdict = secondaryschedulerv1.TrialFailed
		result.Message = message.Bounded(err.Error(), maxMessage)
		return
	}
	msg := report.Verdict.Message
	for _, reason := range report.Verdict.Reasons {
		msg += "\n" + reason
	}
	result.Counts = statusCounts(report.Counts)
	result.Fidelity = statusFidelity(report.Fidelity, floor)
	result.Gate = gate.DeepCopy()
	result.Verdict, result.Message = verdictOf(report.Verdict), message.Bounded(msg, maxMessage)
}

// verdictOf is v as status says it.
func verdictOf(v trial.Verdict) secondaryschedulerv1.TrialVerdict {
	switch {
	case v.Allowed:
		return secondaryschedulerv1.TrialAllowed
	case v.Inconclusive:
		return secondaryschedulerv1.TrialInconclusive
	}
	return secondaryschedulerv1.TrialBlocked
}

// rejudge judges the counts of last again by gate, with its fidelity held to
// the floor it was held to: its first line, the verdict, is replaced; the
// reasons after it stay.
func rejudge(last *secondaryschedulerv1.TrialResult, gate secondaryschedulerv1.TrialGate) secondaryschedulerv1.TrialResult {
	out := *last.DeepCopy()
	g := gateOf(gate)
	fidelity, floor := trialFidelity(last.Fidelity)
	g.MinFidelityPercent = floor
	v := g.Check(trial.Comparison{Counts: trialCounts(*last.Counts), Fidelity: fidelity})
	msg := v.Message
	if _, reasons, ok := strings.Cut(last.Message, "\n"); ok {
		msg += "\n" + reasons
	}
	out.Message, out.Gate, out.Verdict = message.Bounded(msg, maxMessage), gate.DeepCopy(), verdictOf(v)
	return out
}

// maxMessage keeps status.lastTrial.message within its schema bound.
const maxMessage = 4000

func (c *controller) writeStatus(ctx context.Context, result secondaryschedulerv1.TrialResult) error {
	t := secondaryschedulerapply.TrialResult().WithKey(result.Key).WithConfigHash(result.ConfigHash).WithImage(result.Image).
		WithVerdict(result.Verdict).WithStartedAt(result.StartedAt)
	if g := result.Gate; g != nil {
		t.WithGate(rollout.TrialGateApply(*g))
	}
	if result.Message != "" {
		t.WithMessage(result.Message)
	}
	if result.FinishedAt != nil {
		t.WithFinishedAt(*result.FinishedAt)
	}
	if result.Report != "" {
		t.WithReport(result.Report)
	}
	if result.CandidateImageID != "" {
		t.WithCandidateImageID(result.CandidateImageID)
	}
	if result.CurrentImageID != "" {
		t.WithCurrentImageID(result.CurrentImageID)
	}
	if result.FailedAttempts > 0 {
		t.WithFailedAttempts(result.FailedAttempts)
	}
	if n := result.Counts; n != nil {
		t.WithCounts(secondaryschedulerapply.TrialCounts().WithUnits(n.Units).WithSame(n.Same).WithMoved(n.Moved).WithTieBreakNoise(n.TieBreakNoise).
			WithNewlyUnschedulable(n.NewlyUnschedulable).WithNewlySchedulable(n.NewlySchedulable).WithStillUnschedulable(n.StillUnschedulable).
			WithUndecided(n.Undecided))
	}
	if f := result.Fidelity; f != nil {
		t.WithFidelity(fidelityApply(*f))
	}
	_, err := c.operatorClient.ApplyStatus(ctx, FieldManager, secondaryschedulerapply.SecondarySchedulerStatus().WithLastTrial(t))
	return err
}

func fidelityApply(f secondaryschedulerv1.TrialFidelity) *secondaryschedulerapply.TrialFidelityApplyConfiguration {
	out := secondaryschedulerapply.TrialFidelity().WithBoundReplayed(f.BoundReplayed).WithPlaced(f.Placed).WithPlacedPercent(f.PlacedPercent).
		WithSameNode(f.SameNode).WithSameNodeCompared(f.SameNodeCompared).WithMinFidelityPercent(f.MinFidelityPercent)
	if f.SameNodePercent != nil {
		out.WithSameNodePercent(*f.SameNodePercent)
	}
	return out
}

// The keys of the report ConfigMap.
const (
	reportText = "report.txt"
	reportJSON = "report.json"
	reportHTML = "report.html"
	// reportHTMLOmitted says why the page is not there.
	reportHTMLOmitted = "report.html.omitted"
)

// maxReport bounds the text and the JSON: the text lists only the units that
// changed, the JSON every pod.
const maxReport = 400 << 10

// maxReportData keeps the report ConfigMap's data under the API server's
// bound of 1 MiB on it, with room for its metadata. The page goes in last,
// when it fits beside the text and the JSON.
const maxReportData = 900 << 10

// reportData is the report ConfigMap's data: the text (cut to maxReport),
// the JSON when it fits within maxReport, and the page when all fits within
// maxReportData; else a note of why it is not there.
func reportData(report *trial.Report) (map[string]string, error) {
	var text, js, page bytes.Buffer
	if err := report.WriteText(&text); err != nil {
		return nil, err
	}
	data := map[string]string{reportText: message.Bounded(text.String(), maxReport)}
	if err := report.WriteJSON(&js); err == nil && js.Len() <= maxReport {
		data[reportJSON] = js.String()
	}
	if err := report.WriteHTML(&page); err != nil {
		return nil, err
	}
	size := page.Len()
	for _, v := range data {
		size += len(v)
	}
	if size <= maxReportData {
		data[reportHTML] = page.String()
	} else {
		data[reportHTMLOmitted] = fmt.Sprintf("%s (%d KiB) is left out: with the rest it would take this ConfigMap past %d KiB. "+
			"%s holds the verdict, the counts and the changed units.", reportHTML, page.Len()>>10, maxReportData>>10, reportText)
	}
	return data, nil
}

// writeReport replaces the report ConfigMap with this trial's.
func (c *controller) writeReport(ctx context.Context, ss *secondaryschedulerv1.SecondaryScheduler, req *secondaryschedulerv1.TrialRequest, report *trial.Report) error {
	data, err := reportData(report)
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: ReportName, Namespace: names.OperandNamespace,
			Labels:      map[string]string{names.ManagedByLabel: names.ManagedByValue},
			Annotations: map[string]string{names.ConfigHashAnnotation: req.Candidate.ConfigHash},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: secondaryschedulerv1.SchemeGroupVersion.String(), Kind: "SecondaryScheduler",
				Name: ss.Name, UID: ss.UID, Controller: ptr.To(true)}}},
		Data: data,
	}
	client := c.kube.CoreV1().ConfigMaps(names.OperandNamespace)
	existing, err := client.Get(ctx, ReportName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = client.Create(ctx, cm, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	case !controlledBy(existing, ss.UID):
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
