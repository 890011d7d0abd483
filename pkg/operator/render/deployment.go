package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

const servingCertMountPath = "/var/run/secrets/serving-cert"

// renderDeployment patches the Deployment template with the spec. Every value
// taken from the spec is deep-copied: the result must never alias the informer
// cache the SecondaryScheduler came from. Only what changes the pod goes into the
// pod template, so a change elsewhere (managementState, operatorLogLevel, rbac)
// does not roll the pods.
// It returns the Deployment and the hash of its pod template.
func renderDeployment(d *appsv1.Deployment, ss *secondaryschedulerv1.SecondaryScheduler, observed observedConfig, configHash string, servingCert bool) (*appsv1.Deployment, string, error) {
	spec := ss.Spec.DeepCopy()
	pod := &d.Spec.Template.Spec
	c := &pod.Containers[0]

	c.Image = spec.SchedulerImage
	c.Args = schedulerArgs(spec, observed, servingCert)
	if sc := spec.SchedulerContainer; sc != nil {
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
	if servingCert {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{
			Name: secondaryschedulerv1.ServingCertVolumeName, MountPath: servingCertMountPath, ReadOnly: true,
		})
		pod.Volumes = append(pod.Volumes, corev1.Volume{
			Name:         secondaryschedulerv1.ServingCertVolumeName,
			VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: ServingCertSecretName}},
		})
	}

	// User containers run as written, but one that says nothing of its
	// security runs restricted: no forced UID, read-only root or probes.
	pod.Containers = append(pod.Containers, withRestrictedDefaults(spec.Sidecars)...)
	pod.InitContainers = withRestrictedDefaults(spec.InitContainers)
	pod.Volumes = append(pod.Volumes, spec.Volumes...)

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

	if d.Spec.Template.Annotations == nil {
		d.Spec.Template.Annotations = map[string]string{}
	}
	// Each configuration has its own immutable ConfigMap, so a change of it
	// changes the pod template and rolls the pods.
	d.Spec.Template.Annotations[ConfigHashAnnotation] = configHash
	for i := range pod.Volumes {
		if v := &pod.Volumes[i]; v.Name == secondaryschedulerv1.ConfigVolumeName {
			v.ConfigMap.Name = ConfigMapNameFor(configHash)
		}
	}
	// Hashed as rendered, before the template hash itself is added.
	data, err := json.Marshal(&d.Spec.Template)
	if err != nil {
		return nil, "", fmt.Errorf("encoding the pod template: %w", err)
	}
	sum := sha256.Sum256(data)
	templateHash := hex.EncodeToString(sum[:8])
	d.Spec.Template.Annotations[TemplateHashAnnotation] = templateHash
	return d, templateHash, nil
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
	args = append(args, "--config="+configMountPath+"/"+ConfigKey)
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
