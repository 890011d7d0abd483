package ctl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
)

// hostileDocuments are documents over the bounds every document is held to,
// with what the refusal says: one too big, one nested too deep (each level
// of a flow sequence is an entry).
func hostileDocuments() map[string]struct{ doc, want string } {
	return map[string]struct{ doc, want string }{
		"oversized": {"profiles: [{schedulerName: " + strings.Repeat("a", schedulerconfig.MaxDocumentBytes) + "}]\n", "at most 1048576 are read"},
		"nested":    {"profiles: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n", "more than 16384 of the characters"},
	}
}

// TestTrialBoundsInputFiles: a document of -f over the bounds is refused,
// naming the file, before anything else is read.
func TestTrialBoundsInputFiles(t *testing.T) {
	for name, tc := range hostileDocuments() {
		path := filepath.Join(t.TempDir(), name+".yaml")
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  config.yaml: |\n    " + strings.TrimSuffix(tc.doc, "\n") + "\n"
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		err := RunTrial(t.Context(), &TrialOptions{Output: "text", Files: []string{path}}, nil, &out, &out)
		if err == nil || !strings.Contains(err.Error(), path+": document 1") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a refusal naming %s: %q", name, err, path, tc.want)
		}
	}
}

// TestTrialBoundsServedConfiguration: the configuration the cluster's
// scheduler is served (trial and snapshot read it from its ConfigMap) over
// the bounds is refused, naming the ConfigMap, before it is parsed.
func TestTrialBoundsServedConfiguration(t *testing.T) {
	for name, tc := range hostileDocuments() {
		_, err := servedArm(t.Context(), fake.NewClientset(), tc.doc, "secondary-scheduler-config-0123456789ab")
		want := "the served configuration (ConfigMap openshift-secondary-scheduler/secondary-scheduler-config-0123456789ab)"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q: %q", name, err, want, tc.want)
		}
	}
}

// TestTrialBoundsSnapshotFile: the documents a snapshot file holds (the
// cluster section, the current configuration) over the bounds are refused,
// naming --snapshot, the file and the document, before they are parsed.
func TestTrialBoundsSnapshotFile(t *testing.T) {
	served := "profiles:\n- schedulerName: secondary-scheduler\n"
	for name, tc := range hostileDocuments() {
		path := writeSnapshotFileServing(t, []string{"secondary-scheduler"}, `{"servedFrom":"cm"}`, tc.doc)
		_, err := trialFromFile(path, binPacking(t), nil)
		want := "--snapshot " + path + ": its currentConfig: "
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("currentConfig %s: %v, want %q: %q", name, err, want, tc.want)
		}
	}
	// JSON, as the file holds it: too big, and nested as deep as JSON
	// encoding allows with more entries than a configuration has.
	for name, tc := range map[string]struct{ section, want string }{
		"oversized": {`{"servedFrom":"cm","observedConfig":{"x":"` + strings.Repeat("a", schedulerconfig.MaxDocumentBytes) + `"}}`, "at most 1048576 are read"},
		"nested": {`{"servedFrom":"cm","observedConfig":{"x":` + strings.Repeat("[", 9000) + strings.Repeat("1,", 8000) + "1" +
			strings.Repeat("]", 9000) + "}}", "more than 16384 of the characters"},
	} {
		path := writeSnapshotFileServing(t, []string{"secondary-scheduler"}, tc.section, served)
		_, err := trialFromFile(path, binPacking(t), nil)
		want := "--snapshot " + path + ": its cluster section: "
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("cluster section %s: %v, want %q: %q", name, err, want, tc.want)
		}
	}
}
