package kubecache

import (
	"context"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
)

// NewCachedKubeClient returns a client whose Get of the kinds the operator applies
// reads the informer caches, while every write goes to the API server.
// library-go's resourceapply GETs the existing object before deciding whether to
// write: through this client a converged operator sends no request at all.
//
// It registers the informers it reads from, so call it before the informers
// are started. Namespaces without a factory fall back to live GETs.
func NewCachedKubeClient(client kubernetes.Interface, kubeInformers v1helpers.KubeInformersForNamespaces) kubernetes.Interface {
	for _, ns := range kubeInformers.Namespaces().UnsortedList() {
		f := kubeInformers.InformersFor(ns)
		if ns == "" {
			f.Core().V1().Namespaces().Informer()
			f.Rbac().V1().ClusterRoles().Informer()
			f.Rbac().V1().ClusterRoleBindings().Informer()
			continue
		}
		if ns == KubeSystemNamespace {
			// Only the authentication-reader RoleBinding is written there, and the
			// operator may read nothing else in kube-system.
			f.Rbac().V1().RoleBindings().Informer()
			continue
		}
		f.Core().V1().ServiceAccounts().Informer()
		f.Core().V1().Services().Informer()
		f.Core().V1().ConfigMaps().Informer()
		f.Rbac().V1().Roles().Informer()
		f.Rbac().V1().RoleBindings().Informer()
		f.Apps().V1().Deployments().Informer()
	}
	return &cachedClientset{Interface: client, informers: kubeInformers}
}

type cachedClientset struct {
	kubernetes.Interface
	informers v1helpers.KubeInformersForNamespaces
}

// cachedOrLive returns a copy of a cached object, as a live GET would, and
// asks the API server about an object the cache does not hold. A miss is not
// proof of absence: the cache lags the operator's own writes (a sync right
// after the one that created an object can run before the object's event
// arrives), and the label-filtered caches (cluster-scoped, kube-system) hold
// no object whose label was removed by hand. Creating such an object again
// fails with AlreadyExists; read live, the apply that follows compares with
// it and updates it if it must. A converged operator misses nothing, so this
// costs a GET only before it creates or adopts an object.
func cachedOrLive[T interface{ DeepCopy() T }](obj T, err error, live func() (T, error)) (T, error) {
	if apierrors.IsNotFound(err) {
		return live()
	}
	if err != nil {
		var zero T
		return zero, err
	}
	return obj.DeepCopy(), nil
}

func (c *cachedClientset) CoreV1() corev1client.CoreV1Interface {
	return &cachedCoreV1{CoreV1Interface: c.Interface.CoreV1(), c: c}
}

func (c *cachedClientset) RbacV1() rbacv1client.RbacV1Interface {
	return &cachedRbacV1{RbacV1Interface: c.Interface.RbacV1(), c: c}
}

func (c *cachedClientset) AppsV1() appsv1client.AppsV1Interface {
	return &cachedAppsV1{AppsV1Interface: c.Interface.AppsV1(), c: c}
}

type cachedCoreV1 struct {
	corev1client.CoreV1Interface
	c *cachedClientset
}

type namespaces struct {
	corev1client.NamespaceInterface
	c *cachedClientset
}

func (n namespaces) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Namespace, error) {
	obj, err := n.c.informers.InformersFor("").Core().V1().Namespaces().Lister().Get(name)
	return cachedOrLive(obj, err, func() (*corev1.Namespace, error) { return n.NamespaceInterface.Get(ctx, name, opts) })
}

func (v *cachedCoreV1) Namespaces() corev1client.NamespaceInterface {
	live := v.CoreV1Interface.Namespaces()
	if v.c.informers.InformersFor("") == nil {
		return live
	}
	return namespaces{live, v.c}
}

type serviceAccounts struct {
	corev1client.ServiceAccountInterface
	c  *cachedClientset
	ns string
}

func (s serviceAccounts) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ServiceAccount, error) {
	obj, err := s.c.informers.InformersFor(s.ns).Core().V1().ServiceAccounts().Lister().ServiceAccounts(s.ns).Get(name)
	return cachedOrLive(obj, err, func() (*corev1.ServiceAccount, error) { return s.ServiceAccountInterface.Get(ctx, name, opts) })
}

func (v *cachedCoreV1) ServiceAccounts(ns string) corev1client.ServiceAccountInterface {
	live := v.CoreV1Interface.ServiceAccounts(ns)
	if ns == "" || v.c.informers.InformersFor(ns) == nil {
		return live
	}
	return serviceAccounts{live, v.c, ns}
}

type services struct {
	corev1client.ServiceInterface
	c  *cachedClientset
	ns string
}

func (s services) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Service, error) {
	obj, err := s.c.informers.InformersFor(s.ns).Core().V1().Services().Lister().Services(s.ns).Get(name)
	return cachedOrLive(obj, err, func() (*corev1.Service, error) { return s.ServiceInterface.Get(ctx, name, opts) })
}

func (v *cachedCoreV1) Services(ns string) corev1client.ServiceInterface {
	live := v.CoreV1Interface.Services(ns)
	if ns == "" || v.c.informers.InformersFor(ns) == nil {
		return live
	}
	return services{live, v.c, ns}
}

