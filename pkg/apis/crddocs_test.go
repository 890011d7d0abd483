package apis_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestCRDsDocumentTheirFields guards what `kubectl explain` shows, and that a
// client-side `kubectl apply` can store each CRD in its last-applied annotation.
func TestCRDsDocumentTheirFields(t *testing.T) {
	for file, paths := range map[string][][]string{
		secondarySchedulerCRD: {
			{"spec"}, {"spec", "schedulerImage"}, {"spec", "schedulerConfig"}, {"spec", "sidecars"},
			{"spec", "initContainers"}, {"spec", "volumes"}, {"spec", "rbac"}, {"spec", "rbac", "clusterRules"},
			{"spec", "placement"}, {"spec", "replicas"}, {"spec", "schedulerContainer", "command"},
			{"status", "schedulerNames"}, {"status", "configHash"},
		},
		simulatorCRD: {
			{"spec", "kubeAPIServerPort"}, {"spec", "simulatorServerPort"}, {"spec", "kubeSchedulerConfigurationPath"},
			{"spec", "etcdURL"}, {"spec", "corsAllowedOriginList"}, {"spec", "image"}, {"spec", "podTemplate"},
			{"status", "phase"}, {"status", "message"}, {"status", "kubeAPIServerURL"},
		},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "manifests", file))
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(raw, crd); err != nil {
			t.Fatal(err)
		}
		for _, path := range paths {
			node := *crd.Spec.Versions[0].Schema.OpenAPIV3Schema
			for _, step := range path {
				next, ok := node.Properties[step]
				if !ok {
					t.Fatalf("%s: no field %v", file, path)
				}
				node = next
			}
			if len(node.Description) < 20 {
				t.Errorf("%s: field %v has no useful description (%q)", file, path, node.Description)
			}
		}
		asJSON, err := json.Marshal(crd)
		if err != nil {
			t.Fatal(err)
		}
		if len(asJSON) > 256*1024 {
			t.Errorf("%s is %d bytes as JSON: over the 256 KiB a client-side kubectl apply can annotate", file, len(asJSON))
		}
	}
}
