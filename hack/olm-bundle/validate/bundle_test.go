// Package validate checks the OLM bundle hack/olm-bundle generates with
// operator-framework's own bundle validation, the library `operator-sdk
// bundle validate` runs. Its own module, not vendored: operator-framework/api
// stays out of the operator's go.mod. `make test-bundle` runs it.
package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	"sigs.k8s.io/yaml"
)

const (
	bundleDir  = "../../../manifests/olm/bundle"
	catalogDir = "../../../manifests/olm/catalog"
)

// validators are operator-sdk's defaults (CSV, CRDs, the bundle as a whole)
// and its optional operatorframework suite that fits an operator outside
// OperatorHub's community catalog: OperatorHub's CSV fields, the standard
// capabilities and categories, good practices, the objects the bundle
// carries, and the APIs Kubernetes removed.
var validators = validation.DefaultBundleValidators.WithValidators(
	validation.OperatorHubV2Validator,
	validation.StandardCapabilitiesValidator,
	validation.StandardCategoriesValidator,
	validation.GoodPracticesValidator,
	validation.ObjectValidator,
	validation.AlphaDeprecatedAPIsValidator,
)

// TestBundle: the committed bundle passes every validator with no error; the
// warnings are logged.
func TestBundle(t *testing.T) {
	errs, warnings := validate(t, bundleDir)
	for _, w := range warnings {
		t.Logf("warning: %s", w)
	}
	for _, e := range errs {
		t.Errorf("%s", e)
	}
}

// TestCSVHasOnlyRealFields: hack/olm-bundle writes the CSV from types of its
// own; every field it writes must be one of operator-framework's v1alpha1
// types, or OLM would drop it without a word.
func TestCSVHasOnlyRealFields(t *testing.T) {
	data, err := os.ReadFile(csvFile(t, bundleDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, &v1alpha1.ClusterServiceVersion{}); err != nil {
		t.Errorf("the generated CSV has a field operator-framework/api does not: %v", err)
	}
}

// TestBrokenBundleFails: a copy of the bundle, broken in one way at a time,
// fails validation, so that a pass of TestBundle means something.
func TestBrokenBundleFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		// breakCSV changes the CSV; breakDir the bundle directory.
		breakCSV func(csv map[string]any)
		breakDir func(t *testing.T, dir string)
		want     string
	}{{
		name:     "no install modes",
		breakCSV: func(csv map[string]any) { delete(spec(csv), "installModes") },
		want:     "install modes not found",
	}, {
		name:     "no version",
		breakCSV: func(csv map[string]any) { delete(spec(csv), "version") },
		want:     "Version must be set",
	}, {
		name:     "no provider",
		breakCSV: func(csv map[string]any) { delete(spec(csv), "provider") },
		want:     "Provider.Name not specified",
	}, {
		name: "an owned CRD missing from the bundle",
		breakDir: func(t *testing.T, dir string) {
			crds, err := filepath.Glob(filepath.Join(dir, "manifests", "simulation.*.yaml"))
			if err != nil || len(crds) != 1 {
				t.Fatalf("want the Simulator CRD in the bundle, found %v (%v)", crds, err)
			}
			if err := os.Remove(crds[0]); err != nil {
				t.Fatal(err)
			}
		},
		want: "not found in bundle",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyBundle(t)
			if tc.breakCSV != nil {
				file := csvFile(t, dir)
				csv := readYAML(t, file)
				tc.breakCSV(csv)
				writeYAML(t, file, csv)
			}
			if tc.breakDir != nil {
				tc.breakDir(t, dir)
			}
			errs, _ := validate(t, dir)
			for _, e := range errs {
				if strings.Contains(e, tc.want) {
					return
				}
			}
			t.Errorf("want an error containing %q, got %d errors: %v", tc.want, len(errs), errs)
		})
	}
}

// validate loads the bundle in dir as OLM tooling does (manifests/ and
// metadata/annotations.yaml) and runs every validator on it.
func validate(t *testing.T, dir string) (errs, warnings []string) {
	t.Helper()
	bundle, err := manifests.GetBundleFromDir(dir)
	if err != nil {
		t.Fatalf("loading the bundle in %s: %v", dir, err)
	}
	objs := bundle.ObjectsToValidate()
	// What the validators that take options are told: the Kubernetes the
	// bundle targets, from the CSV itself.
	objs = append(objs, map[string]string{"k8s-version": bundle.CSV.Spec.MinKubeVersion})
	for _, result := range validators.Validate(objs...) {
		for _, e := range result.Errors {
			errs = append(errs, describe(result, e))
		}
		for _, w := range result.Warnings {
			warnings = append(warnings, describe(result, w))
		}
	}
	return errs, warnings
}

func describe(result errors.ManifestResult, e errors.Error) string {
	return fmt.Sprintf("%s: %s", result.Name, e.Error())
}

func csvFile(t *testing.T, dir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "manifests", "*.clusterserviceversion.yaml"))
	if err != nil || len(files) != 1 {
		t.Fatalf("want one CSV in %s, found %v (%v)", dir, files, err)
	}
	return files[0]
}

// copyBundle copies the bundle (manifests/ and metadata/) into a temporary directory.
func copyBundle(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"manifests", "metadata"} {
		files, err := os.ReadDir(filepath.Join(bundleDir, sub))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(bundleDir, sub, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, sub, f.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func spec(csv map[string]any) map[string]any { return csv["spec"].(map[string]any) }

func readYAML(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func writeYAML(t *testing.T, file string, obj any) {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
