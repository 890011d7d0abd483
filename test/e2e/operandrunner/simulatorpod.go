package operandrunner

import (
	"context"
	"errors"
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
	var err error
	if sp.Volumes, err = readMountedVolumes(ctx, kube, pod, sp.Simulator, sp.Etcd); err != nil {
		return nil, err
	}
	return sp, nil
}

// readMountedVolumes reads the volumes that containers (nil ones skipped)
// mount, and refuses an environment the runner cannot give them.
func readMountedVolumes(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod, containers ...*corev1.Container) (map[string]volume, error) {
	volumes := map[string]volume{}
	for _, c := range containers {
		if c == nil {
			continue
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil {
				return nil, fmt.Errorf("container %s: env %s: valueFrom is not played by this harness, only value", c.Name, e.Name)
			}
		}
		for _, m := range c.VolumeMounts {
			if _, done := volumes[m.Name]; done {
				continue
			}
			v, err := readVolume(ctx, kube, pod, m.Name)
			if err != nil {
				return nil, fmt.Errorf("container %s: %w", c.Name, err)
			}
			volumes[m.Name] = v
		}
	}
	return volumes, nil
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
			return volume{files: volumeFiles(cm.Data, v.ConfigMap.Items)}, nil
		case v.Secret != nil:
			secret, err := kube.CoreV1().Secrets(pod.Namespace).Get(ctx, v.Secret.SecretName, metav1.GetOptions{})
			if err != nil {
				if apierrors.IsNotFound(err) {
					return volume{}, fmt.Errorf("%w: Secret %s/%s", errNoSecret, pod.Namespace, v.Secret.SecretName)
				}
				return volume{}, err
			}
			data := map[string]string{}
			for k, d := range secret.Data {
				data[k] = string(d)
			}
			return volume{files: volumeFiles(data, v.Secret.Items)}, nil
		}
		return volume{}, fmt.Errorf("volume %s: this harness plays configMap, secret and emptyDir volumes only", name)
	}
	return volume{}, fmt.Errorf("volume %s is mounted but not in the pod's volumes", name)
}

// errNoSecret says a Secret a pod's volume names does not exist (yet): a
// kubelet keeps such a pod in ContainerCreating.
var errNoSecret = errors.New("the pod's Secret does not exist")

// volumeFiles are the files of a ConfigMap or Secret volume with data: every
// key, or the items named.
func volumeFiles(data map[string]string, items []corev1.KeyToPath) map[string]string {
	files := map[string]string{}
	if len(items) == 0 {
		for k, d := range data {
			files[k] = d
		}
	}
	for _, item := range items {
		files[item.Path] = data[item.Key]
	}
	return files
}

// rewriter maps a value of container c's environment or arguments from the
// container's file system to the host's: a path under one of c's volume mounts
// goes to the volume's directory. Ports need nothing: the pod has its own
// network namespace.
func (n *simulatorNetwork) rewriter(c *corev1.Container) func(string) string {
	return volumeRewriter(n.dir, c)
}

// volumeRewriter maps a path under one of c's volume mounts to the volume's
// directory under the pod's directory dir.
func volumeRewriter(dir string, c *corev1.Container) func(string) string {
	mounts := append([]corev1.VolumeMount(nil), c.VolumeMounts...)
	// The longest mount path first: a path is under the innermost mount.
	sort.Slice(mounts, func(i, j int) bool { return len(mounts[i].MountPath) > len(mounts[j].MountPath) })
	return func(v string) string {
		for _, m := range mounts {
			if rest, ok := strings.CutPrefix(v, m.MountPath); ok && (rest == "" || strings.HasPrefix(rest, "/")) {
				return volumeDir(dir, m.Name) + rest
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

// volumeDir is where volume name of the pod whose directory is dir lives.
func volumeDir(dir, name string) string { return filepath.Join(dir, "volumes", name) }

// writeVolumes writes ConfigMap volumes' files afresh, and creates emptyDirs
// once: they outlive a container's restart, as in a pod.
func writeVolumes(dir string, volumes map[string]volume) error {
	for name, v := range volumes {
		vdir := volumeDir(dir, name)
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
