package ctl

import (
	"bytes"
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
)

// maxRenderAllocation bounds what one render of any input may allocate. Inputs
// are bounded (a config layer over 1 MiB, or expanding to over 100,000 values,
// is refused), so a render that allocates more has lost a bound. Bytes
// allocated, unlike time, do not depend on how busy the machine is.
const maxRenderAllocation = 100 << 20

// FuzzRenderInput feeds the whole input path the operator and `render` share
// arbitrary input: a SecondaryScheduler document and the scheduler
// configuration of the ConfigMap it names, decoded strictly, observed, merged,
// validated by kube-scheduler's own validation and rendered. It must never
// panic, must give the same answer twice, and must stay within
// maxRenderAllocation. Run it with
//
//	go test ./pkg/cmd/ctl/ -run '^$' -fuzz FuzzRenderInput -fuzztime 5m
func FuzzRenderInput(f *testing.F) {
	kubeflux, err := os.ReadFile(kubefluxInput)
	if err != nil {
		f.Fatal(err)
	}
	// The example split at its ConfigMap's config.yaml, so that seeds mutate both halves.
	f.Add(string(kubeflux), "")
	f.Add(minimalCR+"  schedulerConfig: cfg\n", "profiles:\n- schedulerName: a\n")
	f.Add(minimalCR+"  schedulerConfig: cfg\n  managementState: Managed\n  unsupportedConfigOverrides: {profiles: [{schedulerName: b}]}\n",
		"profiles:\n- schedulerName: a\n  plugins: {score: {disabled: [{name: '*'}]}}\n")
	f.Add(minimalCR+"  schedulerConfig: cfg\n  sidecars: [{name: s, image: i}]\n  rbac: {clusterRules: [{apiGroups: [''], resources: [pods], verbs: [get]}]}\n",
		"a: &a [1,2,3]\nb: &b [*a,*a,*a]\nc: [*b,*b,*b]\n")
	f.Add(minimalCR+"  schedulerConfig: cfg\n", "percentageOfNodesToScore: 101\nparallelism: -1\n")
	f.Fuzz(func(t *testing.T, scheduler, config string) {
		if len(scheduler)+len(config) > 2<<20 {
			return // beyond what the API server stores in an object
		}
		// JSON is YAML, and escapes what a YAML stream may not hold (control
		// characters), as the API server's JSON would carry it to the operator.
		configMap, err := json.Marshal(&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "cfg"},
			Data:       map[string]string{names.ConfigKey: config},
		})
		if err != nil {
			t.Fatal(err)
		}
		input := scheduler + "\n---\n" + string(configMap)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		first, err1 := renderString(input)
		runtime.ReadMemStats(&after)
		if allocated := after.TotalAlloc - before.TotalAlloc; allocated > maxRenderAllocation {
			t.Fatalf("one render allocated %d MiB (bound %d MiB) for %d bytes of input", allocated>>20, maxRenderAllocation>>20, len(input))
		}
		second, err2 := renderString(input)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) || first != second {
			t.Fatalf("not deterministic: %v / %v", err1, err2)
		}
		if err1 == nil && !strings.Contains(first, "kind: Deployment") {
			t.Fatalf("accepted, but rendered no Deployment:\n%s", first)
		}
		if err1 != nil && first != "" {
			t.Fatalf("refused (%v), but printed:\n%s", err1, first)
		}
	})
}

func renderString(input string) (string, error) {
	var out bytes.Buffer
	err := (&renderOptions{files: []string{"-"}}).run(strings.NewReader(input), &out)
	return out.String(), err
}

// FuzzConfigMapHead holds checkConfigMapHead to what it promises: a document
// it refuses from the tree of its first bytes, cut anywhere, is refused by
// the whole path too (the whole parse and checks, then the strict decode).
//
//	go test ./pkg/cmd/ctl/ -run '^$' -fuzz FuzzConfigMapHead -fuzztime 60s
func FuzzConfigMapHead(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: v1\ndata:\n  config.yaml: |\n    s: &s xxxx\n    l: [*s]\nkind: ConfigMap\nmetadata:\n  name: cfg\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  config.yaml: |\n    a: \"&x\"\n    b: &b 1\n",
		"apiVersion: v1\nkind: Secret\ndata:\n  config.yaml: |\n    &a a: 1\n",
		"apiVersion: v1\ndata:\n  a: |\n    &x\n  a: b\nkind: ConfigMap\n",
		"apiVersion: v1\ndata: {a: \"&x y\"}\nkind: ConfigMap\n",
		"apiVersion: v1\ndata:\n  a: |-\n    # &x\n    y: *z\n",
		"apiVersion: v1\ndata:\n  a: |2\n     &x y\n",
	} {
		f.Add(seed, len(seed)/2)
	}
	f.Fuzz(func(t *testing.T, doc string, cut int) {
		data := []byte(doc)
		if len(data) > 64<<10 || cut < 0 {
			return
		}
		end := cut % (len(data) + 1)
		for end > 0 && end < len(data) && !utf8.RuneStart(data[end]) {
			end--
		}
		var head yamlv3.Node
		if yamlv3.Unmarshal(data[:end], &head) != nil {
			return
		}
		refused := checkConfigMapHead("input.yaml", 1)(&head)
		if refused == nil {
			return
		}
		tree, err := schedulerconfig.CheckedTree(data)
		if err == nil {
			err = checkConfigMapData(tree)
		}
		if err == nil {
			err = (&renderInput{}).add(data)
		}
		if err == nil {
			t.Fatalf("refused from the first %d bytes (%v), accepted whole", end, refused)
		}
	})
}
