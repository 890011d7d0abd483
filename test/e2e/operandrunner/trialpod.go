package operandrunner

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// What a trial Pod asks of its node, read from the API.

const (
	// TrialSelector selects trial Pods (in the operand namespace).
	TrialSelector = "app.kubernetes.io/name=secondary-scheduler-trial"
	// TrialArmLabel names a trial Pod's arm.
	TrialArmLabel = "trial.secondary-scheduler.openshift.io/arm"

	// The containers of a trial Pod: two native sidecars, in this order, then
	// the arm's scheduler.
	TrialEtcdContainer      = "etcd"
	TrialAPIServerContainer = "kube-apiserver"
	TrialSchedulerContainer = "scheduler"
	// TrialAPIServerPort is the sandbox kube-apiserver's port, forwarded from
	// the Pod IP on the host.
	TrialAPIServerPort = 6443
	// TrialMetricsPort is the scheduler's metrics port, and TrialEtcdPort the
	// etcd's TLS port the operator writes the snapshot into, forwarded
	// likewise.
	TrialMetricsPort = 10259
	TrialEtcdPort    = 2382
)

// trialSidecars are the init containers of a trial Pod, in the order they start.
var trialSidecars = []string{TrialEtcdContainer, TrialAPIServerContainer}

// TrialPod is what the runner reads for a trial Pod.
type TrialPod struct {
	Namespace, Name string
	UID             types.UID
	// Arm is the pod's TrialArmLabel.
	Arm string
	// Sidecars are the init containers etcd and kube-apiserver, in order.
	Sidecars []*corev1.Container
	// Scheduler is the container "scheduler".
	Scheduler *corev1.Container
	// Volumes are the pod's volumes, Secrets with their data.
	Volumes map[string]volume
	// RestartPolicy is the pod's (the scheduler's; sidecars restart always).
	RestartPolicy corev1.RestartPolicy
}

// ReadTrialPod reads what the containers of a trial Pod run with.
func ReadTrialPod(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod) (*TrialPod, error) {
	tp := &TrialPod{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, Arm: pod.Labels[TrialArmLabel], RestartPolicy: pod.Spec.RestartPolicy}
	if err := checkTrialSidecars(pod.Spec.InitContainers); err != nil {
		return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	for i := range pod.Spec.InitContainers {
		tp.Sidecars = append(tp.Sidecars, &pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		if c := &pod.Spec.Containers[i]; c.Name == TrialSchedulerContainer {
			tp.Scheduler = c
		}
	}
	if tp.Scheduler == nil {
		return nil, fmt.Errorf("pod %s/%s: spec.containers has no container %q", pod.Namespace, pod.Name, TrialSchedulerContainer)
	}
	var err error
	if tp.Volumes, err = readMountedVolumes(ctx, kube, pod, append(tp.Sidecars, tp.Scheduler)...); err != nil {
		return nil, err
	}
	return tp, nil
}

// checkTrialSidecars says what is wrong with a trial Pod's init containers:
// exactly etcd then kube-apiserver, both native sidecars.
func checkTrialSidecars(inits []corev1.Container) error {
	var got []string
	for _, c := range inits {
		got = append(got, c.Name)
	}
	if strings.Join(got, ",") != strings.Join(trialSidecars, ",") {
		return fmt.Errorf("spec.initContainers are [%s], want [%s]", strings.Join(got, " "), strings.Join(trialSidecars, " "))
	}
	for i, c := range inits {
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			return fmt.Errorf("spec.initContainers[%d] (%s): restartPolicy must be Always (a native sidecar, running beside the scheduler)", i, c.Name)
		}
	}
	return nil
}

// rewriteFiles maps, in the files of a volume mounted at mountPath, every path
// under mountPath to the volume's directory on the host: a file may name
// another of its volume (config.yaml names /etc/trial/kubeconfig), and there
// is no mount namespace to make the container's path true.
func rewriteFiles(files map[string]string, mountPath, hostDir string) map[string]string {
	out := make(map[string]string, len(files))
	prefix := strings.TrimSuffix(mountPath, "/") + "/"
	for name, data := range files {
		out[name] = strings.ReplaceAll(data, prefix, hostDir+"/")
	}
	return out
}
