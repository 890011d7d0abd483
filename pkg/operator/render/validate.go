package render

import (
	"path"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// configMountPath is where the scheduler container reads the merged config.
const configMountPath = "/etc/secondary-scheduler"

// validateSpec repeats the admission rules of the CRD (the render command reads
// files no API server has admitted) and adds the cross-field checks admission
// cannot do, so a bad spec is refused here rather than by the Deployment's
// API server validation, with the SecondaryScheduler field named.
func validateSpec(ss *secondaryschedulerv1.SecondaryScheduler, servingCert bool, errs *problem.List) {
	src := "SecondaryScheduler " + ss.Name
	spec := &ss.Spec
	if ss.Name != secondaryschedulerv1.SingletonName {
		errs.Addf(src, "metadata.name", "must be %q: a SecondaryScheduler is a singleton", secondaryschedulerv1.SingletonName)
	}
	if spec.SchedulerImage == "" {
		errs.Addf(src, "spec.schedulerImage", "required: the image of the scheduler (any kube-scheduler build with your plugins)")
	}
	// The bare secondary-scheduler-config is the name OpenShift's docs give the
	// user's ConfigMap (the operator's own went by it before they were named by
	// content); only the content-named ones are the operator's.
	if strings.HasPrefix(spec.SchedulerConfig, names.ConfigMapName+"-") {
		errs.Addf(src, "spec.schedulerConfig", "%q is a name the operator gives its own ConfigMaps (%s-<hash>); name yours otherwise",
			spec.SchedulerConfig, names.ConfigMapName)
	}
	if spec.Replicas != nil && *spec.Replicas < 1 {
		errs.Addf(src, "spec.replicas", "must be at least 1, not %d; set managementState: Removed to stop the scheduler", *spec.Replicas)
	}
	if _, ok := verbosity[spec.LogLevel]; !ok {
		errs.Addf(src, "spec.logLevel", "%q is not one of Normal, Debug, Trace, TraceAll", spec.LogLevel)
	}

	volumes := checkVolumes(src, spec.Volumes, servingCert, errs)
	checkUserContainers(src, spec, volumes, errs)

	if r := spec.RBAC; r != nil {
		checkRules(src, "spec.rbac.clusterRules", r.ClusterRules, true, errs)
		checkRules(src, "spec.rbac.namespacedRules", r.NamespacedRules, false, errs)
	}

	checkSchedulerArgs(src, spec.SchedulerContainer, errs)
	if sc := spec.SchedulerContainer; sc != nil {
		p := "spec.schedulerContainer.volumeMounts"
		checkMounts(src, p, sc.VolumeMounts, volumes, errs)
		for i, m := range sc.VolumeMounts {
			if path.Clean(m.MountPath) == configMountPath {
				errs.Addf(src, problem.Index(p, i)+".mountPath", "%s holds the merged scheduler configuration; mount elsewhere", configMountPath)
			}
		}
	}
}

// checkVolumes refuses unnamed, reserved and duplicate spec.volumes, and
// returns every volume a container may mount.
func checkVolumes(src string, list []corev1.Volume, servingCert bool, errs *problem.List) map[string]bool {
	volumes := map[string]bool{
		secondaryschedulerv1.ConfigVolumeName:      true,
		secondaryschedulerv1.ServingCertVolumeName: servingCert,
		secondaryschedulerv1.APIAccessVolumeName:   true,
	}
	for i, v := range list {
		p := problem.Index("spec.volumes", i) + ".name"
		switch {
		case v.Name == "":
			errs.Addf(src, p, "required")
		case v.Name == secondaryschedulerv1.ConfigVolumeName || v.Name == secondaryschedulerv1.ServingCertVolumeName ||
			v.Name == secondaryschedulerv1.APIAccessVolumeName:
			errs.Addf(src, p, "%q is reserved for the operator; choose another name", v.Name)
		case volumes[v.Name]:
			errs.Addf(src, p, "duplicate %q", v.Name)
		default:
			volumes[v.Name] = true
		}
	}
	return volumes
}

// checkUserContainers refuses sidecars and init containers without a name or
// image, named like another or the scheduler, or mounting a volume that is
// not there: sidecars and init containers share one name space.
func checkUserContainers(src string, spec *secondaryschedulerv1.SecondarySchedulerSpec, volumes map[string]bool, errs *problem.List) {
	containers := map[string]string{secondaryschedulerv1.SchedulerContainerName: "the scheduler container"}
	for _, group := range []struct {
		field string
		list  []corev1.Container
	}{{"spec.sidecars", spec.Sidecars}, {"spec.initContainers", spec.InitContainers}} {
		for i := range group.list {
			c := &group.list[i]
			p := problem.Index(group.field, i)
			switch prev, dup := containers[c.Name]; {
			case c.Name == "":
				errs.Addf(src, p+".name", "required")
			case c.Name == secondaryschedulerv1.SchedulerContainerName:
				errs.Addf(src, p+".name", "%q is reserved for the scheduler container; choose another name", c.Name)
			case dup:
				errs.Addf(src, p+".name", "duplicate %q (also %s); sidecars and initContainers share one name space", c.Name, prev)
			default:
				containers[c.Name] = p
			}
			if c.Image == "" {
				errs.Addf(src, p+".image", "required")
			}
			checkMounts(src, p+".volumeMounts", c.VolumeMounts, volumes, errs)
		}
	}
}

// checkRules catches the rules the API server would refuse, so the problem names
// the SecondaryScheduler field rather than a ClusterRole the user never wrote.
func checkRules(src, field string, rules []rbacv1.PolicyRule, cluster bool, errs *problem.List) {
	for i, r := range rules {
		p := problem.Index(field, i)
		if len(r.Verbs) == 0 {
			errs.Addf(src, p+".verbs", "required, e.g. [get, list, watch]")
		}
		for _, l := range []struct {
			field  string
			n, max int
		}{
			{"apiGroups", len(r.APIGroups), 16}, {"resources", len(r.Resources), 64}, {"verbs", len(r.Verbs), 16},
			{"resourceNames", len(r.ResourceNames), 64}, {"nonResourceURLs", len(r.NonResourceURLs), 32},
		} {
			if l.n > l.max {
				errs.Addf(src, p+"."+l.field, "lists %d; at most %d, split the rule in two", l.n, l.max)
			}
		}
		// The ceiling check compares each apiGroup, resource, verb and name
		// combination: bounded before anything is expanded.
		if n := RuleExpansion(r); n > MaxRuleExpansion {
			errs.Addf(src, p, "grants %d combinations of apiGroups, resources, verbs and resourceNames; at most %d, split the rule", n, MaxRuleExpansion)
		}
		switch {
		case len(r.NonResourceURLs) > 0 && !cluster:
			errs.Addf(src, p+".nonResourceURLs", "only clusterRules can grant non-resource URLs")
		case len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.APIGroups) > 0):
			errs.Addf(src, p+".nonResourceURLs", "a rule grants either resources or non-resource URLs; split it in two")
		case len(r.NonResourceURLs) == 0 && (len(r.Resources) == 0 || len(r.APIGroups) == 0):
			errs.Addf(src, p, `needs apiGroups and resources (apiGroups: [""] is the core group)`)
		}
	}
}

