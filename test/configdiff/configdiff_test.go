// Package configdiff keeps the operator's scheduler-config validation honest:
// every case of testdata/corpus.yaml goes to the operator's render step and to
// the real kube-scheduler binary (built by hack/controlplane/build.sh), and the
// two must agree on whether the configuration can run.
//
// The binary is asked exactly what a starting scheduler does: it loads the
// file, validates it and builds every profile's framework, then, because of
// --write-config-to, writes the completed configuration and exits 0 instead of
// serving. Any refusal exits non-zero with the reason. No API server is
// contacted, so a case costs well under a second.
package configdiff

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

type corpusCase struct {
	Name   string `json:"name"`
	Config string `json:"config"`
	// OperatorStricter: the operator refuses on purpose what kube-scheduler accepts.
	OperatorStricter string `json:"operatorStricter,omitempty"`
	// BinaryOnly: only the scheduler binary can know; the operator accepts it.
	BinaryOnly string `json:"binaryOnly,omitempty"`
}

type verdict struct {
	accepted bool
	reason   string
}

func (v verdict) String() string {
	if v.accepted {
		return "accepts"
	}
	return "refuses: " + v.reason
}

func TestOperatorAgreesWithKubeScheduler(t *testing.T) {
	binary := kubeSchedulerBinary(t)
	cases := readCorpus(t)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	// Never contacted: --write-config-to exits before the scheduler connects.
	writeFile(t, kubeconfig, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: unused}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`)

	var accepted, refused, intended int
	for i, c := range cases {
		op := operatorVerdict(t, c)
		bin := binaryVerdict(t, binary, dir, i, c, kubeconfig)
		switch {
		case c.OperatorStricter != "":
			intended++
			if op.accepted || !bin.accepted {
				t.Errorf("case %q is marked operatorStricter (%s), but the operator %s and kube-scheduler %s",
					c.Name, c.OperatorStricter, op, bin)
			}
		case c.BinaryOnly != "":
			intended++
			if !op.accepted || bin.accepted {
				t.Errorf("case %q is marked binaryOnly (%s), but the operator %s and kube-scheduler %s",
					c.Name, c.BinaryOnly, op, bin)
			}
		case op.accepted != bin.accepted:
			t.Errorf("disagreement on case %q:\n  operator %s\n  kube-scheduler %s\nconfig:\n%s", c.Name, op, bin, c.Config)
		}
		if bin.accepted {
			accepted++
		} else {
			refused++
		}
	}
	t.Logf("corpus: %d cases; kube-scheduler accepts %d and refuses %d; %d intended differences",
		len(cases), accepted, refused, intended)
	if accepted < 10 || refused < 20 {
		t.Errorf("the corpus must hold at least 10 valid and 20 invalid configurations")
	}
}

func operatorVerdict(t *testing.T, c corpusCase) verdict {
	t.Helper()
	const name = "user-config"
	_, err := render.Render(render.Inputs{
		SecondaryScheduler: &secondaryschedulerv1.SecondaryScheduler{
			ObjectMeta: metav1.ObjectMeta{Name: secondaryschedulerv1.SingletonName},
			Spec: secondaryschedulerv1.SecondarySchedulerSpec{
				SchedulerImage:  "registry.k8s.io/kube-scheduler:v1.37.2",
				SchedulerConfig: name,
			},
		},
		UserConfig: &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: render.OperandNamespace},
			Data:       map[string]string{render.ConfigKey: c.Config},
		},
	})
	if err != nil && !render.IsInputError(err) {
		t.Fatalf("case %q: render failed for a reason other than its input: %v", c.Name, err)
	}
	if err != nil {
		return verdict{reason: err.Error()}
	}
	return verdict{accepted: true}
}

// binaryVerdict starts kube-scheduler with the case layered as the operator
// layers a user's ConfigMap: over the embedded default (its profile, when the
// case lists none) and under the operator-owned fields.
func binaryVerdict(t *testing.T, binary, dir string, i int, c corpusCase, kubeconfig string) verdict {
	t.Helper()
	cfg := map[string]interface{}{}
	mustUnmarshal(t, "bindata default", bindata.MustAsset("assets/config/defaultconfig.yaml"), &cfg)
	var user map[string]interface{}
	mustUnmarshal(t, c.Name, []byte(c.Config), &user)
	for k, v := range user {
		cfg[k] = v
	}
	var owned map[string]interface{}
	mustUnmarshal(t, "bindata operator-owned", bindata.MustAsset("assets/config/operator-owned.yaml"), &owned)
	// Layer 5 owns these fields only; its apiVersion and kind say what it is.
	delete(owned, "apiVersion")
	delete(owned, "kind")
	overlay(cfg, owned)
	cfg["clientConnection"].(map[string]interface{})["kubeconfig"] = kubeconfig

	data, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("case-%02d.yaml", i))
	writeFile(t, path, string(data))
	var out bytes.Buffer
	cmd := exec.Command(binary, "--config="+path, "--write-config-to="+path+".out", "--secure-port=0")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if _, exited := err.(*exec.ExitError); !exited {
			t.Fatalf("running %s: %v", binary, err)
		}
		return verdict{reason: lastLine(out.String())}
	}
	return verdict{accepted: true}
}

// overlay merges src into dst: objects recursively, anything else replaced.
func overlay(dst, src map[string]interface{}) {
	for k, v := range src {
		sm, ok := v.(map[string]interface{})
		dm, dok := dst[k].(map[string]interface{})
		if ok && dok {
			overlay(dm, sm)
			continue
		}
		dst[k] = v
	}
}

func kubeSchedulerBinary(t *testing.T) string {
	return controlPlaneBinary(t, "KUBE_SCHEDULER", "kube-scheduler")
}

// controlPlaneBinary is the binary the environment variable names, or the one
// hack/controlplane/build.sh builds; missing, it skips the test, or fails it in CI.
func controlPlaneBinary(t *testing.T, env, name string) string {
	path := os.Getenv(env)
	if path == "" {
		_, file, _, _ := runtime.Caller(0)
		path = filepath.Join(filepath.Dir(file), "..", "..", "_output", "controlplane", "bin", name)
	}
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("no %s binary at %s (build it with hack/controlplane/build.sh, or set %s)", name, path, env)
		if framework.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

func readCorpus(t *testing.T) []corpusCase {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := yaml.UnmarshalStrict(data, &cases); err != nil {
		t.Fatalf("testdata/corpus.yaml: %v", err)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if c.Name == "" || seen[c.Name] {
			t.Fatalf("testdata/corpus.yaml: every case needs a unique name (%q)", c.Name)
		}
		if c.OperatorStricter != "" && c.BinaryOnly != "" {
			t.Fatalf("case %q: operatorStricter and binaryOnly exclude each other", c.Name)
		}
		seen[c.Name] = true
	}
	return cases
}

func mustUnmarshal(t *testing.T, what string, data []byte, into interface{}) {
	t.Helper()
	if err := yaml.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
