package render

import (
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// BenchmarkRenderConfigSize: how render time grows with the configuration:
// 1, 10 and 50 profiles (each with its own plugin set and arguments), and 20
// sidecars beside one profile.
//
//	go test ./pkg/operator/render/ -run '^$' -bench BenchmarkRenderConfigSize -benchmem
func BenchmarkRenderConfigSize(b *testing.B) {
	for _, size := range []struct{ profiles, sidecars int }{{1, 0}, {10, 0}, {50, 0}, {1, 20}} {
		b.Run(fmt.Sprintf("profiles=%d/sidecars=%d", size.profiles, size.sidecars), func(b *testing.B) {
			in := sizedInputs(size.profiles, size.sidecars)
			if _, err := Render(in); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func sizedInputs(profiles, sidecars int) Inputs {
	var config strings.Builder
	config.WriteString("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n")
	for i := range profiles {
		fmt.Fprintf(&config, `- schedulerName: profile-%d
  plugins:
    score:
      disabled:
      - name: NodeResourcesBalancedAllocation
      enabled:
      - name: NodeResourcesFit
        weight: %d
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
        resources:
        - name: cpu
          weight: %d
        - name: memory
          weight: 1
`, i, i%10+1, i%5+1)
	}
	ss := &secondaryschedulerv1.SecondaryScheduler{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster"},
		Spec: secondaryschedulerv1.SecondarySchedulerSpec{
			OperatorSpec:    operatorv1.OperatorSpec{ManagementState: operatorv1.Managed},
			SchedulerImage:  "registry.k8s.io/kube-scheduler:v1.36.2",
			SchedulerConfig: "sized",
		},
	}
	for i := range sidecars {
		ss.Spec.Sidecars = append(ss.Spec.Sidecars, corev1.Container{
			Name:  fmt.Sprintf("sidecar-%d", i),
			Image: fmt.Sprintf("example.com/sidecar-%d:v1", i),
			Args:  []string{fmt.Sprintf("--port=%d", 9000+i)},
			Ports: []corev1.ContainerPort{{Name: fmt.Sprintf("p-%d", i), ContainerPort: int32(9000 + i)}},
		})
	}
	return Inputs{
		SecondaryScheduler: ss,
		UserConfig: &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "sized", Namespace: names.OperandNamespace},
			Data:       map[string]string{names.ConfigKey: config.String()},
		},
	}
}

// BenchmarkRenderUnchanged: a Renderer rendering the same inputs again, as
// the target-config controller does on every event it watches while nothing
// in the configuration changed; BenchmarkRenderConfigSize is the same inputs
// rendered afresh.
//
//	go test ./pkg/operator/render/ -run '^$' -bench BenchmarkRenderUnchanged -benchmem
func BenchmarkRenderUnchanged(b *testing.B) {
	for _, size := range []struct{ profiles, sidecars int }{{1, 0}, {10, 0}, {50, 0}, {1, 20}} {
		b.Run(fmt.Sprintf("profiles=%d/sidecars=%d", size.profiles, size.sidecars), func(b *testing.B) {
			in := sizedInputs(size.profiles, size.sidecars)
			var r Renderer
			if _, err := r.Render(in); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Render(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
