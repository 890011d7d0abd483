package rollout

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

func withImage(d *appsv1.Deployment, image string) *appsv1.Deployment {
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "sidecar", Image: "other"}, {Name: names.OperandName, Image: image}}
	return d
}

// A change of configuration or image rolls out under strategy Trial only
// once a trial of exactly that change allowed it; anything else waits on the
// running Deployment and says why.
func TestGate(t *testing.T) {
	live := withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
	newConfig := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	newImage := &render.Objects{TemplateHash: "t3", ConfigHash: "cfg-t1", Deployment: withImage(&appsv1.Deployment{}, "img:2")}
	sameChange := &render.Objects{TemplateHash: "t4", ConfigHash: "cfg-t1", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	result := func(hash, image string, v secondaryschedulerv1.TrialVerdict) *secondaryschedulerv1.TrialResult {
		candidate := withImage(&appsv1.Deployment{}, image)
		key := NewTrialRequest(TrialArm(live, "cfg-t1"), TrialArm(candidate, hash), nil).Key
		return &secondaryschedulerv1.TrialResult{Key: key, ConfigHash: hash, Image: image, Verdict: v, Message: "6 newly unschedulable (NodeAffinity)",
			Counts: &secondaryschedulerv1.TrialCounts{Units: 6}, Gate: &secondaryschedulerv1.TrialGate{}}
	}
	tests := []struct {
		name        string
		desired     *render.Objects
		live        *appsv1.Deployment
		trial       Trial
		wantAction  Action
		wantMessage string
	}{
		{"Direct rolls out", newConfig, live, Trial{}, RollOut, ""},
		{"first rollout: nothing to compare with", newConfig, nil, Trial{Required: true}, RollOut, ""},
		{"neither configuration nor image changed (replicas, resources ...)", sameChange, live, Trial{Required: true}, RollOut, ""},
		{"no trial yet", newConfig, live, Trial{Required: true}, Gate, "is starting"},
		{"a trial of another change does not count", newConfig, live,
			Trial{Required: true, Last: result("cfg-t9", "img:1", secondaryschedulerv1.TrialAllowed)}, Gate, "is starting"},
		{"same configuration, other image", newImage, live,
			Trial{Required: true, Last: result("cfg-t1", "img:1", secondaryschedulerv1.TrialAllowed)}, Gate, "is starting"},
		{"running", newConfig, live, Trial{Required: true, Last: result("cfg-t2", "img:1", secondaryschedulerv1.TrialRunning)}, Gate, "is running"},
		{"allowed, no digest reported", newConfig, live, Trial{Required: true, Last: result("cfg-t2", "img:1", secondaryschedulerv1.TrialAllowed)},
			RollOut, "the tag rolls out as it is"},
		{"blocked", newConfig, live, Trial{Required: true, Last: result("cfg-t2", "img:1", secondaryschedulerv1.TrialBlocked)}, Gate, "The trial found: 6 newly"},
		{"failed", newImage, live, Trial{Required: true, Last: result("cfg-t1", "img:2", secondaryschedulerv1.TrialFailed)}, Gate, "could not run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var observed Observed
			if tc.live != nil {
				observed = Observe(tc.live, nil)
			}
			d := Decide(Inputs{Desired: tc.desired, Live: tc.live, Observed: observed, Trial: tc.trial})
			if d.Action != tc.wantAction {
				t.Fatalf("action = %s, want %s (%s)", d.Action, tc.wantAction, d.Message)
			}
			if (tc.wantMessage == "") != (d.Message == "") || !strings.Contains(d.Message, tc.wantMessage) {
				t.Errorf("message = %q, want it to contain %q", d.Message, tc.wantMessage)
			}
			switch d.Action {
			case Gate:
				if r := d.TrialRequest; d.Deployment != nil || d.ConfigHash != "cfg-t1" || r == nil || r.Candidate.ConfigHash != tc.desired.ConfigHash ||
					r.Candidate.Image != SchedulerImage(tc.desired.Deployment) || r.Current.ConfigHash != "cfg-t1" {
					t.Errorf("gated: deployment %v, config %s, request %+v; want the live one kept and the desired change requested",
						d.Deployment, d.ConfigHash, d.TrialRequest)
				}
			case RollOut:
				if d.Deployment != tc.desired.Deployment || d.TrialRequest != nil {
					t.Errorf("rolls out %v (request %+v), want the desired Deployment", d.Deployment, d.TrialRequest)
				}
			}
		})
	}
}

