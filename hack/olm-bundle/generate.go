package main

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// Where the generated files go, relative to the repository root.
const (
	bundleDir      = "manifests/olm/bundle"
	catalogDir     = "manifests/olm/catalog"
	outsideFile    = "manifests/olm/outside-bundle.yaml"
	dockerfileFile = "images/bundle.Dockerfile"
)

// generate gives every generated file by its path.
func generate(cfg *config, docs []doc, images []relatedImage, examples []doc) (map[string][]byte, error) {
	p, err := place(docs)
	if err != nil {
		return nil, err
	}
	csv, err := buildCSV(cfg, p, images, examples)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	add := func(file string, data []byte) error {
		if _, dup := files[file]; dup {
			return fmt.Errorf("two objects would be written to %s", file)
		}
		files[file] = data
		return nil
	}

	manifests := path.Join(bundleDir, bundleManifestsDir)
	out, err := toYAML(csv)
	if err != nil {
		return nil, err
	}
	if err := add(path.Join(manifests, cfg.Package+".clusterserviceversion.yaml"),
		append([]byte(generatedHeader("manifests/ and manifests/olm/config.yaml")), out...)); err != nil {
		return nil, err
	}
	for _, d := range append(append([]doc{}, p.crds...), p.bundled...) {
		if err := add(path.Join(manifests, bundleFileName(d)), append([]byte(generatedHeader(d.file)), d.text...)); err != nil {
			return nil, err
		}
	}
	if err := add(path.Join(bundleDir, bundleMetadataDir, "annotations.yaml"), annotationsYAML(cfg)); err != nil {
		return nil, err
	}
	catalog, err := catalogYAML(cfg, csv)
	if err != nil {
		return nil, err
	}
	if err := add(path.Join(catalogDir, cfg.Package, "catalog.yaml"), catalog); err != nil {
		return nil, err
	}
	if err := add(outsideFile, outsideYAML(p)); err != nil {
		return nil, err
	}
	if err := add(dockerfileFile, dockerfile(cfg, bundleDir)); err != nil {
		return nil, err
	}
	return files, nil
}

// bundleFileName names a bundle file as operator-sdk does: a CRD by its group
// and plural, any other object by name, group, version and kind.
func bundleFileName(d doc) string {
	if d.obj.GetKind() == "CustomResourceDefinition" {
		plural, group, _ := strings.Cut(d.obj.GetName(), ".")
		return group + "_" + plural + ".yaml"
	}
	gvk := d.obj.GroupVersionKind()
	parts := []string{d.obj.GetName()}
	if gvk.Group != "" {
		parts = append(parts, gvk.Group)
	}
	parts = append(parts, gvk.Version, strings.ToLower(gvk.Kind))
	return strings.Join(parts, "_") + ".yaml"
}

// outsideYAML is outside-bundle.yaml: the objects a bundle cannot carry, each
// with why, after a table of where the other objects of manifests/ went.
func outsideYAML(p *placement) []byte {
	var b bytes.Buffer
	b.WriteString(generatedHeader("manifests/"))
	b.WriteString(`#
# What an OLM install of manifests/olm/bundle lacks, because a bundle cannot
# carry it. Apply it after installing the operator through OLM:
#
#   oc apply -f manifests/olm/outside-bundle.yaml
#
# The bundle carries the CRDs and, as manifests/ write them, the objects OLM
# installs from a bundle. The other objects of manifests/:
#
`)
	for _, r := range p.elsewhere {
		fmt.Fprintf(&b, "#   %s: %s\n", r.what(), r.reason)
	}
	for _, r := range p.outside {
		fmt.Fprintf(&b, "---\n# %s\n# Outside the bundle: %s.\n", r.what(), r.reason)
		b.Write(r.text)
	}
	return b.Bytes()
}
