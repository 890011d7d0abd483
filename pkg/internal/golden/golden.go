// Package golden compares a test's output with a file under testdata, which
// UPDATE_GOLDEN=1 rewrites, so that a reviewer sees the exact objects a
// change produces.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// Compare fails t when got differs from the file at path; with UPDATE_GOLDEN
// set it writes got there first.
func Compare(t testing.TB, path string, got []byte) {
	t.Helper()
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with UPDATE_GOLDEN=1)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; UPDATE_GOLDEN=1 rewrites it):\n%s", path, diff)
	}
}

// YAML prints objs as one YAML stream, the documents apart by "---".
func YAML(t testing.TB, objs ...any) []byte {
	t.Helper()
	var out bytes.Buffer
	for i, obj := range objs {
		data, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(data)
	}
	return out.Bytes()
}
