package configdiff

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/clusterconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
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
	// ReleaseDifference: the binary's release judges the document otherwise
	// (the verdict, or what a refusal names); the reason names the upstream
	// change, a pull request (kubernetes/kubernetes#N) or a release (Kubernetes 1.N).
	ReleaseDifference string `json:"releaseDifference,omitempty"`
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

// renderCase runs the operator's render step on the case. It returns the
// config.yaml the operator renders (what the scheduler pods read) or, refused,
// the merged document its problems were found in, with their subjects; no
// document when the layers could not be merged.
func renderCase(t *testing.T, c corpusCase) (verdict, []byte) {
	t.Helper()
	objs, err := render.Render(c.inputs(t))
	var ie *render.InputError
	switch {
	case err == nil:
		return verdict{accepted: true}, []byte(objs.ConfigMap.Data[names.ConfigKey])
	case !errors.As(err, &ie):
		t.Fatalf("case %q: render failed for a reason other than its input: %v", c.Name, err)
	}
	v := verdict{reason: err.Error()}
	for _, p := range ie.Problems {
		if p.Subject != (problem.Subject{}) {
			v.subjects = append(v.subjects, p.Subject)
		}
	}
	if rewriteOperatorSubjects != nil {
		v.subjects = rewriteOperatorSubjects(c, v.subjects)
	}
	return v, ie.Config
}

// rewriteOperatorSubjects, when set, replaces the subjects of the operator's
// refusal of a case: a test's way to make the operator refuse for a reason
// the binaries do not give, and see it caught. It lives in this test package,
// out of users' reach.
var rewriteOperatorSubjects func(corpusCase, []problem.Subject) []problem.Subject

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
		case countSet(c.OperatorStricter, c.BinaryOnly, c.ReleaseDifference) > 1:
			t.Fatalf("case %q: operatorStricter, binaryOnly and releaseDifference exclude each other", c.Name)
		case c.OnlyFor != "" && countSet(c.OperatorStricter, c.BinaryOnly, c.ReleaseDifference) == 0:
			t.Fatalf("case %q: onlyFor names the binary of an intended difference; the case has none", c.Name)
		case c.ReleaseDifference != "" && (c.OnlyFor == "" || !upstreamChangeRE.MatchString(c.ReleaseDifference)):
			t.Fatalf("case %q: a releaseDifference holds for one binary (onlyFor) and names the upstream change "+
				"(kubernetes/kubernetes#N, or Kubernetes 1.N): %q", c.Name, c.ReleaseDifference)
		case c.OnlyFor != "" && c.OnlyFor != kubeScheduler && c.OnlyFor != schedulerPlugins:
			t.Fatalf("case %q: onlyFor is %s or %s, not %q", c.Name, kubeScheduler, schedulerPlugins, c.OnlyFor)
		}
		seen[c.Name] = true
	}
}

// upstreamChangeRE is how a releaseDifference names the upstream change.
var upstreamChangeRE = regexp.MustCompile(`kubernetes(?:-sigs)?/[a-z-]+#\d+|Kubernetes 1\.\d+`)

func countSet(fields ...string) int {
	n := 0
	for _, f := range fields {
		if f != "" {
			n++
		}
	}
	return n
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
		t.Fatalf("%s: %v (a binary wrote what is no YAML object)", what, err)
	}
}
