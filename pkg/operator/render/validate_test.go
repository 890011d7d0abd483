package render

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

const cmSource = "ConfigMap openshift-secondary-scheduler/my-config config.yaml: "

// withConfig is a SecondaryScheduler whose spec.schedulerConfig names my-config
// holding cfg.
func withConfig(cfg string) Inputs {
	in := minimalInputs()
	in.SecondaryScheduler.Spec.SchedulerConfig = "my-config"
	in.UserConfig = &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "my-config", Namespace: names.OperandNamespace},
		Data:       map[string]string{names.ConfigKey: cfg},
	}
	return in
}

func minimalInputs() Inputs {
	return Inputs{SecondaryScheduler: &secondaryschedulerv1.SecondaryScheduler{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec:       secondaryschedulerv1.SecondarySchedulerSpec{SchedulerImage: "example.com/scheduler:1"},
	}}
}

func withSpec(mutate func(*secondaryschedulerv1.SecondarySchedulerSpec)) Inputs {
	in := minimalInputs()
	mutate(&in.SecondaryScheduler.Spec)
	return in
}

func raw(s string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(s)} }

func TestValidationErrors(t *testing.T) {
	const profileA = "profiles:\n- schedulerName: a\n"
	tests := []struct {
		name string
		in   Inputs
		want []string // each must be one problem line, in this order
	}{
		// The user's ConfigMap.
		{"configmap missing", func() Inputs { in := withConfig(""); in.UserConfig = nil; return in }(),
			[]string{"ConfigMap openshift-secondary-scheduler/my-config: not found; create it with the scheduler configuration under key config.yaml, or unset SecondaryScheduler cluster spec.schedulerConfig"}},
		{"configmap without key", func() Inputs {
			in := withConfig("")
			in.UserConfig.Data = map[string]string{"scheduler.yaml": ""}
			return in
		}(), []string{"ConfigMap openshift-secondary-scheduler/my-config: no key config.yaml (it has: scheduler.yaml); put the KubeSchedulerConfiguration under config.yaml"}},
		{"configmap missing, the other layers broken", func() Inputs {
			in := withConfig("")
			in.UserConfig = nil
			in.SecondaryScheduler.Spec.ObservedConfig = raw(`{"kubeSchedulerConfiguration":{"kind":"Policy"}}`)
			in.SecondaryScheduler.Spec.UnsupportedConfigOverrides = raw(`{"profiles":[]}`)
			return in
		}(), []string{
			`SecondaryScheduler cluster spec.observedConfig.kubeSchedulerConfiguration: kind: "Policy" is not KubeSchedulerConfiguration`,
			"ConfigMap openshift-secondary-scheduler/my-config: not found",
			"SecondaryScheduler cluster spec.unsupportedConfigOverrides: profiles: list at least one profile",
		}},
		// The other layers.
		{"overrides", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.UnsupportedConfigOverrides = raw(`{"profiles":[{"schedulerName":"default-scheduler"}]}`)
		}), []string{`SecondaryScheduler cluster spec.unsupportedConfigOverrides: profiles[0].schedulerName: "default-scheduler" belongs`}},
		{"overrides clash with configmap", func() Inputs {
			in := withConfig(profileA)
			in.SecondaryScheduler.Spec.UnsupportedConfigOverrides = raw(`{"profiles":[{"schedulerName":"b","plugins":{"multiPoint":{"disabled":[{"name":"PrioritySort"}]},"queueSort":{"enabled":[{"name":"Coscheduling"}]}}}]}`)
			return in
		}(), []string{`SecondaryScheduler cluster spec.unsupportedConfigOverrides: profiles[0].plugins.queueSort: profile "b" sorts the queue with Coscheduling but profile "a" with PrioritySort`}},
		{"observed layer", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.ObservedConfig = raw(`{"kubeSchedulerConfiguration":{"apiVersion":"kubescheduler.config.k8s.io/v1beta3"}}`)
		}), []string{"SecondaryScheduler cluster spec.observedConfig.kubeSchedulerConfiguration: apiVersion: kubescheduler.config.k8s.io/v1beta3 is not served"}},
		{"observed TLS", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.ObservedConfig = raw(`{"servingInfo":{"minTLSVersion":"VersionTLS99","cipherSuites":["TLS_AES_128_GCM_SHA256","RC4"]}}`)
		}), []string{"SecondaryScheduler cluster spec.observedConfig: servingInfo.minTLSVersion: ", "SecondaryScheduler cluster spec.observedConfig: servingInfo.cipherSuites[1]: "}},
		{"observed TLS type", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.ObservedConfig = raw(`{"servingInfo":{"minTLSVersion":12}}`)
		}), []string{"SecondaryScheduler cluster spec.observedConfig: servingInfo.minTLSVersion: "}},

		// The spec.
		{"name", func() Inputs { in := minimalInputs(); in.SecondaryScheduler.Name = "other"; return in }(),
			[]string{`SecondaryScheduler other: metadata.name: must be "cluster"`}},
		{"image", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.SchedulerImage = "" }),
			[]string{"SecondaryScheduler cluster: spec.schedulerImage: required"}},
		{"replicas", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.Replicas = ptr.To[int32](0) }),
			[]string{"SecondaryScheduler cluster: spec.replicas: must be at least 1, not 0"}},
		{"logLevel", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.LogLevel = "Loud" }),
			[]string{`SecondaryScheduler cluster: spec.logLevel: "Loud" is not one of Normal, Debug, Trace, TraceAll`}},
		{"reserved container", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Sidecars = []corev1.Container{{Name: "secondary-scheduler", Image: "x"}}
		}), []string{`SecondaryScheduler cluster: spec.sidecars[0].name: "secondary-scheduler" is reserved for the scheduler container`}},
		{"container name clash", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Sidecars = []corev1.Container{{Name: "a", Image: "x"}}
			s.InitContainers = []corev1.Container{{Name: "a", Image: "x"}}
		}), []string{`SecondaryScheduler cluster: spec.initContainers[0].name: duplicate "a" (also spec.sidecars[0])`}},
		{"sidecar image", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Sidecars = []corev1.Container{{Name: "a"}}
		}), []string{"SecondaryScheduler cluster: spec.sidecars[0].image: required"}},
		{"reserved volume", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Volumes = []corev1.Volume{{Name: secondaryschedulerv1.ConfigVolumeName}}
		}), []string{`SecondaryScheduler cluster: spec.volumes[0].name: "secondary-scheduler-config" is reserved for the operator`}},
		{"duplicate volume", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Volumes = []corev1.Volume{{Name: "v"}, {Name: "v"}}
		}), []string{`SecondaryScheduler cluster: spec.volumes[1].name: duplicate "v"`}},
		{"mount of unknown volume", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Sidecars = []corev1.Container{{Name: "a", Image: "x", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/d"}}}}
		}), []string{`SecondaryScheduler cluster: spec.sidecars[0].volumeMounts[0].name: no volume "data"; add it to spec.volumes`}},
		{"mount of serving cert without it", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{VolumeMounts: []corev1.VolumeMount{{Name: secondaryschedulerv1.ServingCertVolumeName, MountPath: "/c"}}}
		}), []string{`SecondaryScheduler cluster: spec.schedulerContainer.volumeMounts[0].name: volume "secondary-scheduler-serving-cert" exists only once service-ca has issued`}},
		{"mount over the config", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Volumes = []corev1.Volume{{Name: "v"}}
			s.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{VolumeMounts: []corev1.VolumeMount{{Name: "v", MountPath: "/etc/secondary-scheduler/"}}}
		}), []string{"SecondaryScheduler cluster: spec.schedulerContainer.volumeMounts[0].mountPath: /etc/secondary-scheduler holds the merged scheduler configuration"}},
		{"rbac rules", withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.RBAC = &secondaryschedulerv1.SchedulerRBAC{
				ClusterRules:    []rbacv1.PolicyRule{{Resources: []string{"nodes"}, Verbs: []string{"list"}}},
				NamespacedRules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}}},
			}
		}), []string{
			`SecondaryScheduler cluster: spec.rbac.clusterRules[0]: needs apiGroups and resources (apiGroups: [""] is the core group)`,
			"SecondaryScheduler cluster: spec.rbac.namespacedRules[0].verbs: required",
			"SecondaryScheduler cluster: spec.rbac.namespacedRules[0].nonResourceURLs: only clusterRules can grant non-resource URLs",
		}},
		{"spec and config problems together", func() Inputs {
			in := withConfig("profiles: []\n")
			in.SecondaryScheduler.Spec.SchedulerImage = ""
			return in
		}(), []string{"SecondaryScheduler cluster: spec.schedulerImage: required", cmSource + "profiles: list at least one"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantProblems(t, tc.in, tc.want) })
	}
}

