package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// operatorNamespace is where manifests/ install the operator.
const operatorNamespace = "openshift-secondary-scheduler-operator"

// releaseAnnotations are what the cluster-version operator selects manifests
// by; every object in manifests/ carries them.
var releaseAnnotations = []string{
	"include.release.openshift.io/self-managed-high-availability",
	"include.release.openshift.io/single-node-developer",
}

// optionalGroups are APIs a plain Kubernetes cluster does not serve: objects of
// them live in manifests/optional/, so that `kubectl apply -f manifests/` works
// everywhere. So do objects only the cluster-version operator handles right
// (create-only: created once, never reverted).
var optionalGroups = map[string]bool{"config.openshift.io": true, "monitoring.coreos.com": true}

// openshiftNamespaces are namespaces only OpenShift has: objects in them live
// in manifests/optional/ too, whatever their API group (the console's
// dashboard ConfigMap in openshift-config-managed).
var openshiftNamespaces = map[string]bool{"openshift-config-managed": true}

const createOnlyAnnotation = "release.openshift.io/create-only"

// TestManifests (offline): every manifest object carries the release
// annotations; manifests/ itself holds only APIs plain Kubernetes serves, in
// namespaces it has (the e2e run applies it before any OpenShift CRD exists),
// and nothing create-only; manifests/optional holds only the others; the
// operator Deployment's image is the one image-references lets the release
// payload replace.
func TestManifests(t *testing.T) {
	for _, dir := range []string{"manifests", "manifests/optional"} {
		files, err := filepath.Glob(repoPath(t, dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no manifests in %s", dir)
		}
		for _, f := range files {
			for _, obj := range readObjects(t, f) {
				what := filepath.Join(dir, filepath.Base(f)) + ": " + obj.GetKind() + " " + obj.GetName()
				if obj.GetKind() != "CustomResourceDefinition" { // generated: TestCRDsCarryReleaseAnnotations
					checkReleaseAnnotations(t, what, obj)
				}
				group := obj.GroupVersionKind().Group
				createOnly := obj.GetAnnotations()[createOnlyAnnotation] == "true"
				openshiftOnly := openshiftNamespaces[obj.GetNamespace()]
				switch optional := dir == "manifests/optional"; {
				case !optional && optionalGroups[group]:
					t.Errorf("%s (API group %q) belongs in manifests/optional/: plain Kubernetes does not serve it", what, group)
				case !optional && openshiftOnly:
					t.Errorf("%s belongs in manifests/optional/: plain Kubernetes has no namespace %s", what, obj.GetNamespace())
				case !optional && createOnly:
					t.Errorf("%s belongs in manifests/optional/: it is %s, which `kubectl apply -f manifests/` ignores", what, createOnlyAnnotation)
				case optional && !optionalGroups[group] && !createOnly && !openshiftOnly:
					t.Errorf("%s belongs in manifests/: plain Kubernetes serves API group %q", what, group)
				}
				if !strings.HasPrefix(filepath.Base(f), "0000_") {
					t.Errorf("%s: the file name has no 0000_NN_ prefix", what)
				}
			}
		}
	}

	refs, err := os.ReadFile(repoPath(t, "manifests", "image-references"))
	if err != nil {
		t.Fatal(err)
	}
	var stream struct {
		Kind string
		Spec struct {
			Tags []struct {
				Name string
				From struct{ Kind, Name string }
			}
		}
	}
	if err := yaml.Unmarshal(refs, &stream); err != nil || stream.Kind != "ImageStream" {
		t.Fatalf("manifests/image-references is not an ImageStream: %v", err)
	}
	images := map[string]bool{}
	for _, tag := range stream.Spec.Tags {
		images[tag.From.Name] = true
	}
	d := &appsv1.Deployment{}
	data, err := os.ReadFile(repoPath(t, "manifests", "0000_50_secondary-scheduler-operator_08_deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, d); err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if !images[c.Image] {
			t.Errorf("the operator Deployment's container %s runs %s, which image-references does not list", c.Name, c.Image)
		}
	}
}

// TestCRDsCarryReleaseAnnotations (offline): the generated CRDs carry the
// release annotations too; without them the cluster-version operator, which
// applies only manifests included in the cluster's profile, skips them. They
// come from +kubebuilder:metadata:annotations markers on the API types
// (`make update` regenerates manifests/).
func TestCRDsCarryReleaseAnnotations(t *testing.T) {
	files, err := filepath.Glob(repoPath(t, "manifests", "*.crd.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in manifests/: %v", err)
	}
	for _, f := range files {
		for _, obj := range readObjects(t, f) {
			checkReleaseAnnotations(t, filepath.Join("manifests", filepath.Base(f))+": "+obj.GetName()+
				" (add // +kubebuilder:metadata:annotations=\"<annotation>=true\" to the API type, then make update)", obj)
		}
	}
}

func checkReleaseAnnotations(t *testing.T, what string, obj *unstructured.Unstructured) {
	t.Helper()
	for _, a := range releaseAnnotations {
		if obj.GetAnnotations()[a] != "true" {
			t.Errorf("%s lacks the release annotation %s", what, a)
		}
	}
}

func readObjects(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("%s: %v", path, err)
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

// TestOperatorDeploymentRuns: the operator Deployment of manifests/ is valid and
// restricted-compliant: in its namespace, which enforces the restricted pod
// security profile, its ReplicaSet creates the pod and kwok runs it. (Its
// container runs nothing here: the operator under test is the host process.)
func TestOperatorDeploymentRuns(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	ns, err := c.admin.Kube.CoreV1().Namespaces().Get(ctx, operatorNamespace, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ns.Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
		t.Errorf("namespace %s enforces pod security %q, want restricted", ns.Name, got)
	}
	var d *appsv1.Deployment
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the operator Deployment to be available", func() (bool, error) {
		d, err = c.admin.Kube.AppsV1().Deployments(operatorNamespace).Get(ctx, "secondary-scheduler-operator", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if d.Status.AvailableReplicas < 1 {
			return false, fmt.Errorf("%d available; %s", d.Status.AvailableReplicas, c.replicaSetFailures(ctx, d))
		}
		return true, nil
	})
	c.expectPodsCreated(t, d)
}
