package configdiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/clusterconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// corpusCase is one entry of testdata/corpus/*.yaml (its README.md explains them).
type corpusCase struct {
	Name string `json:"name"`
	// Config is the user's layer: config.yaml of the ConfigMap spec.schedulerConfig names.
	Config string `json:"config"`
	// ClusterProfile is schedulers.config.openshift.io/cluster spec.profile; the
	// observed layer is what the config observer writes for it.
	ClusterProfile configv1.SchedulerProfile `json:"clusterProfile,omitempty"`
	// Overrides is spec.unsupportedConfigOverrides.
	Overrides string `json:"overrides,omitempty"`
	// OperatorStricter: the operator refuses on purpose what the binary accepts.
	OperatorStricter string `json:"operatorStricter,omitempty"`
	// BinaryOnly: only the scheduler binary can know; the operator accepts it.
	BinaryOnly string `json:"binaryOnly,omitempty"`
	// OnlyFor limits the intended difference to one binary; the other must
	// agree with the operator.
	OnlyFor string `json:"onlyFor,omitempty"`
}

const userConfigName = "user-config"

// inputs is what the operator's controller hands Render for this case: a
// SecondaryScheduler naming the user's ConfigMap, with the observed config the
// config observer writes on OpenShift (the TLS profile, and the cluster
// scheduling profile's layer) and the overrides.
func (c corpusCase) inputs(t *testing.T) render.Inputs {
	observed := map[string]interface{}{}
	setNested(t, observed, "VersionTLS12", render.ObservedMinTLSVersionPath...)
	if layer := c.observedLayer(t); layer != nil {
		setNested(t, observed, layer, render.ObservedKubeSchedulerConfigurationPath...)
	}
	ss := &secondaryschedulerv1.SecondaryScheduler{
		ObjectMeta: metav1.ObjectMeta{Name: secondaryschedulerv1.SingletonName},
		Spec: secondaryschedulerv1.SecondarySchedulerSpec{
			SchedulerImage:  "registry.k8s.io/kube-scheduler:v1.37.2",
			SchedulerConfig: userConfigName,
		},
	}
	ss.Spec.ObservedConfig = runtime.RawExtension{Raw: mustJSON(t, observed)}
	if c.Overrides != "" {
		overrides, err := yaml.YAMLToJSON([]byte(c.Overrides))
		if err != nil {
			t.Fatalf("case %q overrides: %v", c.Name, err)
		}
		ss.Spec.UnsupportedConfigOverrides = runtime.RawExtension{Raw: overrides}
	}
	return render.Inputs{
		SecondaryScheduler: ss,
		UserConfig: &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: userConfigName, Namespace: names.OperandNamespace},
			Data:       map[string]string{names.ConfigKey: c.Config},
		},
	}
}

// observedLayer is the layer the config observer writes for the case's
// cluster scheduling profile, nil for none.
func (c corpusCase) observedLayer(t *testing.T) map[string]interface{} {
	layer, err := clusterconfig.SchedulerProfileLayer(c.ClusterProfile)
	if err != nil {
		t.Fatalf("case %q: %v", c.Name, err)
	}
	return layer
}

// renderCase runs the operator's render step on the case. Accepted, it returns
// the config.yaml of the ConfigMap the operator would create: what the
// scheduler pods read.
func renderCase(t *testing.T, c corpusCase) (verdict, []byte) {
	t.Helper()
	objs, err := render.Render(c.inputs(t))
	if err != nil && !render.IsInputError(err) {
		t.Fatalf("case %q: render failed for a reason other than its input: %v", c.Name, err)
	}
	if err != nil {
		return verdict{reason: err.Error()}, nil
	}
	return verdict{accepted: true}, []byte(objs.ConfigMap.Data[names.ConfigKey])
}

// layeredByHand is what the binaries get for a case the operator refuses, for
// which it renders no ConfigMap: the default layer, then the observed, the
// user's and the overrides layers, each merged the simplest way (objects key
// by key, anything else, lists included, replaced), then the operator-owned
// fields. So for a refused case the binary judges what the layers say without
// the operator's merge of named list entries (profiles by schedulerName,
// pluginConfig by name): a user's profile list replaces the default one, as
// the operator's merge also does, and an overrides profile list replaces it
// too instead of merging into it. The comparison then is: the operator refuses
// the layers; does the binary refuse what they ask for?
func layeredByHand(t *testing.T, c corpusCase) []byte {
	t.Helper()
	cfg := map[string]interface{}{}
	layers := [][]byte{bindata.MustAsset("assets/config/defaultconfig.yaml")}
	if layer := c.observedLayer(t); layer != nil {
		layers = append(layers, mustJSON(t, layer))
	}
	for _, data := range append(layers, []byte(c.Config), []byte(c.Overrides)) {
		var layer map[string]interface{}
		mustUnmarshal(t, c.Name, data, &layer)
		overlay(cfg, layer)
	}
	var owned map[string]interface{}
	mustUnmarshal(t, "bindata operator-owned", bindata.MustAsset("assets/config/operator-owned.yaml"), &owned)
	// Layer 5 owns these fields only; its apiVersion and kind say what it is.
	delete(owned, "apiVersion")
	delete(owned, "kind")
	overlay(cfg, owned)
	return mustJSON(t, cfg)
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

// readCorpus reads every file of testdata/corpus, in name order.
func readCorpus(t *testing.T) []corpusCase {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/corpus/*.yaml: %v", err)
	}
	var cases []corpusCase
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var list []corpusCase
		if err := yaml.UnmarshalStrict(data, &list); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		cases = append(cases, list...)
	}
	checkCorpus(t, cases)
	return cases
}

func checkCorpus(t *testing.T, cases []corpusCase) {
	seen := map[string]bool{}
	for _, c := range cases {
		switch {
		case c.Name == "" || seen[c.Name]:
			t.Fatalf("testdata/corpus: every case needs a unique name (%q)", c.Name)
		case c.OperatorStricter != "" && c.BinaryOnly != "":
			t.Fatalf("case %q: operatorStricter and binaryOnly exclude each other", c.Name)
		case c.OnlyFor != "" && c.OperatorStricter == "" && c.BinaryOnly == "":
			t.Fatalf("case %q: onlyFor names the binary of an intended difference; the case has none", c.Name)
		case c.OnlyFor != "" && c.OnlyFor != kubeScheduler && c.OnlyFor != schedulerPlugins:
			t.Fatalf("case %q: onlyFor is %s or %s, not %q", c.Name, kubeScheduler, schedulerPlugins, c.OnlyFor)
		}
		seen[c.Name] = true
	}
}

func setNested(t *testing.T, obj map[string]interface{}, value interface{}, path ...string) {
	t.Helper()
	if err := unstructured.SetNestedField(obj, value, path...); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v interface{}) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustUnmarshal(t *testing.T, what string, data []byte, into interface{}) {
	t.Helper()
	useNumber := func(d *json.Decoder) *json.Decoder { d.UseNumber(); return d }
	if err := yaml.Unmarshal(data, into, useNumber); err != nil {
		t.Fatalf("%s: %v (the corpus holds configurations: a layer that is no YAML object belongs in render's unit tests)", what, err)
	}
}