// A failing rollout is taken back as before: the gate tries changes, never
// the way back.
func TestGateNeverHoldsARollback(t *testing.T) {
	rollback := &render.Pinned{Deployment: withImage(&appsv1.Deployment{}, "img:1"), ConfigHash: "c1", TemplateHash: "t1"}
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "c2", Deployment: withImage(&appsv1.Deployment{}, "img:1"), Rollback: rollback}
	live := withImage(deployment("t2", appsv1.DeploymentStatus{Replicas: 1}), "img:1")
	d := Decide(Inputs{Desired: desired, Live: live, Trial: Trial{Required: true}, Record: Record{
		LastKnownGood: &secondaryschedulerv1.Rollout{TemplateHash: "t1", ConfigHash: "c1"},
		FailedRollout: &secondaryschedulerv1.FailedRollout{TemplateHash: "t2", ConfigHash: "c2", Message: "boom"}}})
	if d.Action != RollBack || d.Deployment != rollback.Deployment {
		t.Errorf("action = %s, want RollBack to the last configuration that ran", d.Action)
	}
}

// A verdict counts only for the gate it was judged by: with another gate, or
// without counts, the change waits for the trial controller to judge it
// again, and an allowed verdict of the same gate rolls out.
func TestGateNeedsAVerdictOfTheCurrentGate(t *testing.T) {
	live := withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
	live.Spec.Template.Annotations = map[string]string{names.ConfigHashAnnotation: "cfg-t1"}
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	widened := &secondaryschedulerv1.TrialPolicy{MaxNewlyUnschedulable: ptr.To[int32](2)}
	key := NewTrialRequest(TrialArm(live, "cfg-t1"), TrialArm(desired.Deployment, "cfg-t2"), nil).Key
	counts := &secondaryschedulerv1.TrialCounts{Units: 10, Same: 4, Moved: 4, NewlyUnschedulable: 2}
	tests := []struct {
		name        string
		gate        *secondaryschedulerv1.TrialGate
		counts      *secondaryschedulerv1.TrialCounts
		policy      *secondaryschedulerv1.TrialPolicy
		wantAction  Action
		wantMessage string
	}{
		{"judged by the gate as it is", &secondaryschedulerv1.TrialGate{MaxNewlyUnschedulable: 2}, counts, widened, RollOut, ""},
		{"judged by an earlier gate", &secondaryschedulerv1.TrialGate{}, counts, widened, Gate, "being judged"},
		{"no gate recorded", nil, counts, nil, Gate, "being judged"},
		{"no counts", &secondaryschedulerv1.TrialGate{}, nil, nil, Gate, "being judged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			last := &secondaryschedulerv1.TrialResult{Key: key, ConfigHash: "cfg-t2", Image: "img:1", Verdict: secondaryschedulerv1.TrialAllowed,
				Counts: tc.counts, Gate: tc.gate}
			d := Decide(Inputs{Desired: desired, Live: live, Observed: Observe(live, nil), Trial: Trial{Required: true, Policy: tc.policy, Last: last}})
			if d.Action != tc.wantAction || !strings.Contains(d.Message, tc.wantMessage) {
				t.Errorf("%s %q, want %s with %q", d.Action, d.Message, tc.wantAction, tc.wantMessage)
			}
		})
	}
}

// A change of the arguments alone is a change of the scheduler: it is tried.
func TestGateTriesAChangeOfArguments(t *testing.T) {
	live := withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
	live.Spec.Template.Annotations = map[string]string{names.ConfigHashAnnotation: "cfg-t1"}
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t1", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	desired.Deployment.Spec.Template.Spec.Containers[1].Args = []string{"--config=/etc/x", "--feature-gates=A=true"}
	d := Decide(Inputs{Desired: desired, Live: live, Observed: Observe(live, nil), Trial: Trial{Required: true}})
	if d.Action != Gate || d.TrialRequest == nil || strings.Join(d.TrialRequest.Candidate.Args, " ") != "--feature-gates=A=true" {
		t.Errorf("%s, request %+v; want held for a trial of the new arguments, without the flag the trial sets", d.Action, d.TrialRequest)
	}
}

