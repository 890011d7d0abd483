package trial

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// leaky is a pod holding every kind of value and reference a snapshot must
// not copy, each containing "LEAK", and what scheduling reads.
func leaky() *corev1.Pod {
	secretEnv := corev1.EnvVar{Name: "PASSWORD", ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef:    &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "LEAK-secret-env"}, Key: "k"},
		ConfigMapKeyRef: nil,
	}}
	c := corev1.Container{
		Name: "app", Image: "registry.example/app:1", Command: []string{"LEAK-command"}, Args: []string{"--token=LEAK-arg"},
		Env: []corev1.EnvVar{{Name: "TOKEN", Value: "LEAK-env-value"}, secretEnv, {Name: "CM", ValueFrom: &corev1.EnvVarSource{
			ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "LEAK-cm-env"}, Key: "k"}}}},
		EnvFrom: []corev1.EnvFromSource{
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "LEAK-secret-envfrom"}}},
			{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "LEAK-cm-envfrom"}}},
		},
		Resources:    corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")}},
		Ports:        []corev1.ContainerPort{{ContainerPort: 8080, HostPort: 80}},
		VolumeMounts: []corev1.VolumeMount{{Name: "secret", MountPath: "/LEAK-mount"}},
	}
	init := c
	init.Name, init.RestartPolicy = "sidecar", ptr.To(corev1.ContainerRestartPolicyAlways)
	ref := corev1.LocalObjectReference{Name: "LEAK-ref"}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: map[string]string{"app": "a", PodGroupLabel: "g"},
			Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "LEAK-annotation",
				"scheduling.x-k8s.io/kept": "yes"},
			OwnerReferences: []metav1.OwnerReference{{Name: "LEAK-owner"}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "LEAK-manager"}}},
		Spec: corev1.PodSpec{
			NodeName: "node-1", SchedulerName: "secondary-scheduler", NodeSelector: map[string]string{"zone": "a"},
			Tolerations:       []corev1.Toleration{{Key: "t", Operator: corev1.TolerationOpExists}},
			PriorityClassName: "high", Priority: ptr.To[int32](1000),
			ServiceAccountName: "LEAK-sa", ImagePullSecrets: []corev1.LocalObjectReference{ref}, Hostname: "LEAK-host",
			Containers: []corev1.Container{c}, InitContainers: []corev1.Container{init},
			Volumes: []corev1.Volume{
				{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "LEAK-secret-vol"}}},
				{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: ref}}},
				{Name: "projected", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{Secret: &corev1.SecretProjection{LocalObjectReference: ref}}, {ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: ref}}}}}},
				{Name: "csi", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "csi.example", NodePublishSecretRef: &ref,
					VolumeAttributes: map[string]string{"password": "LEAK-attribute"}}}},
				{Name: "iscsi", VolumeSource: corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{TargetPortal: "10.0.0.1:3260", IQN: "iqn", SecretRef: &ref}}},
				{Name: "claim", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
				{Name: "azurefile", VolumeSource: corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "LEAK-azure"}}},
			},
		},
	}
}

func TestTrimPodKeepsNoSecretOrEnv(t *testing.T) {
	got := TrimPod(leaky())
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "LEAK") {
		t.Errorf("the trimmed pod still holds a value or reference it must not:\n%s", data)
	}
	for _, what := range []string{`"secretName"`, `"secretRef"`, `"nodePublishSecretRef"`, `"configMap"`, `"env"`, `"envFrom"`} {
		if strings.Contains(string(data), what) {
			t.Errorf("the trimmed pod has %s:\n%s", what, data)
		}
	}
	// What scheduling reads survives.
	c := got.Spec.Containers[0]
	if c.Resources.Requests.Cpu().String() != "250m" || len(c.Ports) != 1 || c.Ports[0].HostPort != 80 || c.Image == "" {
		t.Errorf("container lost requests, ports or image: %+v", c)
	}
	if got.Spec.InitContainers[0].RestartPolicy == nil {
		t.Error("the sidecar lost its restartPolicy, which counts its requests for the pod's whole life")
	}
	if got.Spec.NodeName != "node-1" || got.Spec.SchedulerName != "secondary-scheduler" || got.Spec.PriorityClassName != "high" ||
		len(got.Spec.Tolerations) != 1 || got.Spec.NodeSelector["zone"] != "a" || got.Labels[PodGroupLabel] != "g" {
		t.Errorf("scheduling fields lost: %+v", got)
	}
	if got.Spec.Priority != nil {
		t.Error("spec.priority kept: the sandbox's admission refuses it set beside a priorityClassName")
	}
	if got.Annotations["scheduling.x-k8s.io/kept"] != "yes" || len(got.Annotations) != 1 {
		t.Errorf("annotations = %v, want only the scheduler-plugins one", got.Annotations)
	}
	var kinds []string
	for _, v := range got.Spec.Volumes {
		kinds = append(kinds, v.Name)
	}
	if strings.Join(kinds, ",") != "csi,iscsi,claim" {
		t.Errorf("volumes = %v, want the kinds volume plugins count: csi,iscsi,claim", kinds)
	}
}

func TestTrimPVDropsSecretReferences(t *testing.T) {
	ref := &corev1.SecretReference{Name: "LEAK-pv-secret"}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv"}, Spec: corev1.PersistentVolumeSpec{
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h",
			NodePublishSecretRef: ref, ControllerPublishSecretRef: ref, NodeStageSecretRef: ref, VolumeAttributes: map[string]string{"k": "LEAK"}}},
		ClaimRef: &corev1.ObjectReference{Namespace: "ns", Name: "c"}}}
	cephfs := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "fs"}, Spec: corev1.PersistentVolumeSpec{
		PersistentVolumeSource: corev1.PersistentVolumeSource{CephFS: &corev1.CephFSPersistentVolumeSource{Monitors: []string{"m"}, SecretRef: ref}}}}
	for _, in := range []*corev1.PersistentVolume{pv, cephfs} {
		got := TrimPV(in)
		data, _ := json.Marshal(got)
		if strings.Contains(string(data), "LEAK") {
			t.Errorf("trimmed PV %s leaks: %s", in.Name, data)
		}
		if got.Spec.CSI == nil {
			t.Errorf("trimmed PV %s has no source; the API server refuses it", in.Name)
		}
	}
	if got := TrimPV(pv); got.Spec.ClaimRef == nil || got.Spec.ClaimRef.Name != "c" || got.Spec.CSI.VolumeHandle != "h" {
		t.Errorf("the claim or handle was lost: %+v", got.Spec)
	}
}