// wantProblems renders in and wants exactly the problems want, each a prefix
// of one problem line, in this order; no problem at all for an empty want.
func wantProblems(t *testing.T, in Inputs, want []string) {
	t.Helper()
	objs, err := Render(in)
	if err == nil && len(want) == 0 {
		return
	}
	if err == nil {
		t.Fatalf("Render succeeded (%v), want %q", objs.SchedulerNames, want)
	}
	if !IsInputError(err) {
		t.Fatalf("%v is not an InputError", err)
	}
	lines := problem.Strings(err.(*InputError).Problems)
	if len(lines) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d:\n got: %s\nwant: %s...", i, lines[i], w)
		}
	}
}

func TestInputErrorVersusBug(t *testing.T) {
	if _, err := Render(Inputs{}); err == nil || IsInputError(err) {
		t.Errorf("Render without a SecondaryScheduler: %v, want an internal error", err)
	}
}

// TestRuleBounds: a spec.rbac rule is bounded by its lists and by what it
// expands to, before the ceiling check breaks it down.
func TestRuleBounds(t *testing.T) {
	names := func(n int, prefix string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		return out
	}
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		want []string
	}{
		{"a sidecar's rule", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes", "pods"}, Verbs: []string{"get", "list", "watch"}}, nil},
		{"100 items in each list", rbacv1.PolicyRule{APIGroups: names(100, "g"), Resources: names(100, "r"), Verbs: names(100, "v"), ResourceNames: names(100, "n")},
			[]string{"spec.rbac.clusterRules[0].apiGroups: lists 100; at most 16", "spec.rbac.clusterRules[0].resources: lists 100; at most 64",
				"spec.rbac.clusterRules[0].verbs: lists 100; at most 16", "spec.rbac.clusterRules[0].resourceNames: lists 100; at most 64",
				"spec.rbac.clusterRules[0]: grants 100000000 combinations"}},
		{"within each list, past the product", rbacv1.PolicyRule{APIGroups: names(8, "g"), Resources: names(64, "r"), Verbs: names(16, "v")},
			[]string{"spec.rbac.clusterRules[0]: grants 8192 combinations of apiGroups, resources, verbs and resourceNames; at most 4096"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
				s.RBAC = &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{tt.rule}}
			}))
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("%v does not contain %q", err, w)
				}
			}
		})
	}
}

// BenchmarkRefusingALargeRule prints what refusing a rule with 100 items in
// each list costs: it is counted, never expanded.
func BenchmarkRefusingALargeRule(b *testing.B) {
	many := make([]string, 100)
	for i := range many {
		many[i] = fmt.Sprint("x", i)
	}
	in := withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
		s.RBAC = &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{{APIGroups: many, Resources: many, Verbs: many, ResourceNames: many}}}
	})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(in); err == nil {
			b.Fatal("accepted")
		}
	}
}