// MaxRuleExpansion bounds the combinations one spec.rbac rule grants: a
// sidecar's real rules are tens.
const MaxRuleExpansion = 4096

// RuleExpansion is how many single rules r breaks down into, as RBAC checks
// compare them, counted without building them.
func RuleExpansion(r rbacv1.PolicyRule) int {
	atLeastOne := func(n int) int { return max(n, 1) }
	if len(r.NonResourceURLs) > 0 {
		return len(r.NonResourceURLs) * atLeastOne(len(r.Verbs))
	}
	return atLeastOne(len(r.APIGroups)) * atLeastOne(len(r.Resources)) * atLeastOne(len(r.Verbs)) * atLeastOne(len(r.ResourceNames))
}

func checkMounts(src, field string, mounts []corev1.VolumeMount, volumes map[string]bool, errs *problem.List) {
	for i, m := range mounts {
		if volumes[m.Name] {
			continue
		}
		if m.Name == secondaryschedulerv1.ServingCertVolumeName {
			errs.Addf(src, problem.Index(field, i)+".name", "volume %q exists only once service-ca has issued Secret %s", m.Name, names.ServingCertSecretName)
			continue
		}
		errs.Addf(src, problem.Index(field, i)+".name", "no volume %q; add it to spec.volumes", m.Name)
	}
}

// verbosity maps spec.logLevel to kube-scheduler's -v. TraceAll is 10, not 8:
// kube-scheduler logs plugin scores and per-node filter results at V(10), which
// is what someone asking for everything wants (cluster-kube-scheduler-operator
// does the same).
var verbosity = map[operatorv1.LogLevel]int{
	"":                  2,
	operatorv1.Normal:   2,
	operatorv1.Debug:    4,
	operatorv1.Trace:    6,
	operatorv1.TraceAll: 10,
}
