package render

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kubeschedulerv1 "k8s.io/kube-scheduler/config/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// UPDATE_GOLDEN=1 go test ./pkg/operator/render/... rewrites testdata/golden.
var updateGolden = flag.Bool("update-golden", os.Getenv("UPDATE_GOLDEN") != "", "rewrite the golden files")

var goldenCases = []string{
	"minimal",
	"kubeflux-sidecar",
	"coscheduling",
	"native-sidecar",
	"replicas",
	"command-override",
	"observed-tls",
	"overrides-one-profile",
}

func TestRenderGolden(t *testing.T) {
	for _, name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			in := readInputs(t, filepath.Join("testdata", "input", name+".yaml"))
			objs, err := Render(in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			got := printObjects(t, objs)
			assertValidOutput(t, objs)

			golden := filepath.Join("testdata", "golden", name+".yaml")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("render of %s differs from %s (UPDATE_GOLDEN=1 to accept):\n%s", name, golden, lineDiff(string(want), string(got)))
			}
		})
	}
}

// assertValidOutput checks what every render must satisfy: the Deployment is a
// strict apps/v1 Deployment, config.yaml a strict v1 KubeSchedulerConfiguration,
// and every object carries the managed-by label the controllers prune by.
func assertValidOutput(t *testing.T, objs *Objects) {
	t.Helper()
	dep, err := ToYAML(objs.Deployment)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(dep, &appsv1.Deployment{}); err != nil {
		t.Errorf("Deployment is not a strict apps/v1 Deployment: %v", err)
	}
	cfgJSON, err := yaml.YAMLToJSONStrict([]byte(objs.ConfigMap.Data[names.ConfigKey]))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &kubeschedulerv1.KubeSchedulerConfiguration{}
	if strict, err := sigsjson.UnmarshalStrict(cfgJSON, cfg); err != nil || len(strict) > 0 {
		t.Errorf("config.yaml is not a strict v1 KubeSchedulerConfiguration: %v %v", err, strict)
	}
	if cfg.APIVersion != "kubescheduler.config.k8s.io/v1" || cfg.Kind != "KubeSchedulerConfiguration" {
		t.Errorf("config.yaml is %s %s", cfg.APIVersion, cfg.Kind)
	}
	if le := cfg.LeaderElection; le.LeaderElect == nil || !*le.LeaderElect || le.ResourceName != names.OperandName ||
		le.ResourceNamespace != names.OperandNamespace || le.ResourceLock != "leases" {
		t.Errorf("leader election is not the operator's lease: %+v", le)
	}
	for _, obj := range objs.All() {
		m := obj.(metav1.Object)
		if m.GetLabels()[names.ManagedByLabel] != names.ManagedByValue {
			t.Errorf("%T %s has no %s label", obj, m.GetName(), names.ManagedByLabel)
		}
		if obj.GetObjectKind().GroupVersionKind().Kind == "" {
			t.Errorf("%T %s has no kind", obj, m.GetName())
		}
	}
}

func printObjects(t testing.TB, objs *Objects) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, obj := range objs.All() {
		b, err := ToYAML(obj)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	return buf.Bytes()
}

// readInputs reads a SecondaryScheduler and the ConfigMap it names from a
// multi-document YAML file (the render command's input format).
func readInputs(t testing.TB, file string) Inputs {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var in Inputs
	var cms []*corev1.ConfigMap
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for {
		doc, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			t.Fatal(err)
		}
		var into interface{}
		switch tm.Kind {
		case "SecondaryScheduler":
			in.SecondaryScheduler = &secondaryschedulerv1.SecondaryScheduler{}
			into = in.SecondaryScheduler
		case "ConfigMap":
			cm := &corev1.ConfigMap{}
			cms = append(cms, cm)
			into = cm
		default:
			t.Fatalf("%s: unexpected kind %q", file, tm.Kind)
		}
		if err := yaml.UnmarshalStrict(doc, into); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	for _, cm := range cms {
		if cm.Name == in.SecondaryScheduler.Spec.SchedulerConfig {
			in.UserConfig = cm
		}
	}
	return in
}

