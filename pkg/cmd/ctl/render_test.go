package ctl

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/component-base/cli"
)

// The tests run the real command in a child process (this test binary, with
// RENDER_TEST_MAIN set), to see its exit status and its stdout and stderr apart.
func TestMain(m *testing.M) {
	if os.Getenv("RENDER_TEST_MAIN") != "" {
		root := NewRootCommand(nil) // these tests run no trial
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("RENDER_TEST_MAIN")), &args); err != nil {
			panic(err)
		}
		root.SetArgs(args)
		os.Exit(cli.Run(root))
	}
	os.Exit(m.Run())
}

func runRender(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	// The command reads files only: a minute is a hang, not a slow machine.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	env, err := json.Marshal(append([]string{"render"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "RENDER_TEST_MAIN="+string(env))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if exitErr, ok := err.(*exec.ExitError); ok {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

func writeInput(t *testing.T, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

const kubefluxInput = "../../operator/render/testdata/input/kubeflux-sidecar.yaml"

const minimalCR = `apiVersion: operator.openshift.io/v1
kind: SecondaryScheduler
metadata:
  name: cluster
spec:
  schedulerImage: example.com/scheduler:1
`

func TestRenderPrintsEveryObjectInOrder(t *testing.T) {
	stdout, stderr, code := runRender(t, "-f", kubefluxInput)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var kinds []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "kind: ") {
			kinds = append(kinds, strings.TrimPrefix(line, "kind: "))
		}
	}
	want := "Namespace ServiceAccount ClusterRole ClusterRoleBinding ClusterRoleBinding Role RoleBinding RoleBinding ConfigMap Service Deployment"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("kinds:\n got %s\nwant %s", got, want)
	}
	if strings.Count(stdout, "---\n") != 11 || !strings.Contains(stdout, "schedulerName: fluence") {
		t.Errorf("unexpected output:\n%s", stdout)
	}
}

func TestRenderOutputDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := runRender(t, "-f", kubefluxInput, "--output-dir", dir)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) != 11 {
		t.Fatalf("%d files (%v): %v", len(files), err, files)
	}
	if filepath.Base(files[0]) != "00-namespace-openshift-secondary-scheduler.yaml" ||
		filepath.Base(files[10]) != "10-deployment-secondary-scheduler.yaml" {
		t.Errorf("files: %v", files)
	}
}

