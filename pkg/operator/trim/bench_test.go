package trim

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// BenchmarkCachedSimulator prints the heap a cache holds per Simulator, after
// Objects, for a podTemplate whose annotations hold templateKiB KiB: what a
// namespace user's Simulators cost the operator's memory.
//
//	go test ./pkg/operator/trim/ -run '^$' -bench BenchmarkCachedSimulator
func BenchmarkCachedSimulator(b *testing.B) {
	const simulators = 200
	for _, templateKiB := range []int{1, 6, 250} {
		b.Run(fmt.Sprintf("template-KiB=%d", templateKiB), func(b *testing.B) {
			var perSimulator float64
			for b.Loop() {
				cached := make([]any, simulators)
				before := heapAfterGC()
				for i := range cached {
					// A decode's own copy each, as an informer's.
					notes := strings.Repeat(fmt.Sprint(i%10), templateKiB<<10)
					sim := &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("sim-", i), Namespace: "ns"},
						Spec: simv1alpha1.SimulatorSpec{Image: "img", PodTemplate: &corev1.PodTemplateSpec{
							ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"example.com/notes": notes}}}}}
					cached[i], _ = Objects(sim)
				}
				perSimulator = float64(heapAfterGC()-before) / simulators
				runtime.KeepAlive(cached)
			}
			b.ReportMetric(perSimulator/1024, "heap-KiB/simulator")
		})
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
