package targetconfigcontroller

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

const (
	reasonRolloutFailed = "RolloutFailed"
	// maxFailureMessage bounds what a pod's termination message adds to status.
	maxFailureMessage = 1024
)

// observedRollout is what the Deployment and its pods say about the template
// the Deployment is rolling out.
type observedRollout struct {
	current secondaryschedulerv1.Rollout
	// completed: every replica runs the current template and is available.
	completed bool
	// failure, when set, says why the current template's pods fail.
	failure string
}

// observeRollout reads the Deployment and its pods from the caches. A new pod
// whose container exited with an error has failed at once (a scheduler that
// refuses its configuration exits within a second); anything else that keeps
// the rollout from finishing fails it at the Deployment's progress deadline.
func observeRollout(d *appsv1.Deployment, pods []*corev1.Pod) observedRollout {
	o := observedRollout{current: secondaryschedulerv1.Rollout{
		ConfigHash:   d.Spec.Template.Annotations[render.ConfigHashAnnotation],
		TemplateHash: d.Spec.Template.Annotations[render.TemplateHashAnnotation],
	}}
	if d.Status.ObservedGeneration != d.Generation {
		return o // the Deployment controller has not seen this template yet
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	o.completed = s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want
	if o.completed {
		return o
	}
	var crashes []string
	for _, p := range pods {
		if p.DeletionTimestamp != nil || p.Annotations[render.TemplateHashAnnotation] != o.current.TemplateHash {
			continue
		}
		statuses := append(append([]corev1.ContainerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
		for _, cs := range statuses {
			if msg, crashed := crashOf(cs); crashed {
				crashes = append(crashes, fmt.Sprintf("pod %s container %s %s", p.Name, cs.Name, msg))
			}
		}
	}
	if len(crashes) > 0 {
		sort.Strings(crashes)
		o.failure = truncate(crashes[0], maxFailureMessage)
		return o
	}
	for _, c := range s.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
			deadline := int32(600)
			if d.Spec.ProgressDeadlineSeconds != nil {
				deadline = *d.Spec.ProgressDeadlineSeconds
			}
			o.failure = fmt.Sprintf("no new scheduler pod became available within %ds (the Deployment's progressDeadlineSeconds): %s",
				deadline, c.Message)
		}
	}
	return o
}

// crashOf tells whether a container exited with an error, with the exit code
// and its termination message (the scheduler's own error: the operand
// container uses FallbackToLogsOnError).
func crashOf(cs corev1.ContainerStatus) (string, bool) {
	t := cs.LastTerminationState.Terminated
	if cs.State.Terminated != nil {
		t = cs.State.Terminated
	}
	if t == nil || t.ExitCode == 0 {
		return "", false
	}
	msg := fmt.Sprintf("exited with code %d", t.ExitCode)
	if m := strings.TrimSpace(t.Message); m != "" {
		// A log tail ends with the error that stopped the process: keep the end.
		msg += ": " + keepEnd(m, maxFailureMessage-len(msg)-100)
	}
	return msg, true
}

func keepEnd(s string, n int) string {
	const marker = "[...] "
	if len(s) <= n {
		return s
	}
	return marker + s[len(s)-(n-len(marker)):]
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const marker = " ... [truncated]"
	return s[:n-len(marker)] + marker
}

// rolloutDecision is what to roll out given the desired template and the
// rollout history in status.
type rolloutDecision struct {
	// rollbackTo, when set, is the configuration hash to run instead of the
	// desired one.
	rollbackTo string
	// degraded, when set, is the message of TargetConfigControllerDegraded=RolloutFailed.
	degraded string
}

// decideRollout takes back a rollout that failed: while the desired template is
// the one that failed, the Deployment runs the last configuration that ran,
// if there is one and its ConfigMap is still there. The failed template is
// tried again only once an input changes it.
func decideRollout(desired *render.Objects, status *secondaryschedulerv1.SecondarySchedulerStatus, configMapExists func(string) bool) rolloutDecision {
	failed := status.FailedRollout
	if failed == nil || failed.TemplateHash != desired.TemplateHash {
		return rolloutDecision{}
	}
	what := fmt.Sprintf("The scheduler pods of configuration %s failed: %s.\n", short(failed.ConfigHash), failed.Message)
	lkg := status.LastKnownGood
	switch {
	case lkg == nil:
		return rolloutDecision{degraded: what + "No configuration has run before, so there is nothing to roll back to. " +
			"Fix the input (spec, or the ConfigMap named by spec.schedulerConfig); it is rolled out again when it changes."}
	case lkg.ConfigHash == failed.ConfigHash:
		return rolloutDecision{degraded: what + "The configuration is the one that last ran, so something else in the " +
			"pod template (image, command, sidecars ...) made them fail. The previous pods keep serving; fix the spec."}
	case !configMapExists(render.ConfigMapNameFor(lkg.ConfigHash)):
		return rolloutDecision{degraded: what + fmt.Sprintf("ConfigMap %s of the last configuration that ran is gone, "+
			"so it cannot be rolled back to. The previous pods keep serving; fix the input.", render.ConfigMapNameFor(lkg.ConfigHash))}
	}
	return rolloutDecision{
		rollbackTo: lkg.ConfigHash,
		degraded: what + fmt.Sprintf("Rolled back to configuration %s, the last that ran. Fix the input "+
			"(spec, or the ConfigMap named by spec.schedulerConfig); it is rolled out again when it changes.", short(lkg.ConfigHash)),
	}
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// staleConfigMaps are the config ConfigMaps that can go: not the desired
// one, not the last known good one, none a pod or the Deployment mounts, and
// beyond the newest `retain` of the rest. The user's own ConfigMap is never
// one of them, whatever it is called.
func staleConfigMaps(all []*corev1.ConfigMap, keep map[string]bool, userConfig string, retain int) []string {
	var candidates []*corev1.ConfigMap
	for _, cm := range all {
		// Only what the operator made: one that merely carries our name and
		// label is someone else's. Earlier releases wrote one mutable
		// ConfigMap under the bare name; it goes on upgrade.
		former := cm.Name == render.ConfigMapName && cm.Labels[render.ManagedByLabel] == render.ManagedByValue
		if !render.IsConfigMapName(cm.Name) || keep[cm.Name] || cm.Name == userConfig || (render.ConfigMapProblem(cm) != "" && !former) {
			continue
		}
		candidates = append(candidates, cm)
	}
	sort.Slice(candidates, func(i, j int) bool {
		ti, tj := candidates[i].CreationTimestamp, candidates[j].CreationTimestamp
		if !ti.Equal(&tj) {
			return tj.Before(&ti)
		}
		return candidates[i].Name < candidates[j].Name
	})
	var stale []string
	for i, cm := range candidates {
		if i >= retain {
			stale = append(stale, cm.Name)
		}
	}
	return stale
}

// mountedConfigMaps names the ConfigMaps a pod template or pod mounts.
func mountedConfigMaps(specs ...*corev1.PodSpec) map[string]bool {
	names := map[string]bool{}
	for _, spec := range specs {
		for _, v := range spec.Volumes {
			if v.ConfigMap != nil {
				names[v.ConfigMap.Name] = true
			}
		}
	}
	return names
}

// operandPods lists the scheduler pods from the cache.
func (c *targetConfigController) operandPods() ([]*corev1.Pod, error) {
	return c.podLister.List(labels.SelectorFromSet(labels.Set{"app.kubernetes.io/name": render.OperandName}))
}

// configMapExists tells whether the config ConfigMap name exists as the
// operator made it: a rollback goes only to a configuration it can vouch for.
func (c *targetConfigController) configMapExists(name string) bool {
	cm, err := c.configMapLister.Get(name)
	return err == nil && render.ConfigMapProblem(cm) == ""
}

// applyConfigMap creates the desired config ConfigMap. One of that name that
// the operator did not make as it is (other data, not immutable ...) is
// replaced, and the replacement reported: the pods must read exactly the
// configuration that was validated.
func (c *targetConfigController) applyConfigMap(ctx context.Context, recorder events.Recorder, ss *secondaryschedulerv1.SecondaryScheduler, cm *corev1.ConfigMap) error {
	client := c.kubeClient.CoreV1().ConfigMaps(cm.Namespace)
	existing, err := c.configMapLister.Get(cm.Name)
	switch {
	case apierrors.IsNotFound(err):
		_, _, err = resourceapply.ApplyConfigMap(ctx, c.kubeClient.CoreV1(), recorder, cm)
		return err
	case err != nil:
		return err
	}
	problem := render.ConfigMapProblem(existing)
	if problem == "" {
		return nil // immutable, and its content is its name: nothing to update
	}
	if err := client.Delete(ctx, cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &existing.UID}}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("replacing ConfigMap %s/%s, which %s: %w", cm.Namespace, cm.Name, problem, err)
	}
	if _, err := client.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return err
	}
	c.recorderOn(ss).Warningf("ConfigMapReplaced", "ConfigMap %s/%s was not the configuration the operator wrote (%s); it was replaced",
		cm.Namespace, cm.Name, problem)
	recorder.Warningf("ConfigMapReplaced", "Replaced ConfigMap %s/%s: %s", cm.Namespace, cm.Name, problem)
	return nil
}

