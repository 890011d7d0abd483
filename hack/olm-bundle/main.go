// Command olm-bundle generates the operator's OLM bundle from the manifests
// the cluster-version operator applies (manifests/, manifests/optional/) and
// the hand-written part in manifests/olm/config.yaml:
//
//   - manifests/olm/bundle/: the ClusterServiceVersion, the CRDs and the objects
//     OLM installs from a bundle, and metadata/annotations.yaml;
//   - manifests/olm/catalog/<package>/catalog.yaml: the bundle's file-based
//     catalog entry (olm.package, olm.channel, olm.bundle);
//   - manifests/olm/outside-bundle.yaml: what a bundle cannot carry, to apply
//     after an OLM install, and where every other object went;
//   - images/bundle.Dockerfile: the bundle image.
//
// hack/update-codegen.sh runs it (make update), so `make verify` fails when a
// manifest changes and the bundle does not; hack/olm-bundle/validate checks
// the result with operator-framework's own bundle validation. It is not part
// of the operator.
//
// Usage: olm-bundle [REPOSITORY_ROOT]
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	root := "."
	switch len(os.Args) {
	case 1:
	case 2:
		root = os.Args[1]
	default:
		fmt.Fprintln(os.Stderr, "usage: olm-bundle [REPOSITORY_ROOT]")
		os.Exit(2)
	}
	if err := run(root); err != nil {
		fmt.Fprintln(os.Stderr, "olm-bundle:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	cfg, err := readConfig(root)
	if err != nil {
		return err
	}
	docs, err := readManifests(root, "manifests", "manifests/optional")
	if err != nil {
		return err
	}
	images, err := imageReferences(root)
	if err != nil {
		return err
	}
	examples, err := readExamples(root)
	if err != nil {
		return err
	}
	files, err := generate(cfg, docs, images, examples)
	if err != nil {
		return err
	}
	// What the generator owns entirely is written afresh, so that an object
	// gone from manifests/ goes from the bundle too.
	for _, dir := range []string{bundleDir, catalogDir} {
		if err := os.RemoveAll(filepath.Join(root, dir)); err != nil {
			return err
		}
	}
	for path, data := range files {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
