package operandrunner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// What a Simulator's Pod asks of its node, read from the API, and its
// container paths mapped onto the host: there is no mount namespace.

// SimulatorPod is what the runner reads for a Simulator's Pod.
type SimulatorPod struct {
	Namespace, Name string
	UID             types.UID
	// Owner is the name of the Simulator (the pod's SimulatorSelector label).
	Owner string
	// Simulator is the "simulator" container, Etcd the "etcd" one (nil when
	// the Simulator uses an external etcd).
	Simulator, Etcd *corev1.Container
	// Volumes are the pod's volumes, ConfigMaps with their data.
	Volumes map[string]volume
}

// volume is a pod volume as the runner provides it on the host.
type volume struct {
	// files of a ConfigMap volume, by path in the volume; nil for an emptyDir.
	files map[string]string
}

// ReadSimulatorPod reads what the containers of a Simulator's Pod run with.
func ReadSimulatorPod(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod) (*SimulatorPod, error) {
	sp := &SimulatorPod{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Owner: pod.Labels[SimulatorSelector], Volumes: map[string]volume{}}
	for i := range pod.Spec.Containers {
		switch c := &pod.Spec.Containers[i]; c.Name {
		case simv1alpha1.SimulatorContainerName:
			sp.Simulator = c
		case simv1alpha1.EtcdContainerName:
			sp.Etcd = c
		}
	}
	if sp.Simulator == nil {
		return nil, fmt.Errorf("pod %s/%s has no container %q", pod.Namespace, pod.Name, simv1alpha1.SimulatorContainerName)
	}
	for _, c := range []*corev1.Container{sp.Simulator, sp.Etcd} {
		if c == nil {
			continue
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil {
				return nil, fmt.Errorf("container %s: env %s: valueFrom is not played by this harness, only value", c.Name, e.Name)
			}
		}
		for _, m := range c.VolumeMounts {
			if _, done := sp.Volumes[m.Name]; done {
				continue
			}
			v, err := readVolume(ctx, kube, pod, m.Name)
			if err != nil {
				return nil, fmt.Errorf("container %s: %w", c.Name, err)
			}
			sp.Volumes[m.Name] = v
		}
	}
	return sp, nil
}

func readVolume(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod, name string) (volume, error) {
	for _, v := range pod.Spec.Volumes {
		if v.Name != name {
			continue
		}
		switch {
		case v.EmptyDir != nil:
			return volume{}, nil
		case v.ConfigMap != nil:
			cm, err := kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
			if err != nil {
				if apierrors.IsNotFound(err) {
					return volume{}, fmt.Errorf("%w: ConfigMap %s/%s", errNoConfigMap, pod.Namespace, v.ConfigMap.Name)
				}
				return volume{}, err
			}
			files := map[string]string{}
			if len(v.ConfigMap.Items) == 0 {
				for k, d := range cm.Data {
					files[k] = d
				}
			}
			for _, item := range v.ConfigMap.Items {
				files[item.Path] = cm.Data[item.Key]
			}
			return volume{files: files}, nil
		}
		return volume{}, fmt.Errorf("volume %s: this harness plays configMap and emptyDir volumes only", name)
	}
	return volume{}, fmt.Errorf("volume %s is mounted but not in the pod's volumes", name)
}

// rewriter maps a value of container c's environment or arguments from the
// container's file system to the host's: a path under one of c's volume mounts
// goes to the volume's directory. Ports need nothing: the pod has its own
// network namespace.
func (n *simulatorNetwork) rewriter(c *corev1.Container) func(string) string {
	mounts := append([]corev1.VolumeMount(nil), c.VolumeMounts...)
	// The longest mount path first: a path is under the innermost mount.
	sort.Slice(mounts, func(i, j int) bool { return len(mounts[i].MountPath) > len(mounts[j].MountPath) })
	return func(v string) string {
		for _, m := range mounts {
			if rest, ok := strings.CutPrefix(v, m.MountPath); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
				return filepath.Join(n.dir, "volumes", m.Name) + rest
			}
		}
		return v
	}
}

// rewriteArg rewrites the value of a "--flag=value" or a lone value.
func rewriteArg(a string, rw func(string) string) string {
	if name, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") {
		return name + "=" + rw(v)
	}
	return rw(a)
}

// writeVolumes writes ConfigMap volumes' files afresh, and creates emptyDirs
// once: they outlive a container's restart, as in a pod.
func writeVolumes(dir string, volumes map[string]volume) error {
	for name, v := range volumes {
		vdir := filepath.Join(dir, "volumes", name)
		if v.files == nil {
			if err := os.MkdirAll(vdir, 0o700); err != nil {
				return err
			}
			continue
		}
		if err := os.RemoveAll(vdir); err != nil {
			return err
		}
		for path, data := range v.files {
			f := filepath.Join(vdir, path)
			if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(f, []byte(data), 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}
