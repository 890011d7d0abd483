package simulatorrender

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/internal/golden"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender/simulatortest"
)

var newSimulator = simulatortest.New

func renderSim(sim *simv1alpha1.Simulator) (*Objects, error) {
	return Render(Inputs{Simulator: sim})
}

// goldenCases pin the exact objects a Simulator renders to, in testdata/<name>.yaml
// (regenerate with UPDATE_GOLDEN=1 go test ./pkg/operator/simulatorrender/).
var goldenCases = map[string]*simv1alpha1.Simulator{
	// Only what the CRD defaults: an etcd container in the Pod.
	"defaults": newSimulator("sim"),
	// Every field of the KEP, with an external etcd: no etcd container.
	"external-etcd": newSimulator("sim", func(s *simv1alpha1.Simulator) {
		s.Spec.KubeAPIServerPort = 6443
		s.Spec.SimulatorServerPort = 8080
		s.Spec.KubeSchedulerConfigurationPath = "/etc/simulator/scheduler.yaml"
		s.Spec.EtcdURL = ptr.To("https://etcd.team-a.svc:2379")
		s.Spec.CORSAllowedOriginList = []string{"http://localhost:3000", "https://simulator.apps.example.com"}
		s.Spec.Image = "quay.io/example/simulator:v0.1.1-custom"
		s.Spec.IngressFrom = []networkingv1.NetworkPolicyPeer{
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "simulator-ui"}}},
			{IPBlock: &networkingv1.IPBlock{CIDR: "192.0.2.0/24"}},
		}
	}),
	// A podTemplate overriding both generated containers and adding everything else.
	"pod-template": newSimulator("sim", func(s *simv1alpha1.Simulator) {
		s.Spec.KubeSchedulerConfigurationPath = "/etc/simulator/scheduler.yaml"
		s.Spec.PodTemplate = fullTemplate()
	}),
}

func fullTemplate() *corev1.PodTemplateSpec {
	return &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{
			Labels:      map[string]string{"team": "a", SimulatorLabel: "not-this"},
			Annotations: map[string]string{"example.com/note": "kept"},
		},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"node-role.kubernetes.io/worker": ""},
			Tolerations:  []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "sim", Effect: corev1.TaintEffectNoSchedule}},
			InitContainers: []corev1.Container{{
				Name: "fetch-config", Image: "registry.example.com/tools:1", Command: []string{"cp", "/src/scheduler.yaml", "/etc/simulator/"},
				VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/simulator"}},
			}},
			Containers: []corev1.Container{
				{Name: "sidecar", Image: "registry.example.com/sidecar:1"},
				{
					Name:  simv1alpha1.SimulatorContainerName,
					Image: "registry.example.com/simulator:patched",
					Env: []corev1.EnvVar{
						{Name: EnvCORSAllowedOriginList, Value: "https://ui.example.com"},
						{Name: "KLOG_V", Value: "4"},
					},
					Ports: []corev1.ContainerPort{{Name: SimulatorPortName, ContainerPort: 1212, HostPort: 31212}},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")},
					},
					VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/simulator", ReadOnly: true}},
				},
				{
					Name:         simv1alpha1.EtcdContainerName,
					VolumeMounts: []corev1.VolumeMount{{Name: "etcd-pvc", MountPath: etcdDataDir}},
				},
			},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "etcd-pvc", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "sim-etcd"}}},
			},
		},
	}
}

