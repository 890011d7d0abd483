// Package kubecache is how the operator reads Kubernetes objects: informer
// factories scoped to what it owns (NewKubeInformers) and a kube client whose
// GETs read their caches (NewCachedKubeClient).
package kubecache

import (
	"reflect"
	"time"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trim"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/informers"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

const (
	// KubeSystemNamespace holds the RoleBinding to extension-apiserver-authentication-reader.
	KubeSystemNamespace = "kube-system"
	// informerResync re-delivers cached objects to handlers; it costs no API requests.
	informerResync = 10 * time.Minute
)

// NewKubeInformers returns informer factories for the namespaces the operator
// writes to. The operand namespace is watched whole (it also holds the user's
// ConfigMap); cluster-scoped objects and kube-system only through the
// managed-by label, so the operator never caches what it does not own.
func NewKubeInformers(kubeClient kubernetes.Interface) v1helpers.KubeInformersForNamespaces {
	ownedOnly := informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = labels.SelectorFromSet(labels.Set{names.ManagedByLabel: names.ManagedByValue}).String()
	})
	trimmed := informers.WithTransform(trim.Objects)
	operand := informers.NewSharedInformerFactoryWithOptions(kubeClient, informerResync, informers.WithNamespace(names.OperandNamespace), trimmed)
	// library-go's static resources controller takes the informer of the
	// operand Namespace from this factory; namespaces being cluster-scoped, it
	// would cache every namespace of the cluster.
	operand.InformerFor(&corev1.Namespace{}, func(client kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return corev1informers.NewFilteredNamespaceInformer(client, resync, cache.Indexers{}, Named(names.OperandNamespace))
	})
	return scopedInformers{
		names.OperandNamespace: operand,
		KubeSystemNamespace:    informers.NewSharedInformerFactoryWithOptions(kubeClient, informerResync, informers.WithNamespace(KubeSystemNamespace), ownedOnly, trimmed),
		"":                     informers.NewSharedInformerFactoryWithOptions(kubeClient, informerResync, ownedOnly, trimmed),
	}
}

// Named selects the one object called name.
func Named(name string) func(*metav1.ListOptions) {
	return func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
}

// scopedInformers implements library-go's KubeInformersForNamespaces over
// factories that may carry list options.
type scopedInformers map[string]informers.SharedInformerFactory

var _ v1helpers.KubeInformersForNamespaces = scopedInformers{}

func (s scopedInformers) Start(stopCh <-chan struct{}) {
	for _, f := range s {
		f.Start(stopCh)
	}
}

func (s scopedInformers) InformersFor(namespace string) informers.SharedInformerFactory {
	return s[namespace]
}

func (s scopedInformers) Namespaces() sets.Set[string] {
	return sets.KeySet(s)
}

func (s scopedInformers) WaitForCacheSync(stopCh <-chan struct{}) map[string]map[reflect.Type]bool {
	ret := map[string]map[reflect.Type]bool{}
	for ns, f := range s {
		ret[ns] = f.WaitForCacheSync(stopCh)
	}
	return ret
}

// The operator keeps ConfigMaps, Secrets and Pods only in the operand namespace.
func (s scopedInformers) ConfigMapLister() corev1listers.ConfigMapLister {
	return s[names.OperandNamespace].Core().V1().ConfigMaps().Lister()
}

func (s scopedInformers) SecretLister() corev1listers.SecretLister {
	return s[names.OperandNamespace].Core().V1().Secrets().Lister()
}

func (s scopedInformers) PodLister() corev1listers.PodLister {
	return s[names.OperandNamespace].Core().V1().Pods().Lister()
}

// NewNamedClusterRoleInformers returns an informer factory whose ClusterRole
// informer holds the one ClusterRole called name: the operator reads it (the
// ceiling of spec.rbac) but does not own it, so the managed-by filter of
// NewKubeInformers would hide it.
func NewNamedClusterRoleInformers(kubeClient kubernetes.Interface, name string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(kubeClient, informerResync,
		informers.WithTweakListOptions(Named(name)), informers.WithTransform(trim.Objects))
}
