package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
)

// config is manifests/olm/config.yaml: the package, its channel, where the
// bundle image goes, and the hand-written part of the CSV.
type config struct {
	Package     string                `json:"package"`
	Channel     string                `json:"channel"`
	BundleImage string                `json:"bundleImage"`
	CSV         clusterServiceVersion `json:"csv"`
}

func readConfig(root string) (*config, error) {
	const file = "manifests/olm/config.yaml"
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return nil, err
	}
	cfg := &config{}
	if err := yaml.UnmarshalStrict(data, cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if cfg.Package == "" || cfg.Channel == "" || cfg.BundleImage == "" || cfg.CSV.Spec.Version == "" {
		return nil, fmt.Errorf("%s: package, channel, bundleImage and csv.spec.version are required", file)
	}
	return cfg, nil
}

// csvName is the CSV's name, which is also the bundle's.
func (c *config) csvName() string { return c.Package + ".v" + c.CSV.Spec.Version }

// defaultImages are the images the operator runs unless a user names another
// (a Simulator's, a trial's sandbox): with the operator's own, the images a
// disconnected cluster must mirror.
var defaultImages = []relatedImage{
	{Name: "simulator", Image: simv1alpha1.DefaultImage},
	{Name: "simulator-etcd", Image: simulatorrender.DefaultEtcdImage},
	{Name: "trial-etcd", Image: podruntime.DefaultEtcdImage},
	{Name: "trial-kube-apiserver", Image: podruntime.DefaultAPIServerImage},
}

// buildCSV completes the CSV of config.yaml from manifests/.
func buildCSV(cfg *config, p *placement, operatorImages []relatedImage, examples []doc) (*clusterServiceVersion, error) {
	csv := cfg.CSV
	csv.APIVersion, csv.Kind = "operators.coreos.com/v1alpha1", "ClusterServiceVersion"
	csv.Metadata.Name = cfg.csvName()

	for _, d := range p.crds {
		owned, err := ownedCRD(d)
		if err != nil {
			return nil, err
		}
		csv.Spec.CustomResourceDefinitions.Owned = append(csv.Spec.CustomResourceDefinitions.Owned, owned)
	}

	spec := p.deployment.Spec.DeepCopy()
	if err := withOperatorVersion(spec, csv.Spec.Version); err != nil {
		return nil, err
	}
	sa := spec.Template.Spec.ServiceAccountName
	csv.Spec.Install = installStrategy{Strategy: "deployment", Spec: strategyDeployments{
		Deployments: []strategyDeployment{{Name: p.deployment.Name, Label: p.deployment.Labels, Spec: *spec}},
	}}
	if len(p.permissions) > 0 {
		csv.Spec.Install.Spec.Permissions = []permission{{ServiceAccountName: sa, Rules: p.permissions}}
	}
	if len(p.clusterPermissions) > 0 {
		csv.Spec.Install.Spec.ClusterPermissions = []permission{{ServiceAccountName: sa, Rules: p.clusterPermissions}}
	}
	csv.Spec.RelatedImages = append(append([]relatedImage{}, operatorImages...), defaultImages...)

	annotations := map[string]string{}
	for k, v := range cfg.CSV.Metadata.Annotations {
		annotations[k] = v
	}
	if len(spec.Template.Spec.Containers) != 1 {
		return nil, fmt.Errorf("the operator Deployment has %d containers, want 1", len(spec.Template.Spec.Containers))
	}
	annotations["containerImage"] = spec.Template.Spec.Containers[0].Image
	almExamples, err := almExamples(append(append([]doc{}, p.examples...), examples...))
	if err != nil {
		return nil, err
	}
	annotations["alm-examples"] = almExamples
	annotations["operatorframework.io/suggested-namespace"] = p.namespace.Name
	template, err := json.Marshal(map[string]any{
		"apiVersion": "v1",
		"kind":       "Namespace",
		"metadata":   map[string]any{"name": p.namespace.Name, "labels": p.namespace.Labels},
	})
	if err != nil {
		return nil, err
	}
	annotations["operatorframework.io/suggested-namespace-template"] = string(template)
	csv.Metadata.Annotations = annotations
	return &csv, nil
}

// withOperatorVersion sets the version the operator reports (the
// ClusterOperator's "operator" version), which the release payload would
// otherwise substitute for the CVO's placeholder, to the CSV's.
func withOperatorVersion(spec *appsv1.DeploymentSpec, version string) error {
	for i := range spec.Template.Spec.Containers {
		env := spec.Template.Spec.Containers[i].Env
		for j := range env {
			if env[j].Name == "OPERATOR_IMAGE_VERSION" {
				env[j].Value = version
				return nil
			}
		}
	}
	return fmt.Errorf("the operator Deployment sets no OPERATOR_IMAGE_VERSION")
}

// almExamples is the CSV's alm-examples annotation: the custom resources the
// console offers to create, without what only the cluster-version operator
// reads (annotations) or what the console fills in (namespace).
func almExamples(examples []doc) (string, error) {
	var objs []map[string]any
	for _, d := range examples {
		obj := d.obj.DeepCopy()
		obj.SetAnnotations(nil)
		obj.SetNamespace("")
		objs = append(objs, obj.Object)
	}
	out, err := json.MarshalIndent(objs, "", "  ")
	return string(out), err
}

// readExamples reads the Simulator the CSV offers: the smallest one of examples/.
func readExamples(root string) ([]doc, error) {
	const file = "examples/simulators/basic.yaml"
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		return nil, err
	}
	docs, err := splitDocuments(file, data)
	if err != nil {
		return nil, err
	}
	sim, err := findObject(docs, "Simulator", "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return []doc{sim}, nil
}

// toYAML writes v as YAML without the nulls of zero-valued Go structs
// (metadata.creationTimestamp of a pod template): they say nothing.
func toYAML(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return nil, err
	}
	return yaml.Marshal(dropNulls(tree))
}

func dropNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if e == nil {
				delete(t, k)
			} else {
				t[k] = dropNulls(e)
			}
		}
	case []any:
		for i := range t {
			t[i] = dropNulls(t[i])
		}
	}
	return v
}
