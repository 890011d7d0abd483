package simulatorrender

import (
	"encoding/json"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// MaxSpecBytes bounds a Simulator's spec, as JSON. Any user of a namespace
// may write Simulators, and the operator holds every one's spec in memory:
// without it, a podTemplate's annotations, env or volumes (which nothing
// checks as the API server checks a Pod's) or ingressFrom's selectors fill
// an object up to the API server's limit of about 1.5 MiB, and two
// thousand of them take gigabytes. A spec that mounts a configuration and
// sets placement and resources is well under 2 KiB.
const MaxSpecBytes = 8 << 10

// SpecBytesAnnotation is set by DropOversizedSpec, on the informer's copy
// only; a user's annotation of that name is never taken for it.
const SpecBytesAnnotation = "simulation.kube-scheduler-simulator.x-k8s.io/spec-bytes"

// specBytes is the size of spec as JSON.
func specBytes(spec *simv1alpha1.SimulatorSpec) int {
	data, err := json.Marshal(spec)
	if err != nil {
		return 0 // cannot happen for these types; Render's hash would fail loudly
	}
	return len(data)
}

// droppedSpecBytes is the size DropOversizedSpec noted of a spec it dropped.
// A dropped spec has no image, which the API server never serves: the CRD
// defaults one into every Simulator.
func droppedSpecBytes(sim *simv1alpha1.Simulator) (int, bool) {
	if sim.Spec.Image != "" {
		return 0, false
	}
	n, err := strconv.Atoi(sim.Annotations[SpecBytesAnnotation])
	return n, err == nil
}

// DropOversizedSpec empties sim's spec when it is over MaxSpecBytes, and
// notes its size in SpecBytesAnnotation for Validate to report. It is for an
// informer's transform, so that what is dropped never reaches the cache, and
// returns the annotations that transform keeps: the note when the spec is
// one it dropped, now or on an earlier pass, and none otherwise.
func DropOversizedSpec(sim *simv1alpha1.Simulator) []string {
	if _, dropped := droppedSpecBytes(sim); dropped {
		return []string{SpecBytesAnnotation}
	}
	n := specBytes(&sim.Spec)
	if n <= MaxSpecBytes {
		return nil
	}
	sim.Spec = simv1alpha1.SimulatorSpec{}
	if sim.Annotations == nil {
		sim.Annotations = map[string]string{}
	}
	sim.Annotations[SpecBytesAnnotation] = strconv.Itoa(n)
	return []string{SpecBytesAnnotation}
}

// validateSpecSize refuses a spec over MaxSpecBytes, whether
// DropOversizedSpec noted its size or it is measured here.
func validateSpecSize(sim *simv1alpha1.Simulator) field.ErrorList {
	n, dropped := droppedSpecBytes(sim)
	if !dropped {
		n = specBytes(&sim.Spec)
	}
	if n <= MaxSpecBytes {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("spec"), fmt.Sprintf("%d bytes as JSON", n),
		fmt.Sprintf("at most %d bytes of JSON are accepted, since the operator keeps every Simulator's spec in memory: "+
			"put large data in a ConfigMap or Secret and mount it through podTemplate's volumes, and keep "+
			"podTemplate's annotations, labels and env short", MaxSpecBytes))}
}
