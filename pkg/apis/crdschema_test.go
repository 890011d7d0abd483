// Package apis_test checks the generated CRDs offline with the API server's own
// schema machinery (structural defaulting, OpenAPI validation, list-map
// uniqueness, CEL). test/integration proves the same rules on a real API server.
package apis_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// crdSchema is one CRD version's schema in the forms the API server uses.
type crdSchema struct {
	structural *structuralschema.Structural
	validator  validation.SchemaValidator
	cel        *cel.Validator
}

func loadCRD(t *testing.T, file string) crdSchema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "manifests", file))
	if err != nil {
		t.Fatalf("reading the generated CRD (run `make update`): %v", err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		t.Fatalf("decoding %s: %v", file, err)
	}
	if len(crd.Spec.Versions) != 1 {
		t.Fatalf("%s: want one served version, got %d", file, len(crd.Spec.Versions))
	}
	internal := &apiextensionsinternal.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil); err != nil {
		t.Fatalf("converting %s: %v", file, err)
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		t.Fatalf("%s is not a structural schema: %v", file, err)
	}
	validator, _, err := validation.NewSchemaValidator(internal)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return crdSchema{structural: structural, validator: validator, cel: cel.NewValidator(structural, true, celconfig.PerCallLimit)}
}

// admit applies defaults and runs every create-time check the API server runs
// from the schema, returning the errors it would report.
func (s crdSchema) admit(obj map[string]interface{}) field.ErrorList {
	defaulting.Default(obj, s.structural)
	errs := validation.ValidateCustomResource(nil, obj, s.validator)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, s.structural, obj)...)
	celErrs, _ := s.cel.Validate(context.Background(), nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

func fromYAML(t *testing.T, doc string) map[string]interface{} {
	t.Helper()
	// Decode numbers as the API server does: integers stay int64.
	raw, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("test object: %v", err)
	}
	obj := map[string]interface{}{}
	if err := utiljson.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("test object: %v", err)
	}
	return obj
}