// lineDiff shows the first differing lines, enough to see what a change did.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			out = append(out, "line "+strconv.Itoa(i+1)+":\n- "+wl+"\n+ "+gl)
			if len(out) == 10 {
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

func TestStaticAssetsAreWhatRenderReturns(t *testing.T) {
	objs, err := Render(readInputs(t, "testdata/input/minimal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rendered := map[string]runtime.Object{}
	for _, obj := range objs.All() {
		m := obj.(metav1.Object)
		rendered[obj.GetObjectKind().GroupVersionKind().Kind+"/"+m.GetNamespace()+"/"+m.GetName()] = obj
	}
	for _, name := range StaticAssetNames() {
		var tm metav1.TypeMeta
		var om struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		data := mustAsset(t, name)
		if err := yaml.Unmarshal(data, &tm); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &om); err != nil {
			t.Fatal(err)
		}
		key := tm.Kind + "/" + om.Metadata.Namespace + "/" + om.Metadata.Name
		if _, ok := rendered[key]; !ok {
			t.Errorf("static asset %s (%s) is not among the rendered objects", name, key)
		}
		if om.Metadata.Labels[names.ManagedByLabel] != names.ManagedByValue {
			t.Errorf("static asset %s lacks the %s label", name, names.ManagedByLabel)
		}
	}
	// The per-CR objects are never static.
	for _, kind := range []runtime.Object{objs.ConfigMap, objs.Deployment} {
		for _, name := range StaticAssetNames() {
			if strings.Contains(name, strings.ToLower(kind.GetObjectKind().GroupVersionKind().Kind)) {
				t.Errorf("%s is listed as static", name)
			}
		}
	}
}

func TestExtraRBAC(t *testing.T) {
	in := readInputs(t, "testdata/input/minimal.yaml")
	objs, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if objs.Extra != (ExtraRBAC{}) || len(objs.Roles) != 1 || len(objs.ClusterRoleBindings) != 1 || len(objs.RoleBindings) != 2 {
		t.Errorf("without spec.rbac: extra %+v, %d Roles, %d ClusterRoleBindings, %d RoleBindings",
			objs.Extra, len(objs.Roles), len(objs.ClusterRoleBindings), len(objs.RoleBindings))
	}
	rule := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}
	in.SecondaryScheduler.Spec.RBAC = &secondaryschedulerv1.SchedulerRBAC{NamespacedRules: []rbacv1.PolicyRule{rule}}
	objs, err = Render(in)
	if err != nil {
		t.Fatal(err)
	}
	role, binding := objs.Extra.Role, objs.Extra.RoleBinding
	if objs.Extra.ClusterRole != nil || objs.Extra.ClusterRoleBinding != nil || role == nil || binding == nil ||
		role.Name != names.ExtraRBACName || binding.RoleRef.Name != names.ExtraRBACName || role.Namespace != names.OperandNamespace {
		t.Fatalf("namespacedRules did not give Role+RoleBinding %s alone: %+v", names.ExtraRBACName, objs.Extra)
	}
	// The rendered rule must not alias the CR (controllers get it from a cache).
	role.Rules[0].Verbs[0] = "delete"
	if rule.Verbs[0] != "get" || in.SecondaryScheduler.Spec.RBAC.NamespacedRules[0].Verbs[0] != "get" {
		t.Error("rendered Role aliases spec.rbac")
	}
}

func TestOnlyPodChangesRollThePods(t *testing.T) {
	base := readInputs(t, "testdata/input/kubeflux-sidecar.yaml")
	render := func(mutate func(in *Inputs)) *Objects {
		in := base
		in.SecondaryScheduler = base.SecondaryScheduler.DeepCopy()
		in.UserConfig = base.UserConfig.DeepCopy()
		mutate(&in)
		objs, err := Render(in)
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	want := render(func(*Inputs) {})
	for name, mutate := range map[string]func(*Inputs){
		"managementState":  func(in *Inputs) { in.SecondaryScheduler.Spec.ManagementState = "Unmanaged" },
		"operatorLogLevel": func(in *Inputs) { in.SecondaryScheduler.Spec.OperatorLogLevel = "TraceAll" },
		"rbac":             func(in *Inputs) { in.SecondaryScheduler.Spec.RBAC = nil },
		"configmap labels": func(in *Inputs) { in.UserConfig.Labels = map[string]string{"a": "b"} },
	} {
		if got := render(mutate); !equality.Semantic.DeepEqual(got.Deployment, want.Deployment) {
			t.Errorf("%s changed the Deployment", name)
		}
	}
	for name, mutate := range map[string]func(*Inputs){
		"config": func(in *Inputs) {
			in.UserConfig.Data[names.ConfigKey] = strings.Replace(in.UserConfig.Data[names.ConfigKey], "fluence", "fluence2", 1)
		},
		"overrides": func(in *Inputs) {
			in.SecondaryScheduler.Spec.UnsupportedConfigOverrides.Raw = []byte(`{"percentageOfNodesToScore":50}`)
		},
	} {
		got := render(mutate)
		if got.ConfigHash == want.ConfigHash ||
			got.Deployment.Spec.Template.Annotations[names.ConfigHashAnnotation] == want.Deployment.Spec.Template.Annotations[names.ConfigHashAnnotation] {
			t.Errorf("a %s change did not change the pod template's config hash", name)
		}
	}
}

func TestRenderDoesNotModifyInputs(t *testing.T) {
	in := readInputs(t, "testdata/input/command-override.yaml")
	before := in.SecondaryScheduler.DeepCopy()
	objs, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	c := &objs.Deployment.Spec.Template.Spec.Containers[0]
	c.Command[0], c.Env[0].Value = "changed", "changed"
	objs.Deployment.Spec.Template.Spec.Volumes[1].Name = "changed"
	if !equality.Semantic.DeepEqual(before, in.SecondaryScheduler) {
		t.Error("Render or a change of its output modified the SecondaryScheduler")
	}
}

func TestUserArgsWin(t *testing.T) {
	in := readInputs(t, "testdata/input/minimal.yaml")
	in.ServingCertAvailable = true
	in.SecondaryScheduler.Spec.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{Args: []string{"--tls_cert_file=/mine.crt", "--v=5"}}
	objs, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(objs.Deployment.Spec.Template.Spec.Containers[0].Args, " ")
	if strings.Count(args, "tls-cert-file") != 0 || strings.Count(args, "tls_cert_file") != 1 || strings.Contains(args, "-v=2") {
		t.Errorf("args = %q, want the user's serving certificate and -v, not the operator's too", args)
	}
}

func TestServingCert(t *testing.T) {
	in := readInputs(t, "testdata/input/minimal.yaml")
	in.ServingCertAvailable = true
	objs, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	pod := objs.Deployment.Spec.Template.Spec
	args := strings.Join(pod.Containers[0].Args, " ")
	if !strings.Contains(args, "--tls-cert-file="+servingCertMountPath+"/tls.crt") ||
		!strings.Contains(args, "--tls-private-key-file="+servingCertMountPath+"/tls.key") {
		t.Errorf("args = %s", args)
	}
	last := pod.Volumes[len(pod.Volumes)-1]
	if last.Name != secondaryschedulerv1.ServingCertVolumeName || last.Secret == nil || last.Secret.SecretName != names.ServingCertSecretName {
		t.Errorf("no serving cert volume: %+v", pod.Volumes)
	}
	if objs.Service.Annotations["service.beta.openshift.io/serving-cert-secret-name"] != names.ServingCertSecretName {
		t.Error("the Service does not ask service-ca for the serving cert")
	}
}

func mustAsset(t *testing.T, name string) []byte {
	t.Helper()
	b, err := bindata.Asset(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConfigMapProblem: only the ConfigMap Render made, unchanged, is the
// operator's; each way of forging one is named.
func TestConfigMapProblem(t *testing.T) {
	objs, err := Render(minimalInputs())
	if err != nil {
		t.Fatal(err)
	}
	if p := ConfigMapProblem(objs.ConfigMap); p != "" {
		t.Fatalf("the rendered ConfigMap: %s", p)
	}
	for name, tc := range map[string]struct {
		forge func(*corev1.ConfigMap)
		want  string
	}{
		"other data":          {func(cm *corev1.ConfigMap) { cm.Data[names.ConfigKey] += "# more\n" }, "does not hash to"},
		"mutable":             {func(cm *corev1.ConfigMap) { cm.Immutable = nil }, "not immutable"},
		"renamed":             {func(cm *corev1.ConfigMap) { cm.Name = names.ConfigMapName + "-000000000000" }, "name does not match"},
		"no annotation":       {func(cm *corev1.ConfigMap) { cm.Annotations = nil }, "name does not match"},
		"annotation replaced": {func(cm *corev1.ConfigMap) { cm.Annotations[names.ConfigHashAnnotation] = "00" }, "name does not match"},
		"unlabelled":          {func(cm *corev1.ConfigMap) { cm.Labels = nil }, "lacks label"},
	} {
		t.Run(name, func(t *testing.T) {
			cm := objs.ConfigMap.DeepCopy()
			tc.forge(cm)
			if p := ConfigMapProblem(cm); !strings.Contains(p, tc.want) {
				t.Errorf("problem %q, want %q", p, tc.want)
			}
		})
	}
}

func TestSchedulerConfigMayNotNameTheOperatorsConfigMaps(t *testing.T) {
	// The bare name is the user's, as OpenShift's docs name it.
	bare := withConfig("profiles: [{schedulerName: a}]\n")
	bare.SecondaryScheduler.Spec.SchedulerConfig, bare.UserConfig.Name = names.ConfigMapName, names.ConfigMapName
	if _, err := Render(bare); err != nil {
		t.Errorf("schedulerConfig %s: %v", names.ConfigMapName, err)
	}
	for _, name := range []string{names.ConfigMapName + "-0123456789ab", names.ConfigMapName + "-mine"} {
		in := withConfig("profiles: [{schedulerName: a}]\n")
		in.SecondaryScheduler.Spec.SchedulerConfig = name
		in.UserConfig.Name = name
		if _, err := Render(in); err == nil || !strings.Contains(err.Error(), "spec.schedulerConfig: \""+name+"\" is a name the operator gives its own ConfigMaps") {
			t.Errorf("schedulerConfig %s: %v", name, err)
		}
	}
}

// TestRendererRendersAsRender: a Renderer, fed every golden input twice in a
// row, then all of them again in another order, with a refused input between,
// gives exactly what Render gives each time.
func TestRendererRendersAsRender(t *testing.T) {
	var sequence []string
	for _, name := range goldenCases {
		sequence = append(sequence, name, name)
	}
	for i := len(goldenCases) - 1; i >= 0; i-- {
		sequence = append(sequence, goldenCases[i], "refused")
	}
	var r Renderer
	for i, name := range sequence {
		var in Inputs
		if name == "refused" {
			in = readInputs(t, filepath.Join("testdata", "input", "overrides-one-profile.yaml"))
			in.SecondaryScheduler.Spec.UnsupportedConfigOverrides.Raw = []byte(`{"percentageOfNodesToScore": 101}`)
		} else {
			in = readInputs(t, filepath.Join("testdata", "input", name+".yaml"))
		}
		want, wantErr := Render(in)
		got, err := r.Render(in)
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("render %d (%s): Renderer gave error %v, Render %v", i, name, err, wantErr)
		}
		if err == nil && !bytes.Equal(printObjects(t, got), printObjects(t, want)) {
			t.Fatalf("render %d (%s): Renderer's objects differ from Render's:\n%s", i, name,
				lineDiff(string(printObjects(t, want)), string(printObjects(t, got))))
		}
		if name == "refused" && err == nil {
			t.Fatalf("render %d: the refused input rendered", i)
		}
	}
}
