package validate

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"go.podman.io/image/v5/docker/reference"
	"sigs.k8s.io/yaml"
)

// The file-based catalog's schemas (operator-registry's alpha/declcfg), as
// far as one package of one bundle uses them.
type catalog struct {
	packages []fbcPackage
	channels []fbcChannel
	bundles  []fbcBundle
}

type fbcPackage struct {
	Schema         string `json:"schema"`
	Name           string `json:"name"`
	DefaultChannel string `json:"defaultChannel"`
	Description    string `json:"description"`
}

type fbcChannel struct {
	Schema  string `json:"schema"`
	Name    string `json:"name"`
	Package string `json:"package"`
	Entries []struct {
		Name string `json:"name"`
	} `json:"entries"`
}

type fbcBundle struct {
	Schema     string `json:"schema"`
	Name       string `json:"name"`
	Package    string `json:"package"`
	Image      string `json:"image"`
	Properties []struct {
		Type  string         `json:"type"`
		Value map[string]any `json:"value"`
	} `json:"properties"`
	RelatedImages []v1alpha1.RelatedImage `json:"relatedImages"`
}

// TestCatalog: the catalog entry offers the bundle as OLM tooling loads it:
// package, channel, CSV name and version, the APIs the CSV owns, its related
// images, and a bundle image OLM can pull.
func TestCatalog(t *testing.T) {
	bundle, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range catalogProblems(t, bundle, filepath.Join(catalogDir, bundle.Package, "catalog.yaml")) {
		t.Error(problem)
	}
}

// TestBrokenCatalogFails: a catalog that disagrees with the bundle is caught.
func TestBrokenCatalogFails(t *testing.T) {
	bundle, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(catalogDir, bundle.Package, "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	version := "version: " + bundle.CSV.Spec.Version.String()
	if !bytes.Contains(data, []byte(version)) {
		t.Fatalf("the catalog has no %q", version)
	}
	broken := filepath.Join(t.TempDir(), "catalog.yaml")
	if err := os.WriteFile(broken, bytes.Replace(data, []byte(version), []byte("version: 9.9.9"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if problems := catalogProblems(t, bundle, broken); len(problems) == 0 {
		t.Error("a catalog whose olm.package version is not the CSV's passed")
	}
}

func catalogProblems(t *testing.T, bundle *manifests.Bundle, file string) []string {
	t.Helper()
	c := readCatalog(t, file)
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if len(c.packages) != 1 || len(c.channels) != 1 || len(c.bundles) != 1 {
		fail("want one package, channel and bundle, found %d, %d, %d", len(c.packages), len(c.channels), len(c.bundles))
		return problems
	}
	pkg, ch, b := c.packages[0], c.channels[0], c.bundles[0]
	if pkg.Name != bundle.Package || pkg.DefaultChannel != bundle.DefaultChannel {
		fail("olm.package %s, default channel %s; the bundle's annotations say %s, %s", pkg.Name, pkg.DefaultChannel, bundle.Package, bundle.DefaultChannel)
	}
	if ch.Package != bundle.Package || !reflect.DeepEqual(bundle.Channels, []string{ch.Name}) {
		fail("olm.channel %s of %s; the bundle's annotations say channels %v of %s", ch.Name, ch.Package, bundle.Channels, bundle.Package)
	}
	if len(ch.Entries) != 1 || ch.Entries[0].Name != bundle.CSV.Name {
		fail("olm.channel entries %v; want the CSV %s", ch.Entries, bundle.CSV.Name)
	}
	if b.Name != bundle.CSV.Name || b.Package != bundle.Package {
		fail("olm.bundle %s of %s; want %s of %s", b.Name, b.Package, bundle.CSV.Name, bundle.Package)
	}
	if _, err := reference.ParseNormalizedNamed(b.Image); err != nil || !strings.HasSuffix(b.Image, ":v"+bundle.CSV.Spec.Version.String()) {
		fail("olm.bundle image %q: want a pull spec tagged v%s (%v)", b.Image, bundle.CSV.Spec.Version, err)
	}
	if !reflect.DeepEqual(b.RelatedImages, bundle.CSV.Spec.RelatedImages) {
		fail("olm.bundle relatedImages %v; the CSV's are %v", b.RelatedImages, bundle.CSV.Spec.RelatedImages)
	}

	wantGVKs := map[string]bool{}
	for _, owned := range bundle.CSV.Spec.CustomResourceDefinitions.Owned {
		_, group, _ := strings.Cut(owned.Name, ".")
		wantGVKs[group+"/"+owned.Version+"/"+owned.Kind] = true
	}
	gotGVKs, packages := map[string]bool{}, 0
	for _, p := range b.Properties {
		switch p.Type {
		case "olm.package":
			packages++
			if p.Value["packageName"] != bundle.Package || p.Value["version"] != bundle.CSV.Spec.Version.String() {
				fail("olm.package property %v; want %s at %s", p.Value, bundle.Package, bundle.CSV.Spec.Version)
			}
		case "olm.gvk":
			gotGVKs[fmt.Sprintf("%s/%s/%s", p.Value["group"], p.Value["version"], p.Value["kind"])] = true
		}
	}
	if packages != 1 {
		fail("olm.bundle has %d olm.package properties, want 1", packages)
	}
	if !reflect.DeepEqual(gotGVKs, wantGVKs) {
		fail("olm.gvk properties %v; the CSV owns %v", gotGVKs, wantGVKs)
	}
	return problems
}

func readCatalog(t *testing.T, file string) catalog {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c catalog
	for _, d := range strings.Split(string(data), "\n---\n") {
		var meta struct {
			Schema string `json:"schema"`
		}
		if err := yaml.Unmarshal([]byte(d), &meta); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		switch meta.Schema {
		case "":
			continue // comments only
		case "olm.package":
			c.packages, err = decodeAppend(d, c.packages)
		case "olm.channel":
			c.channels, err = decodeAppend(d, c.channels)
		case "olm.bundle":
			c.bundles, err = decodeAppend(d, c.bundles)
		default:
			err = fmt.Errorf("schema %q", meta.Schema)
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	return c
}

// decodeAppend decodes a document into a T, refusing unknown fields, and appends it.
func decodeAppend[T any](doc string, to []T) ([]T, error) {
	var v T
	err := yaml.UnmarshalStrict([]byte(doc), &v)
	return append(to, v), err
}
