package apis_test

import (
	"strings"
	"testing"
)

const simulatorCRD = "0000_50_secondary-scheduler-operator_02_simulators.crd.yaml"

func TestSimulatorDefaults(t *testing.T) {
	s := loadCRD(t, simulatorCRD)
	for name, doc := range map[string]string{
		"no spec":    "apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1\nkind: Simulator\nmetadata: {name: s, namespace: n}\n",
		"empty spec": "apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1\nkind: Simulator\nmetadata: {name: s, namespace: n}\nspec: {}\n",
	} {
		t.Run(name, func(t *testing.T) {
			obj := fromYAML(t, doc)
			if errs := s.admit(obj); len(errs) > 0 {
				t.Fatalf("refused: %v", errs.ToAggregate())
			}
			spec, ok := obj["spec"].(map[string]interface{})
			if !ok {
				t.Fatalf("spec was not defaulted: %v", obj)
			}
			for field, want := range map[string]interface{}{
				"kubeAPIServerPort":   int64(3131),
				"simulatorServerPort": int64(1212),
				"image":               "registry.k8s.io/scheduler-simulator/simulator-backend:v0.1.1",
			} {
				if spec[field] != want {
					t.Errorf("spec.%s = %v, want %v", field, spec[field], want)
				}
			}
		})
	}
}

func TestSimulatorAdmission(t *testing.T) {
	s := loadCRD(t, simulatorCRD)
	for _, tc := range []struct {
		name string
		spec string
		want []string
	}{
		{"apiserver port zero", "kubeAPIServerPort: 0", []string{"spec.kubeAPIServerPort", "greater than or equal to 1"}},
		{"simulator port too high", "simulatorServerPort: 65536", []string{"spec.simulatorServerPort", "less than or equal to 65535"}},
		{"ports equal", "kubeAPIServerPort: 8080, simulatorServerPort: 8080", []string{"spec", "must differ"}},
		{"etcdURL not http", "etcdURL: etcd:2379", []string{"spec.etcdURL", "http:// or https:// URL"}},
		{"CORS origin not absolute", "corsAllowedOriginList: [localhost:3000]", []string{"spec.corsAllowedOriginList", "absolute URL"}},
		{"relative config path", "kubeSchedulerConfigurationPath: config/scheduler.yaml", []string{"spec.kubeSchedulerConfigurationPath", "absolute path"}},
		{"empty image", `image: ""`, []string{"spec.image"}},
		{"two etcd URLs", "etcdURL: 'http://a:2379,http://b:2379'", []string{"spec.etcdURL", "must be one URL"}},
		{"comma in a CORS origin", "corsAllowedOriginList: ['http://a,http://b']", []string{"spec.corsAllowedOriginList", "one origin per list item"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := fromYAML(t, "apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1\nkind: Simulator\nmetadata: {name: s, namespace: n}\nspec: {"+tc.spec+"}\n")
			expectRefused(t, s.admit(obj).ToAggregate(), tc.want)
		})
	}

	for _, name := range []string{strings.Repeat("a", 64), "Upper", "1digit", "dot.ted"} {
		obj := fromYAML(t, "apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1\nkind: Simulator\nmetadata: {name: "+name+", namespace: n}\nspec: {}\n")
		expectRefused(t, s.admit(obj).ToAggregate(), []string{"DNS-1035 label"})
	}

	ok := fromYAML(t, `
apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1
kind: Simulator
metadata: {name: s, namespace: n}
spec:
  etcdURL: https://etcd.example:2379
  corsAllowedOriginList: [http://localhost:3000, https://ui.example]
  kubeSchedulerConfigurationPath: /config/scheduler.yaml
  podTemplate:
    metadata:
      labels: {team: a}
    spec:
      containers: [{name: simulator, image: example.com/sim:v1}]
`)
	if errs := s.admit(ok); len(errs) > 0 {
		t.Fatalf("a valid Simulator was refused: %v", errs.ToAggregate())
	}
	labels := ok["spec"].(map[string]interface{})["podTemplate"].(map[string]interface{})["metadata"].(map[string]interface{})["labels"]
	if labels == nil {
		t.Fatalf("podTemplate.metadata.labels must be part of the schema (else the API server prunes them)")
	}
}
