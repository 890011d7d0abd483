package manifests

import (
	"os"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestOperatorRequestsAndNoLimits: the operator's Deployment follows
// OpenShift's conventions for cluster components: every container requests
// CPU and memory and sets no limit, and no GOMEMLIMIT stands in for one.
// docs/operator.md ("The operator's own resources") gives the requests and why.
func TestOperatorRequestsAndNoLimits(t *testing.T) {
	var deployment *appsv1.Deployment
	for _, obj := range manifestObjects(t) {
		if obj["kind"] == "Deployment" {
			if d := decode[appsv1.Deployment](t, obj); d.Namespace == operatorNamespace {
				deployment = &d
			}
		}
	}
	if deployment == nil {
		t.Fatalf("no Deployment in %s in manifests/", operatorNamespace)
	}
	doc, err := os.ReadFile(operatorDoc)
	if err != nil {
		t.Fatal(err)
	}
	const heading = "### The operator's own resources"
	_, section, ok := strings.Cut(string(doc), heading)
	if !ok {
		t.Fatalf("%s has no %q", operatorDoc, heading)
	}
	section, _, _ = strings.Cut(section, "\n#")
	spec := deployment.Spec.Template.Spec
	for _, c := range append(spec.InitContainers, spec.Containers...) {
		if len(c.Resources.Limits) > 0 {
			t.Errorf("container %s sets limits %v: cluster components set none (docs/operator.md, %q)", c.Name, c.Resources.Limits, heading)
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			q, ok := c.Resources.Requests[r]
			if !ok || q.IsZero() {
				t.Errorf("container %s requests no %s", c.Name, r)
				continue
			}
			if !strings.Contains(strings.ToLower(section), strings.ToLower(q.String()+" of "+string(r))) {
				t.Errorf("%s, %q, does not say the %s request, %q of %s", operatorDoc, heading, r, q.String(), r)
			}
		}
		for _, e := range c.Env {
			if e.Name == "GOMEMLIMIT" {
				t.Errorf("container %s sets GOMEMLIMIT %q: with no limit it only makes the collector run hot", c.Name, e.Value)
			}
		}
	}
}
