package apis_test

import (
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/apitesting/roundtrip"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simulationv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// TestJSONRoundTrip fills every field of both APIs with random values and checks
// that JSON and YAML encoding followed by decoding gives the same object back,
// which catches json tags that lose data (a missing omitempty on a pointer,
// an untagged field, a field that is not deep-copied).
func TestJSONRoundTrip(t *testing.T) {
	scheme := runtime.NewScheme()
	utilruntime.Must(secondaryschedulerv1.AddToScheme(scheme))
	utilruntime.Must(simulationv1alpha1.AddToScheme(scheme))
	codecs := serializer.NewCodecFactory(scheme)
	filler := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(rand.Int63()), codecs)
	for _, gvk := range []struct{ group, version, kind string }{
		{secondaryschedulerv1.GroupName, "v1", "SecondaryScheduler"},
		{secondaryschedulerv1.GroupName, "v1", "SecondarySchedulerList"},
		{simulationv1alpha1.GroupName, "v1alpha1", "Simulator"},
		{simulationv1alpha1.GroupName, "v1alpha1", "SimulatorList"},
	} {
		roundtrip.RoundTripSpecificKindWithoutProtobuf(t, schema.GroupVersionKind{Group: gvk.group, Version: gvk.version, Kind: gvk.kind}, scheme, codecs, filler, nil)
	}
}
