package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// bundleAnnotation is one annotation of metadata/annotations.yaml, which the
// bundle image also carries as a label.
type bundleAnnotation struct{ key, value string }

// Where the bundle image holds its parts.
const (
	bundleManifestsDir = "manifests/"
	bundleMetadataDir  = "metadata/"
)

func bundleAnnotations(cfg *config) []bundleAnnotation {
	return []bundleAnnotation{
		{"operators.operatorframework.io.bundle.mediatype.v1", "registry+v1"},
		{"operators.operatorframework.io.bundle.manifests.v1", bundleManifestsDir},
		{"operators.operatorframework.io.bundle.metadata.v1", bundleMetadataDir},
		{"operators.operatorframework.io.bundle.package.v1", cfg.Package},
		{"operators.operatorframework.io.bundle.channels.v1", cfg.Channel},
		{"operators.operatorframework.io.bundle.channel.default.v1", cfg.Channel},
	}
}

// annotationsYAML is the bundle's metadata/annotations.yaml.
func annotationsYAML(cfg *config) []byte {
	var b bytes.Buffer
	b.WriteString(generatedHeader("manifests/olm/config.yaml"))
	b.WriteString("annotations:\n")
	for _, a := range bundleAnnotations(cfg) {
		fmt.Fprintf(&b, "  %s: %s\n", a.key, a.value)
	}
	return b.Bytes()
}

// dockerfile builds the bundle image: the bundle's two directories, and its
// annotations as labels, as opm and operator-sdk build one.
func dockerfile(cfg *config, bundleDir string) []byte {
	var b bytes.Buffer
	b.WriteString(generatedHeader("manifests/olm/config.yaml"))
	fmt.Fprintf(&b, `# The OLM bundle image of %[1]s, built from the repository root:
#
#   podman build -f images/bundle.Dockerfile -t %[2]s:v%[3]s .
FROM scratch
`, cfg.csvName(), cfg.BundleImage, cfg.CSV.Spec.Version)
	for _, a := range bundleAnnotations(cfg) {
		fmt.Fprintf(&b, "LABEL %s=%s\n", a.key, a.value)
	}
	fmt.Fprintf(&b, "COPY %s/%s /%s\n", bundleDir, strings.TrimSuffix(bundleManifestsDir, "/"), bundleManifestsDir)
	fmt.Fprintf(&b, "COPY %s/%s /%s\n", bundleDir, strings.TrimSuffix(bundleMetadataDir, "/"), bundleMetadataDir)
	return b.Bytes()
}

// The file-based catalog's schemas (operator-framework/operator-registry,
// alpha/declcfg), as far as one package of one bundle uses them.

type fbcPackage struct {
	Schema         string `json:"schema"`
	Name           string `json:"name"`
	DefaultChannel string `json:"defaultChannel"`
	Description    string `json:"description,omitempty"`
}

type fbcChannel struct {
	Schema  string            `json:"schema"`
	Name    string            `json:"name"`
	Package string            `json:"package"`
	Entries []fbcChannelEntry `json:"entries"`
}

type fbcChannelEntry struct {
	Name string `json:"name"`
}

type fbcBundle struct {
	Schema        string         `json:"schema"`
	Name          string         `json:"name"`
	Package       string         `json:"package"`
	Image         string         `json:"image"`
	Properties    []fbcProperty  `json:"properties"`
	RelatedImages []relatedImage `json:"relatedImages,omitempty"`
}

type fbcProperty struct {
	Type  string `json:"type"`
	Value any    `json:"value"`
}

type fbcGVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// csvMetadataFields are the CSV's fields that the olm.csv.metadata property
// holds, what the console shows of a bundle before it is installed (opm
// renders it so), by their names there.
var csvMetadataFields = map[string]string{
	"customresourcedefinitions": "crdDescriptions",
	"description":               "description",
	"displayName":               "displayName",
	"installModes":              "installModes",
	"keywords":                  "keywords",
	"links":                     "links",
	"maturity":                  "maturity",
	"minKubeVersion":            "minKubeVersion",
	"provider":                  "provider",
}

func csvMetadata(csv *clusterServiceVersion) (map[string]any, error) {
	data, err := json.Marshal(csv.Spec)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{}
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, err
	}
	metadata := map[string]any{"annotations": csv.Metadata.Annotations}
	for field, name := range csvMetadataFields {
		if v, ok := spec[field]; ok {
			metadata[name] = v
		}
	}
	return metadata, nil
}

// catalogYAML is the package's file-based catalog: the package, its one
// channel, and the bundle with the properties OLM resolves by (package and
// version, the APIs it provides) and those the console shows.
func catalogYAML(cfg *config, csv *clusterServiceVersion) ([]byte, error) {
	properties := []fbcProperty{{Type: "olm.package", Value: map[string]string{"packageName": cfg.Package, "version": csv.Spec.Version}}}
	for _, owned := range csv.Spec.CustomResourceDefinitions.Owned {
		group := owned.Name[strings.Index(owned.Name, ".")+1:]
		properties = append(properties, fbcProperty{Type: "olm.gvk", Value: fbcGVK{Group: group, Kind: owned.Kind, Version: owned.Version}})
	}
	metadata, err := csvMetadata(csv)
	if err != nil {
		return nil, err
	}
	properties = append(properties, fbcProperty{Type: "olm.csv.metadata", Value: metadata})
	docs := []any{
		fbcPackage{Schema: "olm.package", Name: cfg.Package, DefaultChannel: cfg.Channel, Description: csv.Metadata.Annotations["description"]},
		fbcChannel{Schema: "olm.channel", Name: cfg.Channel, Package: cfg.Package, Entries: []fbcChannelEntry{{Name: cfg.csvName()}}},
		fbcBundle{
			Schema:        "olm.bundle",
			Name:          cfg.csvName(),
			Package:       cfg.Package,
			Image:         cfg.BundleImage + ":v" + csv.Spec.Version,
			Properties:    properties,
			RelatedImages: csv.Spec.RelatedImages,
		},
	}
	var b bytes.Buffer
	b.WriteString(generatedHeader("the bundle"))
	for _, d := range docs {
		out, err := toYAML(d)
		if err != nil {
			return nil, err
		}
		b.WriteString("---\n")
		b.Write(out)
	}
	return b.Bytes(), nil
}

func generatedHeader(from string) string {
	return "# Generated by hack/olm-bundle (make update) from " + from + ": do not edit.\n"
}