// A verdict of another request, one past verdictTTLSeconds, and an
// inconclusive one never let the change through; a fresh allowed verdict of
// the same request does.
func TestGateRefusesStaleForeignAndInconclusiveVerdicts(t *testing.T) {
	live := withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
	live.Spec.Template.Annotations = map[string]string{names.ConfigHashAnnotation: "cfg-t1"}
	desired := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t2", Deployment: withImage(&appsv1.Deployment{}, "img:1")}
	key := NewTrialRequest(TrialArm(live, "cfg-t1"), TrialArm(desired.Deployment, "cfg-t2"), nil).Key
	now := metav1.Now()
	hourAgo, twoDaysAgo := metav1.NewTime(now.Add(-time.Hour)), metav1.NewTime(now.Add(-48*time.Hour))
	counts := &secondaryschedulerv1.TrialCounts{Units: 10, Same: 10}
	for _, tc := range []struct {
		name        string
		key         string
		verdict     secondaryschedulerv1.TrialVerdict
		finished    metav1.Time
		policy      *secondaryschedulerv1.TrialPolicy
		wantAction  Action
		wantMessage string
	}{
		{"fresh and allowed", key, secondaryschedulerv1.TrialAllowed, hourAgo, nil, RollOut, ""},
		{"another request's", "other", secondaryschedulerv1.TrialAllowed, hourAgo, nil, Gate, "is starting"},
		{"past the default TTL", key, secondaryschedulerv1.TrialAllowed, twoDaysAgo, nil, Gate, "is starting"},
		{"past a shorter TTL", key, secondaryschedulerv1.TrialAllowed, hourAgo, &secondaryschedulerv1.TrialPolicy{VerdictTTLSeconds: ptr.To[int32](600)}, Gate, "is starting"},
		{"inconclusive", key, secondaryschedulerv1.TrialInconclusive, hourAgo, nil, Gate, "inconclusive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			last := &secondaryschedulerv1.TrialResult{Key: tc.key, ConfigHash: "cfg-t2", Image: "img:1", Verdict: tc.verdict,
				Counts: counts, Gate: &secondaryschedulerv1.TrialGate{}, FinishedAt: &tc.finished}
			d := Decide(Inputs{Desired: desired, Live: live, Observed: Observe(live, nil), Now: now,
				Trial: Trial{Required: true, Policy: tc.policy, Last: last}})
			if d.Action != tc.wantAction || !strings.Contains(d.Message, tc.wantMessage) {
				t.Errorf("%s %q, want %s with %q", d.Action, d.Message, tc.wantAction, tc.wantMessage)
			}
			if tc.wantAction == Gate && d.TrialRequest == nil {
				t.Error("the change is held without a trial request")
			}
		})
	}
}