func TestRenderGolden(t *testing.T) {
	for name, sim := range goldenCases {
		t.Run(name, func(t *testing.T) {
			r, err := renderSim(sim)
			if err != nil {
				t.Fatal(err)
			}
			out := bytes.NewBuffer(golden.YAML(t, r.Pod, r.Service, r.NetworkPolicy))
			out.WriteString("# kubeAPIServerURL: " + r.KubeAPIServerURL + "\n")
			compareGolden(t, filepath.Join("testdata", name+".yaml"), out.Bytes())
		})
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.Compare(t, path, got)
}

func container(t *testing.T, pod *corev1.Pod, name string) *corev1.Container {
	t.Helper()
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	t.Fatalf("no container %q in %v", name, pod.Spec.Containers)
	return nil
}

func env(c *corev1.Container) map[string]string {
	m := map[string]string{}
	for _, e := range c.Env {
		m[e.Name] = e.Value
	}
	return m
}

func TestRenderContract(t *testing.T) {
	r, err := renderSim(goldenCases["external-etcd"])
	if err != nil {
		t.Fatal(err)
	}
	sim := container(t, r.Pod, "simulator")
	want := map[string]string{
		EnvKubeAPIHost:             "0.0.0.0",
		EnvKubeAPIPort:             "6443",
		EnvPort:                    "8080",
		EnvEtcdURL:                 "https://etcd.team-a.svc:2379",
		EnvCORSAllowedOriginList:   "http://localhost:3000,https://simulator.apps.example.com",
		EnvKubeSchedulerConfigPath: "/etc/simulator/scheduler.yaml",
	}
	if diff := cmp.Diff(want, env(sim)); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	if len(r.Pod.Spec.Containers) != 1 {
		t.Errorf("with etcdURL the Pod must have no etcd container: %v", r.Pod.Spec.Containers)
	}
	if r.KubeAPIServerURL != "http://sim.team-a.svc:6443" {
		t.Errorf("URL %q", r.KubeAPIServerURL)
	}
	if got := r.Service.Spec.Ports; len(got) != 2 || got[0].Port != 6443 || got[1].Port != 8080 {
		t.Errorf("service ports %v", got)
	}
	// The narrow policy is the policy without spec.ingressFrom's two peers.
	narrow, wide := r.NarrowNetworkPolicy, r.NetworkPolicy
	if from := narrow.Spec.Ingress[0].From; len(from) != 1 || len(wide.Spec.Ingress[0].From) != 3 ||
		narrow.Name != wide.Name || !cmp.Equal(narrow.Labels, wide.Labels) || !cmp.Equal(narrow.Spec.PodSelector, wide.Spec.PodSelector) {
		t.Errorf("narrow policy %+v, wide %+v", narrow, wide)
	}

	d, err := renderSim(newSimulator("sim"))
	if err != nil {
		t.Fatal(err)
	}
	if got := env(container(t, d.Pod, "simulator")); got[EnvEtcdURL] != EmbeddedEtcdURL || got[EnvCORSAllowedOriginList] != DefaultCORSAllowedOrigin {
		t.Errorf("defaults: env %v", got)
	}
	if _, ok := env(container(t, d.Pod, "simulator"))[EnvKubeSchedulerConfigPath]; ok {
		t.Errorf("no %s without kubeSchedulerConfigurationPath", EnvKubeSchedulerConfigPath)
	}
	etcd := container(t, d.Pod, "etcd")
	if etcd.Image != DefaultEtcdImage || !strings.Contains(strings.Join(etcd.Args, " "), "--listen-client-urls=http://127.0.0.1:2379") {
		t.Errorf("etcd container %+v", etcd)
	}
	ref := d.Pod.OwnerReferences
	if len(ref) != 1 || ref[0].Kind != "Simulator" || ref[0].UID != goldenCases["defaults"].UID || !*ref[0].Controller {
		t.Errorf("owner references %+v", ref)
	}
	if d.Pod.Labels[SimulatorLabel] != "sim" || d.Service.Labels[SimulatorLabel] != "sim" || d.Service.Spec.Selector[SimulatorLabel] != "sim" {
		t.Errorf("labels: pod %v service %v selector %v", d.Pod.Labels, d.Service.Labels, d.Service.Spec.Selector)
	}
	if d.Pod.Annotations[SpecHashAnnotation] != d.SpecHash || !strings.HasSuffix(d.Pod.Name, "-"+d.SpecHash[:podNameHashSize]) {
		t.Errorf("pod %s annotations %v hash %s", d.Pod.Name, d.Pod.Annotations, d.SpecHash)
	}
}

func TestRenderPodTemplatePrecedence(t *testing.T) {
	r, err := renderSim(goldenCases["pod-template"])
	if err != nil {
		t.Fatal(err)
	}
	pod := r.Pod
	var names []string
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"simulator", "etcd", "sidecar"}, names); diff != "" {
		t.Errorf("container order (-want +got):\n%s", diff)
	}

	sim := container(t, pod, "simulator")
	if sim.Image != "registry.example.com/simulator:patched" {
		t.Errorf("the template's image must win: %s", sim.Image)
	}
	e := env(sim)
	if e[EnvCORSAllowedOriginList] != "https://ui.example.com" || e["KLOG_V"] != "4" || e[EnvKubeAPIPort] != "3131" || e[EnvKubeSchedulerConfigPath] != "/etc/simulator/scheduler.yaml" {
		t.Errorf("env must merge by name with the template winning: %v", e)
	}
	if sim.Env[len(sim.Env)-1].Name != "KLOG_V" {
		t.Errorf("template-only env goes last: %v", sim.Env)
	}
	if len(sim.Ports) != 2 || sim.Ports[1].HostPort != 31212 || sim.Ports[0].ContainerPort != 3131 {
		t.Errorf("ports must merge by name: %+v", sim.Ports)
	}
	if sim.Resources.Requests.Cpu().String() != "500m" || sim.ReadinessProbe == nil || sim.StartupProbe == nil {
		t.Errorf("unset fields keep the generated value, set ones win: resources %v readiness %v", sim.Resources, sim.ReadinessProbe)
	}

	etcd := container(t, pod, "etcd")
	if etcd.Image != DefaultEtcdImage || len(etcd.Args) == 0 {
		t.Errorf("the template's etcd sets no image or args: generated ones stay: %+v", etcd)
	}
	if len(etcd.VolumeMounts) != 1 || etcd.VolumeMounts[0].Name != "etcd-pvc" {
		t.Errorf("a template mount on the data dir replaces the generated one: %+v", etcd.VolumeMounts)
	}
	for _, v := range pod.Spec.Volumes {
		if v.Name == etcdDataVolume {
			t.Errorf("the generated emptyDir is unused and must be dropped: %v", pod.Spec.Volumes)
		}
	}
	if len(pod.Spec.Volumes) != 2 || len(pod.Spec.InitContainers) != 1 || pod.Spec.NodeSelector == nil || len(pod.Spec.Tolerations) != 1 {
		t.Errorf("everything else in the template is kept: %+v", pod.Spec)
	}
	if pod.Labels["team"] != "a" || pod.Labels[SimulatorLabel] != "sim" || pod.Annotations["example.com/note"] != "kept" {
		t.Errorf("labels %v annotations %v: template kept, ours win", pod.Labels, pod.Annotations)
	}
}

