package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

const servingCertMountPath = "/var/run/secrets/serving-cert"

// renderDeployment patches the Deployment template with the spec, in the
// steps below; SpecField, after them, is their inverse. Every value taken
// from the spec is deep-copied: the result must never alias the informer
// cache the SecondaryScheduler came from. Only what changes the pod goes into
// the pod template, so a change elsewhere (managementState,
// operatorLogLevel, rbac) does not roll the pods.
// It returns the Deployment and the hash of its pod template.
func renderDeployment(d *appsv1.Deployment, ss *secondaryschedulerv1.SecondaryScheduler, observed observedConfig, configHash string, servingCert bool) (*appsv1.Deployment, string, error) {
	spec := ss.Spec.DeepCopy()
	pod := &d.Spec.Template.Spec
	schedulerContainer(&pod.Containers[0], spec, observed, servingCert)
	if servingCert {
		servingCertificate(pod)
	}
	userContainers(pod, spec)
	placement(d, spec)
	templateHash, err := hashes(d, configHash)
	return d, templateHash, err
}

// schedulerContainer is the first container: the user's image, command and
// settings around the flags the operator owns.
func schedulerContainer(c *corev1.Container, spec *secondaryschedulerv1.SecondarySchedulerSpec, observed observedConfig, servingCert bool) {
	c.Image = spec.SchedulerImage
	c.Args = schedulerArgs(spec, observed, servingCert)
	sc := spec.SchedulerContainer
	if sc == nil {
		return
	}
	if len(sc.Command) > 0 {
		c.Command = sc.Command
	}
	c.Env = sc.Env
	if sc.Resources != nil {
		c.Resources = *sc.Resources
	}
	c.VolumeMounts = append(c.VolumeMounts, sc.VolumeMounts...)
	c.SecurityContext = overlaySecurityContext(c.SecurityContext, sc.SecurityContext)
}

// servingCertificate mounts the certificate service-ca issued into the
// scheduler container; its volume follows the operator's own volumes.
func servingCertificate(pod *corev1.PodSpec) {
	c := &pod.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{
		Name: secondaryschedulerv1.ServingCertVolumeName, MountPath: servingCertMountPath, ReadOnly: true,
	})
	pod.Volumes = append(pod.Volumes, corev1.Volume{
		Name:         secondaryschedulerv1.ServingCertVolumeName,
		VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: names.ServingCertSecretName}},
	})
}

// userContainers appends the sidecars after the scheduler container, the
// init containers, and spec.volumes after the operator's volumes. User
// containers run as written, but one that says nothing of its security runs
// restricted: no forced UID, read-only root or probes.
func userContainers(pod *corev1.PodSpec, spec *secondaryschedulerv1.SecondarySchedulerSpec) {
	pod.Containers = append(pod.Containers, withRestrictedDefaults(spec.Sidecars)...)
	pod.InitContainers = withRestrictedDefaults(spec.InitContainers)
	pod.Volumes = append(pod.Volumes, spec.Volumes...)
}

// placement sets the replicas and where they run; several replicas prefer
// distinct nodes.
func placement(d *appsv1.Deployment, spec *secondaryschedulerv1.SecondarySchedulerSpec) {
	pod := &d.Spec.Template.Spec
	replicas := int32(1)
	if spec.Replicas != nil {
		replicas = *spec.Replicas
	}
	d.Spec.Replicas = &replicas
	if p := spec.Placement; p != nil {
		pod.NodeSelector = p.NodeSelector
		pod.Tolerations = p.Tolerations
		pod.Affinity = p.Affinity
		if p.PriorityClassName != "" {
			pod.PriorityClassName = p.PriorityClassName
		}
	}
	if replicas > 1 && pod.Affinity == nil {
		pod.Affinity = spreadOverNodes(d.Spec.Selector)
	}
}

// hashes points the pod template at the configuration's immutable ConfigMap
// and marks it with the configuration's hash, the scheduler's environment's
// (a trial's key reads it) and its own: a change of any rolls the pods, and a
// failing rollout is known by its template hash.
func hashes(d *appsv1.Deployment, configHash string) (string, error) {
	if d.Spec.Template.Annotations == nil {
		d.Spec.Template.Annotations = map[string]string{}
	}
	d.Spec.Template.Annotations[names.ConfigHashAnnotation] = configHash
	for i := range d.Spec.Template.Spec.Volumes {
		if v := &d.Spec.Template.Spec.Volumes[i]; v.Name == secondaryschedulerv1.ConfigVolumeName {
			v.ConfigMap.Name = names.ConfigMapNameFor(configHash)
		}
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == names.OperandName {
			d.Spec.Template.Annotations[names.EnvironmentHashAnnotation] = EnvironmentHash(c, d.Spec.Template.Spec.Volumes)
		}
	}
	// Hashed as rendered, before the template hash itself is added.
	data, err := json.Marshal(&d.Spec.Template)
	if err != nil {
		return "", fmt.Errorf("encoding the pod template: %w", err)
	}
	sum := sha256.Sum256(data)
	templateHash := hex.EncodeToString(sum[:8])
	d.Spec.Template.Annotations[names.TemplateHashAnnotation] = templateHash
	return templateHash, nil
}

