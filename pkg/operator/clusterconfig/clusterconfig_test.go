package clusterconfig

import (
	"encoding/json"
	"os"
	"path"
	"reflect"
	"regexp"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

func schedulerConfig(profile configv1.SchedulerProfile) *configv1.Scheduler {
	return &configv1.Scheduler{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: configv1.SchedulerSpec{Profile: profile}}
}

// renderWith renders a minimal SecondaryScheduler with the given observedConfig,
// which proves render reads the layout the observers write.
func renderWith(t *testing.T, observed map[string]interface{}) *render.Objects {
	t.Helper()
	raw, err := json.Marshal(observed)
	if err != nil {
		t.Fatal(err)
	}
	ss := &secondaryschedulerv1.SecondaryScheduler{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}
	ss.Spec.SchedulerImage = "example.com/scheduler:1"
	ss.Spec.ObservedConfig = runtime.RawExtension{Raw: raw}
	objs, err := render.Render(render.Inputs{SecondaryScheduler: ss})
	if err != nil {
		t.Fatalf("render rejects the observed config %s: %v", raw, err)
	}
	return objs
}

func TestSchedulerProfileLayer(t *testing.T) {
	for profile, want := range map[configv1.SchedulerProfile]string{
		"":                           "",
		configv1.LowNodeUtilization:  "",
		configv1.HighNodeUtilization: "type: MostAllocated",
		configv1.NoScoring:           "preScore:\n      disabled:\n      - name: '*'",
	} {
		layer, err := SchedulerProfileLayer(profile)
		if err != nil {
			t.Fatalf("%q: %v", profile, err)
		}
		if want == "" {
			if layer != nil {
				t.Errorf("%q gave a layer: %v", profile, layer)
			}
			continue
		}
		objs := renderWith(t, map[string]interface{}{"kubeSchedulerConfiguration": layer})
		if cfg := objs.ConfigMap.Data[names.ConfigKey]; !strings.Contains(cfg, want) {
			t.Errorf("%q: merged config lacks %q:\n%s", profile, want, cfg)
		}
	}
	if _, err := SchedulerProfileLayer("Fastest"); err == nil || !strings.Contains(err.Error(), `spec.profile: "Fastest"`) {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestObserveObjects(t *testing.T) {
	existing := map[string]interface{}{"kubeSchedulerConfiguration": map[string]interface{}{"parallelism": int64(8)}}
	modern := &configv1.APIServer{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: configv1.APIServerSpec{TLSSecurityProfile: &configv1.TLSSecurityProfile{
			Type: configv1.TLSProfileModernType, Modern: &configv1.ModernTLSProfile{},
		}},
	}
	observed, err := ObserveObjects(existing, modern)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(observed, render.ObservedMinTLSVersionPath...); v != "VersionTLS13" {
		t.Errorf("minTLSVersion = %q, want VersionTLS13", v)
	}
	if v, _, _ := unstructured.NestedInt64(observed, "kubeSchedulerConfiguration", "parallelism"); v != 8 {
		t.Errorf("an observation without a Scheduler input dropped kubeSchedulerConfiguration: %v", observed)
	}
	objs := renderWith(t, observed)
	if args := strings.Join(objs.Deployment.Spec.Template.Spec.Containers[0].Args, " "); !strings.Contains(args, "--tls-min-version=VersionTLS13") ||
		!strings.Contains(args, "--tls-cipher-suites=TLS_AES_128_GCM_SHA256") {
		t.Errorf("args = %s, want the Modern profile's flags with IANA cipher names", args)
	}

	// LowNodeUtilization replaces what was observed with nothing.
	observed, err = ObserveObjects(existing, schedulerConfig(configv1.LowNodeUtilization))
	if err != nil {
		t.Fatal(err)
	}
	if _, found := observed["kubeSchedulerConfiguration"]; found {
		t.Errorf("LowNodeUtilization kept a layer: %v", observed)
	}
	if existing["kubeSchedulerConfiguration"] == nil {
		t.Error("ObserveObjects modified its input")
	}

	if _, err := ObserveObjects(nil, &configv1.Scheduler{ObjectMeta: metav1.ObjectMeta{Name: "other"}}); err == nil {
		t.Error("a Scheduler not named cluster was observed")
	}
}

// TestSchedulerProfileLayerGolden pins, value for value and type for type, the
// layer every profile produced when the layers were Go map literals, so moving
// them to YAML assets changes nothing callers or golden files see: a YAML
// number must still decode to int64, not float64.
func TestSchedulerProfileLayerGolden(t *testing.T) {
	layer := func(profile map[string]interface{}) map[string]interface{} {
		profile["schedulerName"] = "secondary-scheduler"
		return map[string]interface{}{
			"apiVersion": "kubescheduler.config.k8s.io/v1",
			"kind":       "KubeSchedulerConfiguration",
			"profiles":   []interface{}{profile},
		}
	}
	allOff := func() interface{} {
		return map[string]interface{}{"disabled": []interface{}{map[string]interface{}{"name": "*"}}}
	}
	for _, tc := range []struct {
		profile configv1.SchedulerProfile
		want    map[string]interface{}
		// wantJSON is the same value as encoding/json writes it.
		wantJSON string
	}{
		{profile: "", want: nil, wantJSON: `null`},
		{profile: configv1.LowNodeUtilization, want: nil, wantJSON: `null`},
		{
			profile: configv1.HighNodeUtilization,
			want: layer(map[string]interface{}{
				"pluginConfig": []interface{}{map[string]interface{}{
					"name": "NodeResourcesFit",
					"args": map[string]interface{}{"scoringStrategy": map[string]interface{}{"type": "MostAllocated"}},
				}},
				"plugins": map[string]interface{}{"score": map[string]interface{}{
					"disabled": []interface{}{map[string]interface{}{"name": "NodeResourcesBalancedAllocation"}},
					"enabled":  []interface{}{map[string]interface{}{"name": "NodeResourcesFit", "weight": int64(5)}},
				}},
			}),
			wantJSON: `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[{` +
				`"pluginConfig":[{"args":{"scoringStrategy":{"type":"MostAllocated"}},"name":"NodeResourcesFit"}],` +
				`"plugins":{"score":{"disabled":[{"name":"NodeResourcesBalancedAllocation"}],"enabled":[{"name":"NodeResourcesFit","weight":5}]}},` +
				`"schedulerName":"secondary-scheduler"}]}`,
		},
		{
			profile: configv1.NoScoring,
			want:    layer(map[string]interface{}{"plugins": map[string]interface{}{"preScore": allOff(), "score": allOff()}}),
			wantJSON: `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","profiles":[{` +
				`"plugins":{"preScore":{"disabled":[{"name":"*"}]},"score":{"disabled":[{"name":"*"}]}},` +
				`"schedulerName":"secondary-scheduler"}]}`,
		},
	} {
		got, err := SchedulerProfileLayer(tc.profile)
		if err != nil {
			t.Fatalf("%q: %v", tc.profile, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %#v\nwant %#v", tc.profile, got, tc.want)
			continue
		}
		raw, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if string(raw) != tc.wantJSON {
			t.Errorf("%q:\n got %s\nwant %s", tc.profile, raw, tc.wantJSON)
		}
		if got == nil {
			continue
		}
		// Every call returns a fresh value: a caller may change what it got.
		got["kind"] = "changed"
		if again, _ := SchedulerProfileLayer(tc.profile); !reflect.DeepEqual(again, tc.want) {
			t.Errorf("%q: changing one result changed the next: %#v", tc.profile, again)
		}
	}

	const wantErr = `spec.profile: "Fastest" is not one of LowNodeUtilization, HighNodeUtilization, NoScoring`
	if got, err := SchedulerProfileLayer("Fastest"); err == nil || err.Error() != wantErr || got != nil {
		t.Errorf("unknown profile: %#v, %v; want nil, %s", got, err, wantErr)
	}
}

// TestProfileAssets checks the YAML files under bindata/assets/config/profiles
// against profileAssets: every file is some profile's layer (no orphan asset),
// every layer is embedded and named after its profile, and every layer changes
// the operator's default profile.
func TestProfileAssets(t *testing.T) {
	// go:embed reads bindata/assets from disk at build time, so the directory on
	// disk is what is embedded (go:embed skips only names starting with . or _).
	const dir = "../../../bindata/" + profileAssetDir
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]configv1.SchedulerProfile{}
	for profile, asset := range profileAssets {
		used[path.Base(asset)] = profile
	}
	for _, e := range entries {
		if _, ok := used[e.Name()]; !ok {
			t.Errorf("%s%s is no profile's layer: add it to profileAssets or delete it", dir, e.Name())
		}
	}
	if len(entries) == 0 {
		t.Errorf("%s is empty", dir)
	}

	_, unknown := SchedulerProfileLayer("Fastest")
	upper := regexp.MustCompile(`[A-Z]`)
	for profile, asset := range profileAssets {
		// HighNodeUtilization -> high-node-utilization.yaml
		want := profileAssetDir + strings.TrimPrefix(upper.ReplaceAllStringFunc(string(profile), func(s string) string {
			return "-" + strings.ToLower(s)
		}), "-") + ".yaml"
		if asset != want {
			t.Errorf("%s: asset %s, want %s", profile, asset, want)
		}
		if unknown == nil || !strings.Contains(unknown.Error(), string(profile)) {
			t.Errorf("%s is missing from the unknown-profile error: %v", profile, unknown)
		}
		layer, err := SchedulerProfileLayer(profile)
		if err != nil {
			t.Errorf("%s: %v", profile, err)
			continue
		}
		profiles, _, _ := unstructured.NestedSlice(layer, "profiles")
		if len(profiles) != 1 {
			t.Errorf("%s: want one profile, got %v", profile, profiles)
			continue
		}
		if name, _, _ := unstructured.NestedString(profiles[0].(map[string]interface{}), "schedulerName"); name != names.DefaultSchedulerName {
			t.Errorf("%s: schedulerName %q, want names.DefaultSchedulerName %q", asset, name, names.DefaultSchedulerName)
		}
	}
}
