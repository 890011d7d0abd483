package simulatorcontroller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trim"
)

// ManagedByLabel=ManagedByValue is on every Pod, Service and NetworkPolicy
// the controller creates, as on everything else the operator makes: with
// simulatorrender.SimulatorLabel it selects what the controller's informers
// cache.
const (
	ManagedByLabel = names.ManagedByLabel
	ManagedByValue = names.ManagedByValue
)

// Selector selects the objects the controller made: those with both its
// labels. An object that merely carries simulatorrender.SimulatorLabel, which
// any user of a namespace may write, is not cached.
const Selector = simulatorrender.SimulatorLabel + "," + ManagedByLabel + "=" + ManagedByValue

// InformerOption filters a kube informer factory to the Pods, Services and
// NetworkPolicies this controller creates (Selector). Give the factory
// Transform too.
func InformerOption() informers.SharedInformerOption {
	return informers.WithTweakListOptions(TweakListOptions)
}

// TweakListOptions selects the objects this controller made (Selector).
func TweakListOptions(opts *metav1.ListOptions) {
	opts.LabelSelector = Selector
}

// Transform is the transform of the informers of InformerOption
// (trim.Owned): of each Pod, Service and NetworkPolicy the cache keeps what
// the controller reads, of the labels and annotations these only.
var Transform = trim.Owned([]string{simulatorrender.SimulatorLabel, ManagedByLabel}, []string{simulatorrender.SimulatorSpecHashAnnotation})

// cached is what the informers would hold of an object the controller wrote:
// what it remembers of its writes costs no more than its caches.
func cached(obj runtime.Object) runtime.Object {
	var out any
	if _, ok := obj.(*simv1alpha1.Simulator); ok {
		out, _ = trim.Objects(obj)
	} else {
		out, _ = Transform(obj)
	}
	return out.(runtime.Object)
}
