package render

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

func TestSchedulerSecurityContextOverlaysTheRestrictedDefault(t *testing.T) {
	objs, err := Render(withSpec(func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
		spec.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{SecurityContext: &corev1.SecurityContext{
			RunAsUser: ptr.To[int64](65532), ReadOnlyRootFilesystem: ptr.To(false),
		}}
	}))
	if err != nil {
		t.Fatal(err)
	}
	sc := objs.Deployment.Spec.Template.Spec.Containers[0].SecurityContext
	if sc.RunAsUser == nil || *sc.RunAsUser != 65532 || sc.ReadOnlyRootFilesystem == nil || *sc.ReadOnlyRootFilesystem {
		t.Errorf("user's fields not applied: %+v", sc)
	}
	if sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("unset fields lost the restricted default: %+v", sc)
	}
}

func TestUserContainersWithoutSecurityContextRunRestricted(t *testing.T) {
	own := &corev1.SecurityContext{RunAsUser: ptr.To[int64](0), RunAsNonRoot: ptr.To(false)}
	objs, err := Render(withSpec(func(spec *secondaryschedulerv1.SecondarySchedulerSpec) {
		spec.Sidecars = []corev1.Container{{Name: "plain", Image: "x"}, {Name: "own", Image: "x", SecurityContext: own}}
		spec.InitContainers = []corev1.Container{{Name: "init", Image: "x"}}
	}))
	if err != nil {
		t.Fatal(err)
	}
	pod := objs.Deployment.Spec.Template.Spec
	for _, c := range []corev1.Container{pod.Containers[1], pod.InitContainers[0]} {
		if sc := c.SecurityContext; sc == nil || !*sc.RunAsNonRoot || *sc.AllowPrivilegeEscalation || sc.Capabilities.Drop[0] != "ALL" {
			t.Errorf("container %s: %+v, want the restricted defaults", c.Name, sc)
		}
	}
	if got := pod.Containers[2].SecurityContext; got.RunAsNonRoot == nil || *got.RunAsNonRoot || got.AllowPrivilegeEscalation != nil {
		t.Errorf("a container's own securityContext is kept as written, got %+v", got)
	}
}

// TestPodSecurityRefusesWhatBaselineForbids: what the operand namespace's
// enforced level refuses is refused with the SecondaryScheduler field named,
// and what baseline allows passes (root, a writable root file system).
func TestPodSecurityRefusesWhatBaselineForbids(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*secondaryschedulerv1.SecondarySchedulerSpec)
		want   []string
	}{
		{"root is baseline", func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Sidecars = []corev1.Container{{Name: "root", Image: "x", SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](0)}}}
		}, nil},
		{"privileged sidecar", func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Sidecars = []corev1.Container{{Name: "ok", Image: "x"}, {Name: "priv", Image: "x", SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}
		}, []string{`SecondaryScheduler cluster: spec.sidecars[1]: namespace openshift-secondary-scheduler enforces Pod Security "baseline", which forbids privileged`}},
		{"added capability in an init container", func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.InitContainers = []corev1.Container{{Name: "cap", Image: "x", SecurityContext: &corev1.SecurityContext{
				Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}}}}}
		}, []string{"spec.initContainers[0]: ", "SYS_ADMIN"}},
		{"host port", func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Sidecars = []corev1.Container{{Name: "hp", Image: "x", Ports: []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}}}}
		}, []string{"spec.sidecars[0]: ", "hostPort"}},
		{"hostPath volume", func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Volumes = []corev1.Volume{{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
		}, []string{"spec.volumes: ", "hostPath"}},
		{"privileged scheduler container", func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}
		}, []string{"spec.schedulerContainer.securityContext: ", "privileged"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(withSpec(tt.mutate))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !IsInputError(err) {
				t.Fatalf("got %v, want an InputError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestPodSecurityFollowsTheNamespace: the level is the namespace's, as an
// administrator labels it: privileged lets a privileged sidecar through,
// restricted refuses a sidecar that runs as root.
func TestPodSecurityFollowsTheNamespace(t *testing.T) {
	privileged := withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.Sidecars = []corev1.Container{{Name: "priv", Image: "x", SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}
	})
	privileged.PodSecurityEnforce = "privileged"
	if _, err := Render(privileged); err != nil {
		t.Errorf("a privileged sidecar where the namespace enforces privileged: %v", err)
	}
	root := withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.Sidecars = []corev1.Container{{Name: "root", Image: "x", SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](0)}}}
	})
	root.PodSecurityEnforce = "restricted"
	if _, err := Render(root); err == nil || !strings.Contains(err.Error(), `spec.sidecars[0]: namespace openshift-secondary-scheduler enforces Pod Security "restricted"`) {
		t.Errorf("a root sidecar where the namespace enforces restricted: %v", err)
	}
	root.PodSecurityEnforce = "no-such-level"
	if _, err := Render(root); err == nil || !strings.Contains(err.Error(), `"restricted"`) {
		t.Errorf("an unknown level is read as restricted: %v", err)
	}
	// Without a label: the default, baseline, which lets root through.
	root.PodSecurityEnforce = ""
	if _, err := Render(root); err != nil {
		t.Errorf("a root sidecar under the default baseline: %v", err)
	}
}
