package render

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	psapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// restrictedDefaults is what a user container that says nothing of its
// security gets: the restricted profile's container fields (the pod already
// sets seccomp RuntimeDefault). One that needs more says so itself.
func restrictedDefaults() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		RunAsNonRoot:             ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// withRestrictedDefaults returns the containers, those without a
// securityContext given restrictedDefaults.
func withRestrictedDefaults(containers []corev1.Container) []corev1.Container {
	for i := range containers {
		if containers[i].SecurityContext == nil {
			containers[i].SecurityContext = restrictedDefaults()
		}
	}
	return containers
}

var podSecurityEvaluator = sync.OnceValue(func() policy.Evaluator {
	e, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		panic(fmt.Sprintf("pod security checks: %v", err)) // the library's own checks: a build bug
	}
	return e
})

// PodSecurityEnforceLabel is the label that names the level a namespace enforces.
const PodSecurityEnforceLabel = psapi.EnforceLevelLabel

// PodSecurityLabels are the Pod Security labels the operand namespace gets
// when it lacks them, as manifests/ set them: the scheduler container is
// restricted, and so is a user container without a securityContext, while a
// sidecar that needs more runs where an administrator allows it. A label an
// administrator set is left as it is.
var PodSecurityLabels = map[string]string{
	psapi.EnforceLevelLabel: string(psapi.LevelBaseline),
	psapi.AuditLevelLabel:   string(psapi.LevelRestricted),
	psapi.WarnLevelLabel:    string(psapi.LevelRestricted),
}

// enforcedLevel is the level the operand namespace enforces, given the value
// of its enforce label ("" when it has none: the operator puts the default
// back). An unknown value is read as restricted, the strictest.
func enforcedLevel(label string) psapi.Level {
	if label == "" {
		label = PodSecurityLabels[psapi.EnforceLevelLabel]
	}
	level, err := psapi.ParseLevel(label)
	if err != nil {
		return psapi.LevelRestricted
	}
	return level
}

// checkPodSecurity refuses, with the SecondaryScheduler field named, whatever
// in the rendered pod the namespace's enforced Pod Security level forbids (an
// administrator may label the namespace stricter or looser): the
// ReplicaSet controller could never create such a pod, and the rollout would
// hang instead. Each user container and the user's volumes are checked on
// their own, with the API server's own Pod Security checks, so a problem
// names the field it comes from.
func checkPodSecurity(src string, ss *secondaryschedulerv1.SecondaryScheduler, d *corev1.PodTemplateSpec, level psapi.Level, errs *problem.List) {
	if level == psapi.LevelPrivileged {
		return
	}
	lv := psapi.LevelVersion{Level: level, Version: psapi.LatestVersion()}
	pod := &d.Spec
	check := func(field string, spec *corev1.PodSpec) {
		results := podSecurityEvaluator().EvaluatePod(lv, &d.ObjectMeta, spec)
		if agg := policy.AggregateCheckResults(results); !agg.Allowed {
			errs.Addf(src, field, "namespace %s enforces Pod Security %q, which forbids %s; "+
				"remove it, or run it elsewhere (a pod the namespace refuses would never start)",
				names.OperandNamespace, level, agg.ForbiddenDetail())
		}
	}
	bare := pod.DeepCopy()
	bare.Containers, bare.InitContainers, bare.Volumes = nil, nil, nil
	if len(ss.Spec.Volumes) > 0 {
		v := bare.DeepCopy()
		v.Volumes = ss.Spec.Volumes
		check("spec.volumes", v)
	}
	if ss.Spec.SchedulerContainer != nil && ss.Spec.SchedulerContainer.SecurityContext != nil {
		c := bare.DeepCopy()
		c.Containers = pod.Containers[:1]
		check("spec.schedulerContainer.securityContext", c)
	}
	byName := map[string]corev1.Container{}
	for _, c := range append(append([]corev1.Container{}, pod.Containers...), pod.InitContainers...) {
		byName[c.Name] = c
	}
	for _, user := range []struct {
		field string
		list  []corev1.Container
	}{{"spec.sidecars", ss.Spec.Sidecars}, {"spec.initContainers", ss.Spec.InitContainers}} {
		for i := range user.list {
			c := bare.DeepCopy()
			c.Containers = []corev1.Container{byName[user.list[i].Name]}
			check(problem.Index(user.field, i), c)
		}
	}
}