// rolloutHistory is the status's rollout record brought up to date with
// what the Deployment shows now.
type rolloutHistory struct {
	status   secondaryschedulerv1.SecondarySchedulerStatus
	observed observedRollout
}

// recordRollout notes a completed rollout as the last known good one, and a
// failing rollout of the desired template as failed (a failing rolled-back
// template is reported, never recorded, so the two cannot take turns). It
// starts from the record this controller last applied, not the cache's: the
// informer may not have delivered that write yet, and a rollback decided from
// an older copy would roll the failed template out again.
func (c *targetConfigController) recordRollout(own *ownStatus, desiredTemplate string) (rolloutHistory, error) {
	h := rolloutHistory{status: secondaryschedulerv1.SecondarySchedulerStatus{
		LastKnownGood: own.lastKnownGood.DeepCopy(),
		FailedRollout: own.failedRollout.DeepCopy(),
	}}
	d, err := c.deployments.Get(render.OperandName)
	if apierrors.IsNotFound(err) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	pods, err := c.operandPods()
	if err != nil {
		return h, err
	}
	h.observed = observeRollout(d, pods)
	o := h.observed
	if o.current.TemplateHash == "" {
		return h, nil // a Deployment of an earlier release: nothing to compare
	}
	if o.completed {
		lkg := o.current
		h.status.LastKnownGood = &lkg
		if f := h.status.FailedRollout; f != nil && o.current.TemplateHash == desiredTemplate {
			h.status.FailedRollout = nil
		}
		return h, nil
	}
	if o.failure != "" && o.current.TemplateHash == desiredTemplate {
		if f := h.status.FailedRollout; f == nil || f.TemplateHash != desiredTemplate || f.Message != o.failure {
			h.status.FailedRollout = &secondaryschedulerv1.FailedRollout{
				ConfigHash:   o.current.ConfigHash,
				TemplateHash: o.current.TemplateHash,
				Message:      o.failure,
				FailedAt:     metav1.Now(),
			}
		}
	}
	return h, nil
}

