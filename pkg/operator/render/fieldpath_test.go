package render

import (
	"path/filepath"
	"strconv"
	"testing"
)

func TestSpecField(t *testing.T) {
	// kubeflux-sidecar: one sidecar, spec.volumes, and the operator's config volume.
	in := readInputs(t, filepath.Join("testdata", "input", "kubeflux-sidecar.yaml"))
	objs, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	ss := in.SecondaryScheduler
	if len(ss.Spec.Sidecars) == 0 || len(ss.Spec.Volumes) == 0 {
		t.Fatalf("the example lost its sidecar or volumes: %+v", ss.Spec)
	}
	offset := len(objs.Deployment.Spec.Template.Spec.Volumes) - len(ss.Spec.Volumes)
	for _, tc := range []struct{ deployment, want string }{
		{"spec.template.spec.containers[1].resources.requests", "spec.sidecars[0].resources.requests"},
		{"spec.template.spec.containers[1]", "spec.sidecars[0]"},
		{"spec.template.spec.volumes[" + strconv.Itoa(offset) + "].hostPath.path", "spec.volumes[0].hostPath.path"},
		{"spec.template.spec.containers[0].image", ""},       // the scheduler container: the operator's
		{"spec.template.spec.containers[9].image", ""},       // no such sidecar
		{"spec.template.spec.initContainers[0].name", ""},    // no init containers here
		{"spec.template.spec.volumes[0].configMap.name", ""}, // the operator's config volume
		{"spec.template.spec.nodeSelector", ""},              // not from a list
		{"metadata.name", ""},
	} {
		got, ok := SpecField(ss, objs, tc.deployment)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("SpecField(%s) = %q, %v; want %q", tc.deployment, got, ok, tc.want)
		}
	}
}
