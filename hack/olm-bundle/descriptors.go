package main

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// ownedCRD describes a CRD of the bundle for the CSV, from the CRD itself:
// its kind, the first sentence of its description, and a descriptor for each
// top-level field of spec and status, which the OpenShift console shows in
// its forms and details pages.
func ownedCRD(d doc) (crdDescription, error) {
	crd, err := decode[apiextensionsv1.CustomResourceDefinition](d)
	if err != nil {
		return crdDescription{}, err
	}
	var version *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Storage {
			version = &crd.Spec.Versions[i]
		}
	}
	if version == nil || version.Schema == nil || version.Schema.OpenAPIV3Schema == nil {
		return crdDescription{}, fmt.Errorf("%s: no storage version with a schema", d.what())
	}
	schema := version.Schema.OpenAPIV3Schema
	spec, status := schema.Properties["spec"], schema.Properties["status"]
	return crdDescription{
		Name:              crd.Name,
		Version:           version.Name,
		Kind:              crd.Spec.Names.Kind,
		DisplayName:       displayName(crd.Spec.Names.Kind),
		Description:       firstSentence(schema.Description),
		SpecDescriptors:   descriptors(spec, specXDescriptors),
		StatusDescriptors: descriptors(status, statusXDescriptors),
	}, nil
}

func descriptors(parent apiextensionsv1.JSONSchemaProps, x func(string, apiextensionsv1.JSONSchemaProps) []string) []descriptor {
	fields := make([]string, 0, len(parent.Properties))
	for f := range parent.Properties {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	var out []descriptor
	for _, f := range fields {
		prop := parent.Properties[f]
		out = append(out, descriptor{
			Path:         f,
			DisplayName:  displayName(f),
			Description:  firstSentence(prop.Description),
			XDescriptors: x(f, prop),
		})
	}
	return out
}

// The console's descriptor vocabulary (openshift/console, "OLM descriptors").
const (
	xNumber     = "urn:alm:descriptor:com.tectonic.ui:number"
	xText       = "urn:alm:descriptor:com.tectonic.ui:text"
	xBoolean    = "urn:alm:descriptor:com.tectonic.ui:booleanSwitch"
	xSelect     = "urn:alm:descriptor:com.tectonic.ui:select:"
	xAdvanced   = "urn:alm:descriptor:com.tectonic.ui:advanced"
	xConditions = "urn:alm:descriptor:io.kubernetes.conditions"
	xPhase      = "urn:alm:descriptor:io.kubernetes.phase"
	xStatusText = "urn:alm:descriptor:text"
)

// specXDescriptors gives a form field by the field's type: scalars are edited
// in the form, objects and lists in YAML (the console's advanced section).
func specXDescriptors(_ string, prop apiextensionsv1.JSONSchemaProps) []string {
	switch prop.Type {
	case "integer":
		return []string{xNumber}
	case "boolean":
		return []string{xBoolean}
	case "string":
		if len(prop.Enum) == 0 {
			return []string{xText}
		}
		var x []string
		for _, v := range prop.Enum {
			if value := strings.Trim(string(v.Raw), `"`); value != "" {
				x = append(x, xSelect+value)
			}
		}
		return x
	default:
		return []string{xAdvanced}
	}
}

func statusXDescriptors(field string, prop apiextensionsv1.JSONSchemaProps) []string {
	switch {
	case field == "conditions":
		return []string{xConditions}
	case field == "phase":
		return []string{xPhase}
	case prop.Type == "string" || prop.Type == "integer":
		return []string{xStatusText}
	default:
		return nil
	}
}

// acronyms are words a field name writes in lower case.
var acronyms = map[string]string{"Rbac": "RBAC", "Cors": "CORS"}

// displayName spells a Go or JSON name in words: "kubeAPIServerPort" is
// "Kube API Server Port", "etcdURL" "Etcd URL", "rbac" "RBAC".
func displayName(name string) string {
	runes := []rune(name)
	var words []string
	start := 0
	for i := 1; i < len(runes); i++ {
		lowerToUpper := unicode.IsLower(runes[i-1]) && unicode.IsUpper(runes[i])
		acronymEnd := unicode.IsUpper(runes[i-1]) && unicode.IsUpper(runes[i]) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
		if lowerToUpper || acronymEnd {
			words = append(words, string(runes[start:i]))
			start = i
		}
	}
	words = append(words, string(runes[start:]))
	for i, w := range words {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
		if a, ok := acronyms[words[i]]; ok {
			words[i] = a
		}
	}
	return strings.Join(words, " ")
}

// firstSentence is a description's first sentence on one line.
func firstSentence(description string) string {
	text := strings.Join(strings.Fields(description), " ")
	if i := strings.Index(text, ". "); i >= 0 {
		return text[:i+1]
	}
	return text
}
