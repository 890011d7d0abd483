// Package manifest decodes the project's embedded manifests (bindata) into
// typed objects.
//
// It decodes as library-go's resourceread does, through a codec factory's
// universal decoder, but with a scheme of only the groups the manifests use,
// built on first use. resourceread builds a scheme of every OpenShift and
// Kubernetes group in its package init: about a third of the init of
// secondary-scheduler-ctl, which every run of it paid before reading its input.
package manifest

import (
	"fmt"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

var decoder = sync.OnceValue(func() runtime.Decoder {
	scheme := runtime.NewScheme()
	utilruntime.Must(corev1.AddToScheme(scheme))
	utilruntime.Must(appsv1.AddToScheme(scheme))
	utilruntime.Must(rbacv1.AddToScheme(scheme))
	utilruntime.Must(networkingv1.AddToScheme(scheme))
	return serializer.NewCodecFactory(scheme).UniversalDecoder(scheme.PrioritizedVersionsAllGroups()...)
})

// MustDecode decodes an embedded manifest of type T. The manifests are built
// into the binary, so a manifest that does not decode, or decodes to another
// kind, is a build bug: it panics, naming both.
func MustDecode[T runtime.Object](data []byte) T {
	obj, err := runtime.Decode(decoder(), data)
	if err != nil {
		panic(fmt.Sprintf("embedded manifest does not decode: %v", err))
	}
	typed, ok := obj.(T)
	if !ok {
		var want T
		panic(fmt.Sprintf("embedded manifest is a %T, not a %T", obj, want))
	}
	return typed
}
