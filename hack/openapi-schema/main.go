// Command openapi-schema prints the OpenAPI v2 document applyconfiguration-gen
// reads (--openapi-schema) to generate the Extract functions of our apply
// configurations: the definitions openapi-gen wrote for our API types
// (pkg/generated/openapi) and, for the types those embed (containers, volumes,
// RBAC rules, OperatorSpec/OperatorStatus ...), the definitions of the OpenAPI
// documents named on the command line (Kubernetes' api/openapi-spec/swagger.json
// and openshift/api's openapi/openapi.json), the first one defining a type winning.
//
// hack/update-codegen.sh runs it; it is not part of the operator.
//
// Usage: openapi-schema OPENAPI_JSON... > schema.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/openshift/secondary-scheduler-operator/pkg/generated/openapi"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: openapi-schema OPENAPI_JSON...")
		os.Exit(2)
	}
	out, err := schema(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi-schema:", err)
		os.Exit(1)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-schema:", err)
		os.Exit(1)
	}
}

// restName is the name applyconfiguration-gen looks a type up by. openapi-gen
// names a type of a package without +k8s:openapi-model-package by its Go path
// (github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1.SecondaryScheduler),
// one with it by its model name, which is already the REST name
// (io.k8s.api.core.v1.Container).
func restName(name string) string {
	if strings.Contains(name, "/") {
		return util.ToRESTFriendlyName(name)
	}
	return name
}

func schema(dependencies []string) ([]byte, error) {
	deps := spec.Definitions{}
	for _, file := range dependencies {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var doc spec.Swagger
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for name, def := range doc.Definitions {
			if _, ok := deps[name]; !ok {
				deps[name] = def
			}
		}
	}

	ref := func(name string) spec.Ref { return spec.MustCreateRef("#/definitions/" + restName(name)) }
	defs := spec.Definitions{}
	for name, def := range openapi.GetOpenAPIDefinitions(ref) {
		s := def.Schema
		// A type that defines its own v3 schema embeds its v2 one in an extension.
		if v2, ok := s.Extensions[common.ExtensionV2Schema].(spec.Schema); ok {
			s = v2
		}
		defs[restName(name)] = s
	}
	// The dependencies fill in the types ours refer to, and those they refer to.
	if missing := addReferenced(defs, deps); len(missing) > 0 {
		return nil, fmt.Errorf("no definition of %s in %s", strings.Join(missing, ", "), strings.Join(dependencies, ", "))
	}
	return json.Marshal(&spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "secondary-scheduler-operator", Version: "unversioned"}},
		Definitions: defs,
	}})
}

// addReferenced adds to defs, from deps, every definition that defs refer to,
// directly or not, and that they lack. It returns the names found in neither,
// sorted.
func addReferenced(defs, deps spec.Definitions) []string {
	missing := map[string]bool{}
	var queue []string
	refer := func(name string) {
		if _, ok := defs[name]; ok {
			return
		}
		dep, ok := deps[name]
		if !ok {
			missing[name] = true
			return
		}
		defs[name] = dep
		queue = append(queue, name)
	}
	for name := range defs {
		queue = append(queue, name)
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		s := defs[name]
		walkRefs(&s, refer)
	}
	var names []string
	for name := range missing {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// walkRefs calls refer with the name of every definition s refers to.
func walkRefs(s *spec.Schema, refer func(name string)) {
	if s == nil {
		return
	}
	if p := s.Ref.GetPointer(); p != nil && !p.IsEmpty() {
		refer(strings.TrimPrefix(p.String(), "/definitions/"))
	}
	if s.Items != nil {
		walkRefs(s.Items.Schema, refer)
		for i := range s.Items.Schemas {
			walkRefs(&s.Items.Schemas[i], refer)
		}
	}
	for _, list := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			walkRefs(&list[i], refer)
		}
	}
	for k := range s.Properties {
		p := s.Properties[k]
		walkRefs(&p, refer)
	}
	if s.AdditionalProperties != nil {
		walkRefs(s.AdditionalProperties.Schema, refer)
	}
}
