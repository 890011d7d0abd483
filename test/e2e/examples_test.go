package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// schedulerExamples are the SecondaryScheduler examples (examples/<name>/ with
// secondaryscheduler.yaml and configmap.yaml) and the schedulerNames each
// serves. examples/simulators holds Simulators (TestSimulatorExamples).
var schedulerExamples = map[string][]string{
	"bin-packing":    {"secondary-scheduler"},
	"coscheduling":   {"secondary-scheduler"},
	"kubeflux":       {"fluence"},
	"native-sidecar": {"secondary-scheduler"},
	"trimaran":       {"trimaran"},
}

// TestExamplesRender (offline): every example decodes strictly, as the API
// server would, and renders without a problem to the schedulerNames its
// comments promise; and no example directory goes untested.
func TestExamplesRender(t *testing.T) {
	dirs, err := os.ReadDir(repoPath(t, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, ok := schedulerExamples[d.Name()]; !ok && d.IsDir() && d.Name() != "simulators" {
			t.Errorf("examples/%s is not in schedulerExamples: add it, so that it is rendered and reconciled", d.Name())
		}
	}
	for _, name := range sortedExamples() {
		t.Run(name, func(t *testing.T) {
			ss, cm := readExample(t, name)
			objs, err := render.Render(render.Inputs{SecondaryScheduler: ss, UserConfig: cm})
			if err != nil {
				t.Fatalf("examples/%s does not render: %v", name, err)
			}
			if want := schedulerExamples[name]; !reflect.DeepEqual(objs.SchedulerNames, want) {
				t.Errorf("examples/%s serves %v, want %v", name, objs.SchedulerNames, want)
			}
		})
	}
}

// TestEveryExampleReconciles: each example, applied with `kubectl apply -f
// examples/<name>/`, is rolled out by the operator without a Degraded
// condition, and the ReplicaSet creates its pods in the restricted operand
// namespace (sidecars and init containers included).
func TestEveryExampleReconciles(t *testing.T) {
	c := needCluster(t)
	for _, name := range sortedExamples() {
		t.Run(name, func(t *testing.T) {
			c.applyExample(t, name)
			d := c.waitReconciled(t)
			c.expectPodsCreated(t, d)
		})
	}
}

func sortedExamples() []string {
	var names []string
	for n := range schedulerExamples {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// readExample decodes examples/<name>/ strictly.
func readExample(t *testing.T, name string) (*secondaryschedulerv1.SecondaryScheduler, *corev1.ConfigMap) {
	t.Helper()
	dir := repoPath(t, "examples", name)
	ss := &secondaryschedulerv1.SecondaryScheduler{}
	cm := &corev1.ConfigMap{}
	for file, into := range map[string]interface{}{"secondaryscheduler.yaml": ss, "configmap.yaml": cm} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.UnmarshalStrict(data, into); err != nil {
			t.Fatalf("examples/%s/%s: %v", name, file, err)
		}
	}
	if ss.Name != "cluster" || ss.Spec.SchedulerConfig != cm.Name || cm.Namespace != names.OperandNamespace {
		t.Fatalf("examples/%s: the SecondaryScheduler must be \"cluster\" and name its ConfigMap %s/%s in spec.schedulerConfig (it names %q)",
			name, names.OperandNamespace, cm.Name, ss.Spec.SchedulerConfig)
	}
	return ss, cm
}