type configMaps struct {
	corev1client.ConfigMapInterface
	c  *cachedClientset
	ns string
}

func (s configMaps) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error) {
	obj, err := s.c.informers.InformersFor(s.ns).Core().V1().ConfigMaps().Lister().ConfigMaps(s.ns).Get(name)
	return cachedOrLive(obj, err, func() (*corev1.ConfigMap, error) { return s.ConfigMapInterface.Get(ctx, name, opts) })
}

func (v *cachedCoreV1) ConfigMaps(ns string) corev1client.ConfigMapInterface {
	live := v.CoreV1Interface.ConfigMaps(ns)
	if ns == "" || v.c.informers.InformersFor(ns) == nil {
		return live
	}
	return configMaps{live, v.c, ns}
}

type cachedRbacV1 struct {
	rbacv1client.RbacV1Interface
	c *cachedClientset
}

type clusterRoles struct {
	rbacv1client.ClusterRoleInterface
	c *cachedClientset
}

func (s clusterRoles) Get(ctx context.Context, name string, opts metav1.GetOptions) (*rbacv1.ClusterRole, error) {
	obj, err := s.c.informers.InformersFor("").Rbac().V1().ClusterRoles().Lister().Get(name)
	return cachedOrLive(obj, err, func() (*rbacv1.ClusterRole, error) { return s.ClusterRoleInterface.Get(ctx, name, opts) })
}

func (v *cachedRbacV1) ClusterRoles() rbacv1client.ClusterRoleInterface {
	live := v.RbacV1Interface.ClusterRoles()
	if v.c.informers.InformersFor("") == nil {
		return live
	}
	return clusterRoles{live, v.c}
}

type clusterRoleBindings struct {
	rbacv1client.ClusterRoleBindingInterface
	c *cachedClientset
}

func (s clusterRoleBindings) Get(ctx context.Context, name string, opts metav1.GetOptions) (*rbacv1.ClusterRoleBinding, error) {
	obj, err := s.c.informers.InformersFor("").Rbac().V1().ClusterRoleBindings().Lister().Get(name)
	return cachedOrLive(obj, err, func() (*rbacv1.ClusterRoleBinding, error) { return s.ClusterRoleBindingInterface.Get(ctx, name, opts) })
}

func (v *cachedRbacV1) ClusterRoleBindings() rbacv1client.ClusterRoleBindingInterface {
	live := v.RbacV1Interface.ClusterRoleBindings()
	if v.c.informers.InformersFor("") == nil {
		return live
	}
	return clusterRoleBindings{live, v.c}
}

type roles struct {
	rbacv1client.RoleInterface
	c  *cachedClientset
	ns string
}

func (s roles) Get(ctx context.Context, name string, opts metav1.GetOptions) (*rbacv1.Role, error) {
	obj, err := s.c.informers.InformersFor(s.ns).Rbac().V1().Roles().Lister().Roles(s.ns).Get(name)
	return cachedOrLive(obj, err, func() (*rbacv1.Role, error) { return s.RoleInterface.Get(ctx, name, opts) })
}

func (v *cachedRbacV1) Roles(ns string) rbacv1client.RoleInterface {
	live := v.RbacV1Interface.Roles(ns)
	if ns == "" || v.c.informers.InformersFor(ns) == nil {
		return live
	}
	return roles{live, v.c, ns}
}

type roleBindings struct {
	rbacv1client.RoleBindingInterface
	c  *cachedClientset
	ns string
}

func (s roleBindings) Get(ctx context.Context, name string, opts metav1.GetOptions) (*rbacv1.RoleBinding, error) {
	obj, err := s.c.informers.InformersFor(s.ns).Rbac().V1().RoleBindings().Lister().RoleBindings(s.ns).Get(name)
	return cachedOrLive(obj, err, func() (*rbacv1.RoleBinding, error) { return s.RoleBindingInterface.Get(ctx, name, opts) })
}

func (v *cachedRbacV1) RoleBindings(ns string) rbacv1client.RoleBindingInterface {
	live := v.RbacV1Interface.RoleBindings(ns)
	if ns == "" || v.c.informers.InformersFor(ns) == nil {
		return live
	}
	return roleBindings{live, v.c, ns}
}

type cachedAppsV1 struct {
	appsv1client.AppsV1Interface
	c *cachedClientset
}

type deployments struct {
	appsv1client.DeploymentInterface
	c  *cachedClientset
	ns string
}

func (s deployments) Get(ctx context.Context, name string, opts metav1.GetOptions) (*appsv1.Deployment, error) {
	obj, err := s.c.informers.InformersFor(s.ns).Apps().V1().Deployments().Lister().Deployments(s.ns).Get(name)
	return cachedOrLive(obj, err, func() (*appsv1.Deployment, error) { return s.DeploymentInterface.Get(ctx, name, opts) })
}

func (v *cachedAppsV1) Deployments(ns string) appsv1client.DeploymentInterface {
	live := v.AppsV1Interface.Deployments(ns)
	if ns == "" || v.c.informers.InformersFor(ns) == nil {
		return live
	}
	return deployments{live, v.c, ns}
}