func TestRenderObservesClusterConfig(t *testing.T) {
	file := writeInput(t, minimalCR+`---
apiVersion: config.openshift.io/v1
kind: APIServer
metadata:
  name: cluster
spec:
  tlsSecurityProfile:
    type: Modern
    modern: {}
---
apiVersion: config.openshift.io/v1
kind: Scheduler
metadata:
  name: cluster
spec:
  profile: HighNodeUtilization
`)
	stdout, stderr, code := runRender(t, "-f", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"--tls-min-version=VersionTLS13", "--tls-cipher-suites=TLS_AES_128_GCM_SHA256", "type: MostAllocated"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestRenderBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		input string
		want  []string // on stderr
	}{
		"unknown CR field": {minimalCR + "  sidecar: []\n", []string{`unknown field "spec.sidecar"`, "document 1"}},
		"bad scheduler config": {minimalCR + "  schedulerConfig: cfg\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  config.yaml: |\n    profiles:\n    - schedulerName: foo\n    - schedulerName: foo\n",
			[]string{`ConfigMap openshift-secondary-scheduler/cfg config.yaml: profiles[1].schedulerName: duplicate "foo"`}},
		"missing configmap": {minimalCR + "  schedulerConfig: cfg\n", []string{"ConfigMap openshift-secondary-scheduler/cfg: not found"}},
		"bad spec":          {strings.Replace(minimalCR, "example.com/scheduler:1", `""`, 1), []string{"spec.schedulerImage: required"}},
		"no CR":             {"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n", []string{"no SecondaryScheduler"}},
		"other kind":        {minimalCR + "---\napiVersion: v1\nkind: Secret\n", []string{"document 2: v1 Secret is not an input of render"}},
		"unknown profile":   {minimalCR + "---\napiVersion: config.openshift.io/v1\nkind: Scheduler\nmetadata:\n  name: cluster\nspec:\n  profile: Fast\n", []string{`spec.profile: "Fast"`}},
		// The document itself, before anything expands it, and the ConfigMap's layer inside it.
		"aliases in a document": {minimalCR + "  sidecars: &s []\n  initContainers: *s\n", []string{"document 1: line 7: YAML anchors and aliases"}},
		"aliases in the layer": {minimalCR + "  schedulerConfig: cfg\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  config.yaml: |\n    a: &a [x]\n    b: *a\n",
			[]string{"ConfigMap openshift-secondary-scheduler/cfg config.yaml: line 1: YAML anchors and aliases"}},
		// Checked before the ConfigMap is decoded: refused for its aliases, not its misspelt field.
		"aliases in a layer, first": {minimalCR + "  schedulerConfig: cfg\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: elsewhere\ndatta: {}\ndata:\n  config.yaml: |\n    a: &a [x]\n    b: *a\n",
			[]string{"ConfigMap elsewhere/cfg config.yaml: line 1: YAML anchors and aliases"}},
		"more entries than the bound": {minimalCR + "  schedulerConfig: cfg\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  config.yaml: |\n    a: [" + strings.Repeat("1,", 1<<14) + "1]\n",
			[]string{"document 2: line 7: more than 16384 of the characters that begin YAML entries"}},
		// A layer past the first 64 KiB of its document: refused from its first
		// line when written as kubectl writes it (data before kind and metadata),
		// or by the whole parse when its anchor comes later.
		"aliases in a large layer, data first": {minimalCR + "  schedulerConfig: cfg\n---\napiVersion: v1\ndata:\n  config.yaml: |\n    s: &s " + strings.Repeat("x", 100<<10) + "\n    l: [*s]\nkind: ConfigMap\nmetadata:\n  name: cfg\n",
			[]string{"ConfigMap (", "input.yaml, document 2) config.yaml: line 1: YAML anchors and aliases"}},
		"aliases in a large layer, metadata first": {minimalCR + "  schedulerConfig: cfg\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: elsewhere\ndata:\n  config.yaml: |\n    s: &s " + strings.Repeat("x", 100<<10) + "\n    l: [*s]\n",
			[]string{"ConfigMap elsewhere/cfg config.yaml: line 1: YAML anchors and aliases"}},
		"aliases past the first 64 KiB of a layer": {minimalCR + "  schedulerConfig: cfg\n---\napiVersion: v1\ndata:\n  config.yaml: |\n    s: " + strings.Repeat("x", 100<<10) + "\n    l: &l [1]\nkind: ConfigMap\nmetadata:\n  name: cfg\n",
			[]string{"ConfigMap openshift-secondary-scheduler/cfg config.yaml: line 2: YAML anchors and aliases"}},
		"a file too big":     {minimalCR + "# " + strings.Repeat("x", 8<<20) + "\n", []string{"more than 8388608 bytes"}},
		"a document too big": {minimalCR + "# " + strings.Repeat("x", 1<<20) + "\n", []string{"document 1: is 1048"}},
	} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := runRender(t, "-f", writeInput(t, tc.input))
			if code == 0 {
				t.Errorf("exit status 0 for bad input")
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
			for _, want := range tc.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// A layer larger than the first 64 KiB of its document, with '&' and '*'
// in its comment and strings but no anchor, renders.
func TestRenderLargeLayer(t *testing.T) {
	layer := "    # " + strings.Repeat("x & *y ", 10<<10) + "\n    profiles:\n    - schedulerName: \"large & *layer\"\n"
	input := minimalCR + "  schedulerConfig: cfg\n---\napiVersion: v1\ndata:\n  config.yaml: |\n" + layer + "kind: ConfigMap\nmetadata:\n  name: cfg\n"
	stdout, stderr, code := runRender(t, "-f", writeInput(t, input))
	if code != 0 || !strings.Contains(stdout, "schedulerName: large & *layer") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestRenderNeedsAFile(t *testing.T) {
	_, stderr, code := runRender(t)
	if code == 0 || stderr != "error: no input: give the SecondaryScheduler and its ConfigMap with -f FILE\n" {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}
