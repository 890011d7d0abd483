package render

import (
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
