package simulatorrender

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

func TestRenderServiceAccountToken(t *testing.T) {
	for _, tc := range []struct {
		name     string
		template *corev1.PodTemplateSpec
		want     *bool
	}{
		{"no template: no token", nil, ptr.To(false)},
		{"a template without a word on it: no token", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{NodeName: "n"}}, ptr.To(false)},
		{"serviceAccountName: the API server's default (mounted)", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{ServiceAccountName: "builder"}}, nil},
		{"explicitly true", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{AutomountServiceAccountToken: ptr.To(true)}}, ptr.To(true)},
		{"explicitly false with a ServiceAccount", &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			ServiceAccountName: "builder", AutomountServiceAccountToken: ptr.To(false)}}, ptr.To(false)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := renderSim(newSimulator("sim", func(s *simv1alpha1.Simulator) { s.Spec.PodTemplate = tc.template }))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Pod.Spec.AutomountServiceAccountToken; (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("automountServiceAccountToken %v, want %v", ptr.Deref(got, true), ptr.Deref(tc.want, true))
			}
		})
	}
}

func TestRenderDefaultResources(t *testing.T) {
	r, err := renderSim(newSimulator("sim"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Pod.Spec.Containers {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, hasReq := c.Resources.Requests[name]
			limit, hasLimit := c.Resources.Limits[name]
			// A quota on requests.* or limits.* admits only Pods that set both.
			if !hasReq || !hasLimit || req.Cmp(limit) > 0 {
				t.Errorf("container %s: %s request %v, limit %v: both must be set, the request not above the limit", c.Name, name, req.String(), limit.String())
			}
		}
	}
	var emptyDirs int
	for _, v := range r.Pod.Spec.Volumes {
		if v.EmptyDir != nil {
			emptyDirs++
			if v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.IsZero() {
				t.Errorf("volume %s: a generated emptyDir needs a sizeLimit", v.Name)
			}
		}
	}
	if emptyDirs != 1 {
		t.Errorf("%d emptyDirs, want the etcd data one: %v", emptyDirs, r.Pod.Spec.Volumes)
	}
}

// TestRenderTemplateResourcesWin: resources is one field of the container merge:
// a template that sets it replaces the generated requests and limits whole (a
// request of the template's above a generated limit would be invalid otherwise).
func TestRenderTemplateResourcesWin(t *testing.T) {
	mine := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("4Gi")}}
	r, err := renderSim(newSimulator("sim", func(s *simv1alpha1.Simulator) {
		s.Spec.PodTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: simv1alpha1.SimulatorContainerName, Resources: mine}},
			Volumes: []corev1.Volume{{Name: etcdDataVolume, VolumeSource: corev1.VolumeSource{
				EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}},
		}}
	}))
	if err != nil {
		t.Fatal(err)
	}
	sim := container(t, r.Pod, simv1alpha1.SimulatorContainerName)
	if len(sim.Resources.Limits) != 0 || len(sim.Resources.Requests) != 1 || !sim.Resources.Requests.Memory().Equal(resource.MustParse("4Gi")) {
		t.Errorf("simulator resources %v: the template's, whole", sim.Resources)
	}
	if etcd := container(t, r.Pod, simv1alpha1.EtcdContainerName); etcd.Resources.Limits.Memory().IsZero() {
		t.Errorf("etcd resources %v: the template does not name etcd, the defaults stay", etcd.Resources)
	}
	if len(r.Pod.Spec.Volumes) != 1 || r.Pod.Spec.Volumes[0].EmptyDir.SizeLimit != nil || r.Pod.Spec.Volumes[0].EmptyDir.Medium != corev1.StorageMediumMemory {
		t.Errorf("volumes %v: the template's etcd-data replaces the generated one", r.Pod.Spec.Volumes)
	}
}
