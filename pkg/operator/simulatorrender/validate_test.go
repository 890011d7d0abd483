package simulatorrender

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// TestValidate covers every invalid input, including those the CRD's CEL rules
// reject at admission (the Go check is the same rule, for defence in depth).
func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*simv1alpha1.Simulator)
		// want are substrings of the error, in order: the field, then the advice.
		want []string
	}{
		{name: "valid defaults"},
		{name: "valid full", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.EtcdURL = ptr.To("https://etcd.example:2379")
			s.Spec.CORSAllowedOriginList = []string{"http://localhost:3000", "https://ui.example.com:8443"}
			s.Spec.KubeSchedulerConfigurationPath = "/etc/simulator/scheduler.yaml"
			s.Spec.KubeAPIServerPort, s.Spec.SimulatorServerPort = 2379, 2380 // free with an external etcd
		}},
		{name: "valid empty etcdURL", mutate: func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("") }},

		{name: "name too long for a Service", mutate: func(s *simv1alpha1.Simulator) { s.Name = strings.Repeat("a", 64) },
			want: []string{"metadata.name", "DNS-1035", "create the Simulator again"}},
		{name: "name starting with a digit", mutate: func(s *simv1alpha1.Simulator) { s.Name = "1sim" },
			want: []string{"metadata.name", "DNS-1035"}},
		{name: "name with a dot", mutate: func(s *simv1alpha1.Simulator) { s.Name = "sim.a" },
			want: []string{"metadata.name"}},

		{name: "port negative", mutate: func(s *simv1alpha1.Simulator) { s.Spec.KubeAPIServerPort = -1 },
			want: []string{"spec.kubeAPIServerPort", "between 1 and 65535"}},
		{name: "port too big", mutate: func(s *simv1alpha1.Simulator) { s.Spec.SimulatorServerPort = 65536 },
			want: []string{"spec.simulatorServerPort", "between 1 and 65535"}},
		{name: "ports equal", mutate: func(s *simv1alpha1.Simulator) { s.Spec.SimulatorServerPort = s.Spec.KubeAPIServerPort },
			want: []string{"spec.simulatorServerPort", "must differ from kubeAPIServerPort"}},
		{name: "port equal to the default of the other", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.KubeAPIServerPort, s.Spec.SimulatorServerPort = 0, simv1alpha1.DefaultKubeAPIServerPort
		}, want: []string{"must differ"}},
		{name: "port taken by the etcd container", mutate: func(s *simv1alpha1.Simulator) { s.Spec.KubeAPIServerPort = 2379 },
			want: []string{"spec.kubeAPIServerPort", "etcd container", "set etcdURL"}},
		{name: "port taken by the embedded kube-apiserver's secure port", mutate: func(s *simv1alpha1.Simulator) { s.Spec.KubeAPIServerPort = 6443 },
			want: []string{"spec.kubeAPIServerPort", "secure port", "simulator-backend:v0.1.1", "choose another port"}},
		{name: "6443 for the simulator server", mutate: func(s *simv1alpha1.Simulator) { s.Spec.SimulatorServerPort = 6443 },
			want: []string{"spec.simulatorServerPort", "secure port"}},

		{name: "etcdURL without scheme", mutate: func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("etcd:2379") },
			want: []string{"spec.etcdURL", "http://"}},
		{name: "etcdURL other scheme", mutate: func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("unix:///run/etcd.sock") },
			want: []string{"spec.etcdURL", "absolute URL"}},
		{name: "etcdURL grpc", mutate: func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("grpc://etcd:2379") },
			want: []string{"spec.etcdURL", `scheme "grpc"`}},
		{name: "etcdURL list", mutate: func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("http://a:2379,http://b:2379") },
			want: []string{"spec.etcdURL", "commas"}},

		{name: "CORS origin not a URL", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.CORSAllowedOriginList = []string{"http://ok.example", "localhost:3000"}
		},
			want: []string{"spec.corsAllowedOriginList[1]", "http://localhost:3000", "ignores the whole list"}},
		{name: "CORS origin relative", mutate: func(s *simv1alpha1.Simulator) { s.Spec.CORSAllowedOriginList = []string{"/ui"} },
			want: []string{"spec.corsAllowedOriginList[0]", "scheme and a host"}},
		{name: "CORS origin with a comma", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.CORSAllowedOriginList = []string{"http://a.example,http://b.example"}
		},
			want: []string{"spec.corsAllowedOriginList[0]", "commas"}},
		{name: "CORS origin empty", mutate: func(s *simv1alpha1.Simulator) { s.Spec.CORSAllowedOriginList = []string{""} },
			want: []string{"spec.corsAllowedOriginList[0]"}},

		{name: "relative config path", mutate: func(s *simv1alpha1.Simulator) { s.Spec.KubeSchedulerConfigurationPath = "config/scheduler.yaml" },
			want: []string{"spec.kubeSchedulerConfigurationPath", "absolute path"}},

		{name: "image with spaces", mutate: func(s *simv1alpha1.Simulator) { s.Spec.Image = " example.com/sim:1" },
			want: []string{"spec.image"}},

		{name: "ingressFrom every namespace and a CIDR", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{
				{NamespaceSelector: &metav1.LabelSelector{}},
				{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16"}}},
			}
		}},
		{name: "ingressFrom empty peer", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{{}}
		}, want: []string{"spec.ingressFrom[0]", "namespaceSelector"}},
		{name: "ingressFrom ipBlock with a selector", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8"}, PodSelector: &metav1.LabelSelector{}}}
		}, want: []string{"spec.ingressFrom[0]", "separate entries"}},
		{name: "ingressFrom bad CIDR", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0"}}}
		}, want: []string{"spec.ingressFrom[0].ipBlock.cidr", "10.0.0.0/16"}},
		{name: "ingressFrom except outside the CIDR", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/16", Except: []string{"192.168.0.0/24"}}}}
		}, want: []string{"spec.ingressFrom[0].ipBlock.except[0]", "strict subset"}},
		{name: "ingressFrom bad selector", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}}}}
		}, want: []string{"spec.ingressFrom[0].namespaceSelector.matchLabels"}},

		{name: "init container named simulator", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.PodTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "simulator"}}}}
		}, want: []string{"spec.podTemplate.spec.initContainers[0].name", "podTemplate.spec.containers"}},
		{name: "init container named etcd is fine with an external etcd", mutate: func(s *simv1alpha1.Simulator) {
			s.Spec.EtcdURL = ptr.To("http://etcd:2379")
			s.Spec.PodTemplate = &corev1.PodTemplateSpec{Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "etcd"}}}}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim := newSimulator("sim")
			if tc.mutate != nil {
				tc.mutate(sim)
			}
			errs := Validate(sim)
			_, renderErr := renderSim(sim)
			if len(tc.want) == 0 {
				if len(errs) > 0 || renderErr != nil {
					t.Fatalf("valid input refused: %v", errs)
				}
				return
			}
			if len(errs) == 0 || renderErr == nil {
				t.Fatalf("invalid input accepted")
			}
			if !IsInputError(renderErr) {
				t.Errorf("Render's error %T is not an *InputError", renderErr)
			}
			msg := renderErr.Error()
			at := 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("%q not found (in order) in %q", w, msg)
				}
				at += i + len(w)
			}
		})
	}
}

