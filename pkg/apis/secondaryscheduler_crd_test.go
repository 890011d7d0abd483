package apis_test

import (
	"fmt"
	"strings"
	"testing"
)

const secondarySchedulerCRD = "0000_50_secondary-scheduler-operator_01_secondaryschedulers.crd.yaml"

func validSecondaryScheduler(t *testing.T) map[string]interface{} {
	return fromYAML(t, `
apiVersion: operator.openshift.io/v1
kind: SecondaryScheduler
metadata:
  name: cluster
spec:
  managementState: Managed
  schedulerImage: registry.k8s.io/kube-scheduler:v1.36.2
  sidecars:
  - name: fluxion
    image: example.com/fluxion:v1
  initContainers:
  - name: wait-for-fluxion
    image: example.com/fluxion:v1
  volumes:
  - name: data
    emptyDir: {}
`)
}

func TestSecondarySchedulerDefaults(t *testing.T) {
	s := loadCRD(t, secondarySchedulerCRD)
	obj := validSecondaryScheduler(t)
	if errs := s.admit(obj); len(errs) > 0 {
		t.Fatalf("a valid SecondaryScheduler was refused: %v", errs.ToAggregate())
	}
	spec := obj["spec"].(map[string]interface{})
	for field, want := range map[string]interface{}{"replicas": int64(1), "logLevel": "Normal", "operatorLogLevel": "Normal"} {
		if got := spec[field]; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("spec.%s defaulted to %v, want %v", field, got, want)
		}
	}
}

func TestSecondarySchedulerAdmission(t *testing.T) {
	s := loadCRD(t, secondarySchedulerCRD)
	tooMany := []interface{}{}
	for i := 0; i < 11; i++ {
		tooMany = append(tooMany, map[string]interface{}{"name": fmt.Sprintf("c%d", i), "image": "x"})
	}
	for _, tc := range []struct {
		name   string
		mutate func(obj, spec map[string]interface{})
		want   []string // substrings of one error: the field and what is wrong
	}{
		{"name is not cluster", func(obj, _ map[string]interface{}) {
			obj["metadata"].(map[string]interface{})["name"] = "other"
		}, []string{"metadata.name", "must be named 'cluster'"}},
		{"empty schedulerImage", func(_, spec map[string]interface{}) { spec["schedulerImage"] = "" }, []string{"spec.schedulerImage"}},
		{"missing schedulerImage", func(_, spec map[string]interface{}) { delete(spec, "schedulerImage") }, []string{"spec.schedulerImage", "Required"}},
		{"duplicate sidecar names", func(_, spec map[string]interface{}) {
			spec["sidecars"] = []interface{}{map[string]interface{}{"name": "a", "image": "x"}, map[string]interface{}{"name": "a", "image": "y"}}
		}, []string{"spec.sidecars[1]", "Duplicate value"}},
		{"sidecar uses the scheduler's name", func(_, spec map[string]interface{}) {
			spec["sidecars"] = []interface{}{map[string]interface{}{"name": "secondary-scheduler", "image": "x"}}
		}, []string{"spec.sidecars", "reserved for the scheduler container"}},
		{"init container uses the scheduler's name", func(_, spec map[string]interface{}) {
			spec["initContainers"] = []interface{}{map[string]interface{}{"name": "secondary-scheduler", "image": "x"}}
		}, []string{"spec.initContainers", "reserved for the scheduler container"}},
		{"same name in sidecars and initContainers", func(_, spec map[string]interface{}) {
			spec["initContainers"] = []interface{}{map[string]interface{}{"name": "fluxion", "image": "x"}}
		}, []string{"spec", "a name may be used only once across both lists"}},
		{"duplicate volume names", func(_, spec map[string]interface{}) {
			spec["volumes"] = []interface{}{map[string]interface{}{"name": "v", "emptyDir": map[string]interface{}{}}, map[string]interface{}{"name": "v", "emptyDir": map[string]interface{}{}}}
		}, []string{"spec.volumes[1]", "Duplicate value"}},
		{"reserved volume name", func(_, spec map[string]interface{}) {
			spec["volumes"] = []interface{}{map[string]interface{}{"name": "secondary-scheduler-config", "emptyDir": map[string]interface{}{}}}
		}, []string{"spec.volumes", "reserved for the operator"}},
		{"the token volume's name", func(_, spec map[string]interface{}) {
			spec["volumes"] = []interface{}{map[string]interface{}{"name": "secondary-scheduler-api-access", "emptyDir": map[string]interface{}{}}}
		}, []string{"spec.volumes", "reserved for the operator"}},
		{"a rule with 100 verbs", func(_, spec map[string]interface{}) {
			verbs := make([]interface{}, 100)
			for i := range verbs {
				verbs[i] = "get"
			}
			spec["rbac"] = map[string]interface{}{"clusterRules": []interface{}{map[string]interface{}{"apiGroups": []interface{}{""}, "resources": []interface{}{"nodes"}, "verbs": verbs}}}
		}, []string{"spec.rbac.clusterRules[0].verbs", "must have at most 16 items"}},
		{"too many sidecars", func(_, spec map[string]interface{}) { spec["sidecars"] = tooMany }, []string{"spec.sidecars", "must have at most 10 items"}},
		{"replicas zero", func(_, spec map[string]interface{}) { spec["replicas"] = int64(0) }, []string{"spec.replicas", "greater than or equal to 1"}},
		{"bad managementState", func(_, spec map[string]interface{}) { spec["managementState"] = "Sometimes" }, []string{"spec.managementState"}},
		{"schedulerConfig not a ConfigMap name", func(_, spec map[string]interface{}) { spec["schedulerConfig"] = "My_Config" }, []string{"spec.schedulerConfig", "must be a ConfigMap name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := validSecondaryScheduler(t)
			tc.mutate(obj, obj["spec"].(map[string]interface{}))
			expectRefused(t, s.admit(obj).ToAggregate(), tc.want)
		})
	}
}

func expectRefused(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want an error containing %q", want)
	}
	for _, line := range strings.Split(err.Error(), ", ") {
		matched := true
		for _, w := range want {
			matched = matched && strings.Contains(line, w)
		}
		if matched {
			return
		}
	}
	t.Fatalf("error %q has no entry containing all of %q", err, want)
}