// EnvironmentHash is the hex SHA-256 of the canonical JSON of c's env,
// envFrom and volumeMounts and of the volumes they mount, in mount order:
// what the scheduler process reads besides its image, arguments and
// configuration. A value the env takes from a Secret or ConfigMap counts by
// its reference, as the pod names it.
func EnvironmentHash(c corev1.Container, volumes []corev1.Volume) string {
	byName := map[string]corev1.Volume{}
	for _, v := range volumes {
		byName[v.Name] = v
	}
	mounted := []corev1.Volume{}
	seen := map[string]bool{}
	for _, m := range c.VolumeMounts {
		if v, ok := byName[m.Name]; ok && !seen[m.Name] {
			seen[m.Name] = true
			mounted = append(mounted, v)
		}
	}
	data, _ := json.Marshal(struct { // API types with sorted maps: cannot fail, always the same bytes
		Env          []corev1.EnvVar        `json:"env"`
		EnvFrom      []corev1.EnvFromSource `json:"envFrom"`
		VolumeMounts []corev1.VolumeMount   `json:"volumeMounts"`
		Volumes      []corev1.Volume        `json:"volumes"`
	}{c.Env, c.EnvFrom, c.VolumeMounts, mounted})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// podTemplateField matches a field of the Deployment's pod spec that comes from
// a list the SecondaryScheduler fills: containers, initContainers or volumes.
var podTemplateField = regexp.MustCompile(`^spec\.template\.spec\.(containers|initContainers|volumes)\[(\d+)\](.*)$`)

// SpecField names the SecondaryScheduler field a field of the rendered
// Deployment (as the API server names it when it refuses the Deployment) comes
// from, for the sidecars, init containers and volumes the user wrote:
// spec.template.spec.containers[2].ports[0] is spec.sidecars[1].ports[0]. It
// follows renderDeployment's layout: the scheduler container first, then the
// sidecars; the operator's volumes (config, serving certificate) first, then
// spec.volumes. ok is false for a field the operator itself wrote.
func SpecField(ss *secondaryschedulerv1.SecondaryScheduler, objs *Objects, deploymentField string) (field string, ok bool) {
	m := podTemplateField.FindStringSubmatch(deploymentField)
	if m == nil {
		return "", false
	}
	i, err := strconv.Atoi(m[2])
	if err != nil {
		return "", false
	}
	spec := &ss.Spec
	switch m[1] {
	case "containers":
		if i == 0 {
			return "", false // the scheduler container
		}
		if j := i - 1; j < len(spec.Sidecars) {
			return fmt.Sprintf("spec.sidecars[%d]%s", j, m[3]), true
		}
	case "initContainers":
		if i < len(spec.InitContainers) {
			return fmt.Sprintf("spec.initContainers[%d]%s", i, m[3]), true
		}
	case "volumes":
		offset := len(objs.Deployment.Spec.Template.Spec.Volumes) - len(spec.Volumes)
		if j := i - offset; j >= 0 && j < len(spec.Volumes) {
			return fmt.Sprintf("spec.volumes[%d]%s", j, m[3]), true
		}
	}
	return "", false
}

// RefusedSpecFields turns the API server's refusal of the Deployment into the
// SecondaryScheduler fields the user wrote (sidecars, init containers,
// volumes): the API server's own validation of a container, reported where
// the user can find it. ok is false when a refused field is not one of those.
func RefusedSpecFields(ss *secondaryschedulerv1.SecondaryScheduler, objs *Objects, err error) (string, bool) {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil || len(status.Status().Details.Causes) == 0 {
		return "", false
	}
	var lines []string
	for _, cause := range status.Status().Details.Causes {
		field, ok := SpecField(ss, objs, cause.Field)
		if !ok {
			return "", false
		}
		lines = append(lines, fmt.Sprintf("SecondaryScheduler %s: %s: %s", ss.Name, field, cause.Message))
	}
	return strings.Join(lines, "\n"), true
}

// overlaySecurityContext sets the fields the user set over the default: JSON
// decoding into a filled struct replaces exactly the fields present.
func overlaySecurityContext(def, user *corev1.SecurityContext) *corev1.SecurityContext {
	if user == nil {
		return def
	}
	merged := def.DeepCopy()
	raw, err := json.Marshal(user)
	if err != nil {
		return merged
	}
	if err := json.Unmarshal(raw, merged); err != nil {
		return merged
	}
	return merged
}

// schedulerArgs are the user's args followed by the flags the operator sets,
// each left out when the user's args already set it (the user's choice wins).
func schedulerArgs(spec *secondaryschedulerv1.SecondarySchedulerSpec, observed observedConfig, servingCert bool) []string {
	var user []string
	if spec.SchedulerContainer != nil {
		user = spec.SchedulerContainer.Args
	}
	args := append([]string(nil), user...)
	add := func(flag, value string) {
		if !hasFlag(user, flag) {
			args = append(args, fmt.Sprintf("--%s=%s", flag, value))
		}
	}
	// Never in the user's args: validateSpec refuses it.
	args = append(args, "--config="+configMountPath+"/"+names.ConfigKey)
	if !hasFlag(user, "v") {
		args = append(args, fmt.Sprintf("-v=%d", verbosity[spec.LogLevel]))
	}
	if servingCert {
		add("tls-cert-file", servingCertMountPath+"/tls.crt")
		add("tls-private-key-file", servingCertMountPath+"/tls.key")
	}
	if observed.minTLSVersion != "" {
		add("tls-min-version", observed.minTLSVersion)
	}
	if len(observed.cipherSuites) > 0 {
		add("tls-cipher-suites", strings.Join(observed.cipherSuites, ","))
	}
	return args
}

// hasFlag tells whether args set the flag, in any spelling kube-scheduler reads.
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if name, _, ok := flagName(a); ok && name == flag {
			return true
		}
	}
	return false
}

// spreadOverNodes prefers one scheduler pod per node, so losing a node does not
// take the leader and its standbys at once; preferred, so a small cluster still
// runs every replica.
func spreadOverNodes(selector *metav1.LabelSelector) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: selector.DeepCopy(),
				TopologyKey:   corev1.LabelHostname,
			},
		}},
	}}
}