// A spec is bounded as JSON, whether measured here or noted by the cache's
// transform (DropOversizedSpec), which keeps nothing else of it.
func TestValidateSpecSize(t *testing.T) {
	withAnnotation := func(n int) *simv1alpha1.Simulator {
		return &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}, Spec: simv1alpha1.SimulatorSpec{Image: "img",
			PodTemplate: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"n": strings.Repeat("x", n)}}}}}
	}
	overhead := specBytes(&withAnnotation(0).Spec)
	if errs := Validate(withAnnotation(MaxSpecBytes - overhead)); len(errs) > 0 {
		t.Errorf("a spec of MaxSpecBytes: %v", errs)
	}
	want := fmt.Sprintf(`spec: Invalid value: "%d bytes as JSON": at most 8192 bytes of JSON are accepted`, MaxSpecBytes+1)
	over := withAnnotation(MaxSpecBytes - overhead + 1)
	if errs := Validate(over); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) {
		t.Errorf("a byte over: %v, want %q", errs, want)
	}
	if keep := DropOversizedSpec(over); !reflect.DeepEqual(keep, []string{SpecBytesAnnotation}) || over.Spec.PodTemplate != nil {
		t.Fatalf("DropOversizedSpec kept %v and the spec %+v", keep, over.Spec)
	}
	if errs := Validate(over); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), want) {
		t.Errorf("the dropped spec: %v, want %q", errs, want)
	}
	// A user's annotation of that name, on a spec the API server serves (with its image), says nothing.
	spoofed := withAnnotation(0)
	spoofed.Annotations = map[string]string{SpecBytesAnnotation: "999999"}
	if errs := Validate(spoofed); len(errs) > 0 {
		t.Errorf("a user's annotation was taken for the note: %v", errs)
	}
	if keep := DropOversizedSpec(spoofed); keep != nil {
		t.Errorf("DropOversizedSpec keeps a user's annotation: %v", keep)
	}
}
