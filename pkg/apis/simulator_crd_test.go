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
		{"a selector value list of 65", "ingressFrom: [{podSelector: {matchExpressions: [{key: k, operator: In, values: [v0,v1,v2,v3,v4,v5,v6,v7,v8,v9,v10,v11,v12,v13,v14,v15,v16,v17,v18,v19,v20,v21,v22,v23,v24,v25,v26,v27,v28,v29,v30,v31,v32,v33,v34,v35,v36,v37,v38,v39,v40,v41,v42,v43,v44,v45,v46,v47,v48,v49,v50,v51,v52,v53,v54,v55,v56,v57,v58,v59,v60,v61,v62,v63,v64]}]}}]",
			[]string{"spec.ingressFrom[0].podSelector.matchExpressions[0].values", "must have at most 64 items"}},
		{"33 labels in a selector", "ingressFrom: [{namespaceSelector: {matchLabels: {l0: v, l1: v, l2: v, l3: v, l4: v, l5: v, l6: v, l7: v, l8: v, l9: v, l10: v, l11: v, l12: v, l13: v, l14: v, l15: v, l16: v, l17: v, l18: v, l19: v, l20: v, l21: v, l22: v, l23: v, l24: v, l25: v, l26: v, l27: v, l28: v, l29: v, l30: v, l31: v, l32: v}}}]",
			[]string{"spec.ingressFrom[0].namespaceSelector.matchLabels", "must have at most 32 items"}},
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
