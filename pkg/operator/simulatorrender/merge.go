package simulatorrender

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
)

// mergeContainers puts the generated containers first, each overridden field by
// field by the template container of the same name, then the template's other
// containers in their order.
func mergeContainers(generated, template []corev1.Container) []corev1.Container {
	return mergeByKey(generated, template, func(g, t *corev1.Container) bool { return g.Name == t.Name }, mergeContainer)
}

// mergeContainer overrides the generated container field by field: a field the
// template sets wins, a field it leaves unset keeps the generated value. Lists
// with a key merge by it, the template's entry winning: env by name, ports by name
// or containerPort, volumeMounts by mountPath. Every other field (command, args,
// resources, probes, securityContext ...) is taken whole from the template when
// set there.
func mergeContainer(generated, template corev1.Container) corev1.Container {
	out := generated
	dst := reflect.ValueOf(&out).Elem()
	src := reflect.ValueOf(template)
	for i := 0; i < src.NumField(); i++ {
		if f := src.Field(i); !f.IsZero() {
			dst.Field(i).Set(f)
		}
	}
	out.Env = mergeEnv(generated.Env, template.Env)
	out.Ports = mergePorts(generated.Ports, template.Ports)
	out.VolumeMounts = mergeVolumeMounts(generated.VolumeMounts, template.VolumeMounts)
	return out
}

// mergeByKey keeps the generated entries in order, each combined with the
// template entry that matches it, and appends the template's unmatched entries.
func mergeByKey[T any](generated, template []T, match func(g, t *T) bool, combine func(g, t T) T) []T {
	if len(template) == 0 {
		return generated
	}
	out := make([]T, 0, len(generated)+len(template))
	used := make([]bool, len(template))
	for gi := range generated {
		entry := generated[gi]
		for ti := range template {
			if !used[ti] && match(&generated[gi], &template[ti]) {
				used[ti] = true
				entry = combine(generated[gi], template[ti])
				break
			}
		}
		out = append(out, entry)
	}
	for ti := range template {
		if !used[ti] {
			out = append(out, template[ti])
		}
	}
	return out
}

func mergeEnv(generated, template []corev1.EnvVar) []corev1.EnvVar {
	return mergeByKey(generated, template, func(g, t *corev1.EnvVar) bool { return g.Name == t.Name }, templateWins[corev1.EnvVar])
}

func mergePorts(generated, template []corev1.ContainerPort) []corev1.ContainerPort {
	return mergeByKey(generated, template, func(g, t *corev1.ContainerPort) bool {
		if t.Name != "" && t.Name == g.Name {
			return true
		}
		return t.ContainerPort == g.ContainerPort && protocol(t.Protocol) == protocol(g.Protocol)
	}, templateWins[corev1.ContainerPort])
}

func protocol(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

func mergeVolumeMounts(generated, template []corev1.VolumeMount) []corev1.VolumeMount {
	return mergeByKey(generated, template, func(g, t *corev1.VolumeMount) bool { return g.MountPath == t.MountPath }, templateWins[corev1.VolumeMount])
}

func mergeVolumes(generated, template []corev1.Volume) []corev1.Volume {
	return mergeByKey(generated, template, func(g, t *corev1.Volume) bool { return g.Name == t.Name }, templateWins[corev1.Volume])
}

func mountsVolume(containers []corev1.Container, volume string) bool {
	for i := range containers {
		for _, m := range containers[i].VolumeMounts {
			if m.Name == volume {
				return true
			}
		}
	}
	return false
}

func templateWins[T any](_, template T) T { return template }