func TestMergeContainerFieldByField(t *testing.T) {
	generated := simulatorContainer(withDefaults(&newSimulator("sim").Spec))
	tests := []struct {
		name     string
		template corev1.Container
		check    func(t *testing.T, got corev1.Container)
	}{
		{
			name:     "name only: the generated container",
			template: corev1.Container{Name: "simulator"},
			check: func(t *testing.T, got corev1.Container) {
				if diff := cmp.Diff(generated, got); diff != "" {
					t.Errorf("(-generated +got):\n%s", diff)
				}
			},
		},
		{
			name:     "command, args and probe replaced whole",
			template: corev1.Container{Name: "simulator", Command: []string{"/sim"}, Args: []string{"-v=4"}, ReadinessProbe: &corev1.Probe{InitialDelaySeconds: 9}},
			check: func(t *testing.T, got corev1.Container) {
				if got.Command[0] != "/sim" || got.Args[0] != "-v=4" || got.ReadinessProbe.InitialDelaySeconds != 9 || got.ReadinessProbe.TCPSocket != nil {
					t.Errorf("%+v", got)
				}
				if got.StartupProbe == nil || got.Image != generated.Image {
					t.Errorf("unset fields must keep the generated value: %+v", got)
				}
			},
		},
		{
			name:     "env valueFrom replaces the generated value",
			template: corev1.Container{Name: "simulator", Env: []corev1.EnvVar{{Name: EnvEtcdURL, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "url"}}}}},
			check: func(t *testing.T, got corev1.Container) {
				for i, e := range got.Env {
					if e.Name == EnvEtcdURL && (e.Value != "" || e.ValueFrom == nil || i != 3) {
						t.Errorf("in place, template's entry whole: %+v", got.Env)
					}
				}
				if len(got.Env) != len(generated.Env) {
					t.Errorf("no duplicate: %+v", got.Env)
				}
			},
		},
		{
			name:     "port matched by containerPort",
			template: corev1.Container{Name: "simulator", Ports: []corev1.ContainerPort{{Name: "api", ContainerPort: 3131}, {Name: "metrics", ContainerPort: 9090}}},
			check: func(t *testing.T, got corev1.Container) {
				if len(got.Ports) != 3 || got.Ports[0].Name != "api" || got.Ports[2].Name != "metrics" {
					t.Errorf("%+v", got.Ports)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, mergeContainer(generated, tc.template))
		})
	}
}