// The key covers the whole scheduler process: a change of its env, envFrom
// or mounts alone, or of a volume it mounts, is tried; the same environment
// written again is not a change.
func TestGateTriesAChangeOfEnvironment(t *testing.T) {
	withEnvironment := func(d *appsv1.Deployment, edit func(c *corev1.Container, pod *corev1.PodSpec)) *appsv1.Deployment {
		c := &d.Spec.Template.Spec.Containers[1]
		c.Env = []corev1.EnvVar{{Name: "GOMAXPROCS", Value: "2"}}
		c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/kubernetes"}}
		d.Spec.Template.Spec.Volumes = []corev1.Volume{
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cfg"}}}},
			{Name: "unmounted", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		}
		if edit != nil {
			edit(c, &d.Spec.Template.Spec)
		}
		return d
	}
	live := withEnvironment(withImage(deployment("t1", appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1"), nil)
	for _, tc := range []struct {
		name     string
		edit     func(c *corev1.Container, pod *corev1.PodSpec)
		wantGate bool
	}{
		{"the same environment", nil, false},
		{"resources only", func(c *corev1.Container, _ *corev1.PodSpec) {
			c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
		}, false},
		{"a volume no scheduler container mounts", func(_ *corev1.Container, pod *corev1.PodSpec) {
			pod.Volumes[1].EmptyDir.Medium = corev1.StorageMediumMemory
		}, false},
		{"an env value", func(c *corev1.Container, _ *corev1.PodSpec) { c.Env[0].Value = "4" }, true},
		{"an env variable added", func(c *corev1.Container, _ *corev1.PodSpec) {
			c.Env = append(c.Env, corev1.EnvVar{Name: "HTTPS_PROXY", Value: "http://proxy:3128"})
		}, true},
		{"envFrom", func(c *corev1.Container, _ *corev1.PodSpec) {
			c.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}}}
		}, true},
		{"a mount added", func(c *corev1.Container, _ *corev1.PodSpec) {
			c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "unmounted", MountPath: "/plugins"})
		}, true},
		{"a mount's path", func(c *corev1.Container, _ *corev1.PodSpec) { c.VolumeMounts[0].MountPath = "/etc/other" }, true},
		{"the source of a mounted volume", func(_ *corev1.Container, pod *corev1.PodSpec) { pod.Volumes[0].ConfigMap.Name = "other" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := &render.Objects{TemplateHash: "t2", ConfigHash: "cfg-t1",
				Deployment: withEnvironment(withImage(&appsv1.Deployment{}, "img:1"), tc.edit)}
			d := Decide(Inputs{Desired: desired, Live: live, Observed: Observe(live, nil), Trial: Trial{Required: true}})
			if gated := d.Action == Gate; gated != tc.wantGate {
				t.Fatalf("action %s (%s), want gated %v", d.Action, d.Message, tc.wantGate)
			}
			if !tc.wantGate {
				return
			}
			r := d.TrialRequest
			if r == nil || r.Current.EnvironmentHash == "" || r.Current.EnvironmentHash == r.Candidate.EnvironmentHash {
				t.Fatalf("request %+v; want both arms' environment hashes, differing", r)
			}
			if unchanged := NewTrialRequest(r.Current, r.Current, nil); unchanged.Key == r.Key {
				t.Error("the key does not change with the environment")
			}
		})
	}
}

// The live Deployment carries the API server's defaults (volumes'
// defaultMode, a token's expiry), which the rendered one lacks: the
// environment as rendered (names.EnvironmentHashAnnotation) keys both arms,
// so the running scheduler is not a change from itself, while a change of its
// environment still is.
func TestGateReadsTheEnvironmentAsRendered(t *testing.T) {
	rendered := func(template, configMap string) *appsv1.Deployment {
		d := withImage(deployment(template, appsv1.DeploymentStatus{Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}), "img:1")
		c := &d.Spec.Template.Spec.Containers[1]
		c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/kubernetes"}, {Name: "token", MountPath: "/var/run/token"}}
		d.Spec.Template.Spec.Volumes = []corev1.Volume{
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}},
			{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}},
		}
		d.Spec.Template.Annotations[names.EnvironmentHashAnnotation] = render.EnvironmentHash(*c, d.Spec.Template.Spec.Volumes)
		return d
	}
	defaulted := func(d *appsv1.Deployment) *appsv1.Deployment {
		v := d.Spec.Template.Spec.Volumes
		v[0].ConfigMap.DefaultMode = ptr.To[int32](0o644)
		v[1].Projected.DefaultMode = ptr.To[int32](0o644)
		v[1].Projected.Sources[0].ServiceAccountToken.ExpirationSeconds = ptr.To[int64](3600)
		return d
	}
	live := defaulted(rendered("t1", "cfg"))
	for _, tc := range []struct {
		name     string
		desired  *appsv1.Deployment
		wantGate bool
	}{
		{"the running template", rendered("t1", "cfg"), false},
		{"a template change that leaves the scheduler's process", rendered("t2", "cfg"), false},
		{"a mounted ConfigMap of another name", rendered("t2", "other"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := &render.Objects{TemplateHash: TemplateHash(tc.desired), ConfigHash: "cfg-t1", Deployment: tc.desired}
			d := Decide(Inputs{Desired: desired, Live: live, Observed: Observe(live, nil), Trial: Trial{Required: true}})
			if gated := d.Action == Gate; gated != tc.wantGate {
				t.Fatalf("action %s (%s), want gated %v", d.Action, d.Message, tc.wantGate)
			}
		})
	}
	// A Deployment of a release before the annotation is hashed as it is.
	old := defaulted(rendered("t1", "cfg"))
	delete(old.Spec.Template.Annotations, names.EnvironmentHashAnnotation)
	if TrialArm(old, "").EnvironmentHash == TrialArm(rendered("t1", "cfg"), "").EnvironmentHash {
		t.Error("without the annotation the defaulted volumes hash as the rendered ones")
	}
}
