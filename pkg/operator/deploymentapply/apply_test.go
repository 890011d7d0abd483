package deploymentapply

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestPatchNamesTheUID(t *testing.T) {
	existing := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", UID: "uid-1", Annotations: map[string]string{"a": "1"}}}
	desired := existing.DeepCopy()
	desired.Spec.Replicas = ptr.To[int32](2)
	patch, err := Patch(existing, desired)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"metadata":{"uid":"uid-1"},"spec":{"replicas":2}}`; string(patch) != want {
		t.Errorf("patch %s, want %s", patch, want)
	}
}