func TestSpecHash(t *testing.T) {
	base, _ := renderSim(newSimulator("sim"))
	again, _ := renderSim(newSimulator("sim"))
	if base.SpecHash != again.SpecHash || base.Pod.Name != again.Pod.Name {
		t.Fatalf("the hash must be stable: %s %s", base.SpecHash, again.SpecHash)
	}
	same := map[string]func(*simv1alpha1.Simulator){
		"status":         func(s *simv1alpha1.Simulator) { s.Status.Phase = simv1alpha1.SimulatorAvailable },
		"generation":     func(s *simv1alpha1.Simulator) { s.Generation = 7 },
		"explicit empty": func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("") },
		"defaulted port": func(s *simv1alpha1.Simulator) { s.Spec.KubeAPIServerPort = 0 },
	}
	for name, m := range same {
		if r, _ := renderSim(newSimulator("sim", m)); r.SpecHash != base.SpecHash {
			t.Errorf("%s: must not restart the Pod", name)
		}
	}
	differ := map[string]func(*simv1alpha1.Simulator){
		"image":       func(s *simv1alpha1.Simulator) { s.Spec.Image = "example.com/sim:2" },
		"port":        func(s *simv1alpha1.Simulator) { s.Spec.SimulatorServerPort = 1313 },
		"cors":        func(s *simv1alpha1.Simulator) { s.Spec.CORSAllowedOriginList = []string{"http://a.example"} },
		"etcd":        func(s *simv1alpha1.Simulator) { s.Spec.EtcdURL = ptr.To("http://etcd:2379") },
		"config path": func(s *simv1alpha1.Simulator) { s.Spec.KubeSchedulerConfigurationPath = "/c.yaml" },
		"template":    func(s *simv1alpha1.Simulator) { s.Spec.PodTemplate = fullTemplate() },
		"template tag": func(s *simv1alpha1.Simulator) {
			s.Spec.PodTemplate = &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}}
		},
		"recreated": func(s *simv1alpha1.Simulator) { s.UID = "another" },
	}
	for name, m := range differ {
		r, _ := renderSim(newSimulator("sim", m))
		if r.SpecHash == base.SpecHash || r.Pod.Name == base.Pod.Name {
			t.Errorf("%s: must restart the Pod", name)
		}
	}
}
