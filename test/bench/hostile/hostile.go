// Package hostile makes the scheduler configurations that once cost the
// operator seconds and gigabytes: YAML whose aliases expand far past its own
// size, and documents over the operator's bound. The benchmarks that check they
// are refused cheaply (by the controller, `render` and `diff`) share them.
package hostile

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// Case is one hostile scheduler configuration (a config.yaml layer).
type Case struct {
	// Name is a benchmark name parameter: no spaces or slashes.
	Name   string
	Config string
	// FitsConfigMap is false when the API server refuses a ConfigMap
	// holding it (more than 1 MiB of data): only render and diff read it.
	FitsConfigMap bool
}

const header = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

// Cases are the shapes measured before the bounds: a 400 KB layer whose
// aliases expand to hundreds of copies of one long string (13.4 s and 2.7 GiB
// then), a 900 KB string aliased 500 times (8 s and 2.1 GiB), nested aliases
// that expand to 10^9 values, 900 KB of one-character values (no alias, but
// each a node of every parser's tree: over 100 MB), and a document over the
// 1 MiB bound.
func Cases() []Case {
	return []Case{
		{Name: "aliases-400KB", Config: aliased(390<<10, 300), FitsConfigMap: true},
		{Name: "string-900KB-aliased-500", Config: aliased(900<<10, 500), FitsConfigMap: true},
		{Name: "nested-aliases-1e9", Config: nested(), FitsConfigMap: true},
		{Name: "values-900KB", Config: header + "x: [" + strings.Repeat("1,", 450<<10) + "1]\n", FitsConfigMap: true},
		{Name: "over-1MiB", Config: header + "# " + strings.Repeat("x", 3<<19) + "\n"},
	}
}

// aliased is one string of size bytes, anchored, and a list of n aliases of it.
func aliased(size, n int) string {
	var b strings.Builder
	b.WriteString(header + "s: &s " + strings.Repeat("x", size) + "\nl: [")
	b.WriteString(strings.TrimSuffix(strings.Repeat("*s,", n), ","))
	b.WriteString("]\n")
	return b.String()
}

// nested lists the level below ten times, nine levels deep.
func nested() string {
	var b strings.Builder
	b.WriteString(header + "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// RenderInput is a file for `render -f` and `diff -f`: the SecondaryScheduler
// "cluster" naming ConfigMap name in openshift-secondary-scheduler, and that
// ConfigMap holding config. The layer is a string of the ConfigMap: the file
// itself holds no alias, only the layer inside does.
func RenderInput(name, config string) (string, error) {
	cm, err := yaml.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "openshift-secondary-scheduler"},
		"data":     map[string]string{"config.yaml": config},
	})
	if err != nil {
		return "", err
	}
	return string(cm) + "---\napiVersion: operator.openshift.io/v1\nkind: SecondaryScheduler\nmetadata:\n  name: cluster\n" +
		"spec:\n  managementState: Managed\n  schedulerImage: registry.k8s.io/kube-scheduler:v1.37.2\n  schedulerConfig: " + name + "\n", nil
}