// retainedConfigs is how many superseded configurations are kept besides the
// ones in use, for a look at what ran before.
const retainedConfigs = 3

// pruneConfigMaps deletes superseded config ConfigMaps.
func (c *targetConfigController) pruneConfigMaps(ctx context.Context, recorder events.Recorder, ss *secondaryschedulerv1.SecondaryScheduler,
	objs *render.Objects, d *appsv1.Deployment, status *secondaryschedulerv1.SecondarySchedulerStatus) error {
	pods, err := c.operandPods()
	if err != nil {
		return err
	}
	specs := []*corev1.PodSpec{&d.Spec.Template.Spec}
	for _, p := range pods {
		specs = append(specs, &p.Spec)
	}
	keep := mountedConfigMaps(specs...)
	keep[objs.ConfigMap.Name] = true
	if lkg := status.LastKnownGood; lkg != nil {
		keep[render.ConfigMapNameFor(lkg.ConfigHash)] = true
	}
	all, err := c.configMapLister.List(labels.SelectorFromSet(labels.Set{render.ManagedByLabel: render.ManagedByValue}))
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range staleConfigMaps(all, keep, ss.Spec.SchedulerConfig, retainedConfigs) {
		errs = append(errs, c.deleteConfigMap(ctx, recorder, name))
	}
	return errors.Join(errs...)
}

func (c *targetConfigController) deleteConfigMap(ctx context.Context, recorder events.Recorder, name string) error {
	ns := render.OperandNamespace
	return deleteIfCached(ctx, recorder, "ConfigMap", ns, name, c.configMapLister.Get, c.kubeClient.CoreV1().ConfigMaps(ns))
}
