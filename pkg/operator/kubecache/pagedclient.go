package kubecache

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	networkingv1client "k8s.io/client-go/kubernetes/typed/networking/v1"
	"k8s.io/client-go/tools/cache"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	simv1alpha1client "github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned/typed/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions"
)

// The clients below are for informer factories only: they list, through
// ListInPages, the kinds that any user may create in their own namespace and
// fill with up to 256 KiB of annotations each (Pods, Services,
// NetworkPolicies, Simulators), with the factory's transform. Every other
// call goes to the client they wrap.

// NewPagedKubeInformers is an informer factory of client whose Pods,
// Services and NetworkPolicies are listed through ListInPages with
// transform, which is also the factory's transform: one function trims what
// is listed and what is watched.
func NewPagedKubeInformers(client kubernetes.Interface, resync time.Duration, transform cache.TransformFunc,
	opts ...informers.SharedInformerOption) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(PagedKubeLists(client, transform), resync,
		append(slices.Clip(opts), informers.WithTransform(transform))...)
}

// NewPagedCRInformers is an informer factory of client whose Simulators are
// listed through ListInPages with transform, which is also the factory's
// transform.
func NewPagedCRInformers(client versioned.Interface, resync time.Duration, transform cache.TransformFunc,
	opts ...externalversions.SharedInformerOption) externalversions.SharedInformerFactory {
	return externalversions.NewSharedInformerFactoryWithOptions(PagedSimulatorLists(client, transform), resync,
		append(slices.Clip(opts), externalversions.WithTransform(transform))...)
}

// PagedKubeLists is client, with the Pods, Services and NetworkPolicies
// listed through ListInPages with transform.
func PagedKubeLists(client kubernetes.Interface, transform cache.TransformFunc) kubernetes.Interface {
	return &pagedKube{Interface: client, transform: transform}
}

// PagedSimulatorLists is client, with the Simulators listed through
// ListInPages with transform.
func PagedSimulatorLists(client versioned.Interface, transform cache.TransformFunc) versioned.Interface {
	return &pagedCR{Interface: client, transform: transform}
}

type pagedKube struct {
	kubernetes.Interface
	transform cache.TransformFunc
}

func (c *pagedKube) CoreV1() corev1client.CoreV1Interface {
	return &pagedCoreV1{CoreV1Interface: c.Interface.CoreV1(), transform: c.transform}
}

func (c *pagedKube) NetworkingV1() networkingv1client.NetworkingV1Interface {
	return &pagedNetworkingV1{NetworkingV1Interface: c.Interface.NetworkingV1(), transform: c.transform}
}

type pagedCoreV1 struct {
	corev1client.CoreV1Interface
	transform cache.TransformFunc
}

func (c *pagedCoreV1) Pods(namespace string) corev1client.PodInterface {
	return pagedPods{PodInterface: c.CoreV1Interface.Pods(namespace), transform: c.transform}
}

func (c *pagedCoreV1) Services(namespace string) corev1client.ServiceInterface {
	return pagedServices{ServiceInterface: c.CoreV1Interface.Services(namespace), transform: c.transform}
}

type pagedPods struct {
	corev1client.PodInterface
	transform cache.TransformFunc
}

func (p pagedPods) List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	return ListInPages(ctx, opts, p.PodInterface.List, p.transform)
}

type pagedServices struct {
	corev1client.ServiceInterface
	transform cache.TransformFunc
}

func (s pagedServices) List(ctx context.Context, opts metav1.ListOptions) (*corev1.ServiceList, error) {
	return ListInPages(ctx, opts, s.ServiceInterface.List, s.transform)
}

type pagedNetworkingV1 struct {
	networkingv1client.NetworkingV1Interface
	transform cache.TransformFunc
}

func (c *pagedNetworkingV1) NetworkPolicies(namespace string) networkingv1client.NetworkPolicyInterface {
	return pagedNetworkPolicies{NetworkPolicyInterface: c.NetworkingV1Interface.NetworkPolicies(namespace), transform: c.transform}
}

type pagedNetworkPolicies struct {
	networkingv1client.NetworkPolicyInterface
	transform cache.TransformFunc
}

func (n pagedNetworkPolicies) List(ctx context.Context, opts metav1.ListOptions) (*networkingv1.NetworkPolicyList, error) {
	return ListInPages(ctx, opts, n.NetworkPolicyInterface.List, n.transform)
}

type pagedCR struct {
	versioned.Interface
	transform cache.TransformFunc
}

func (c *pagedCR) SimulationV1alpha1() simv1alpha1client.SimulationV1alpha1Interface {
	return &pagedSimulation{SimulationV1alpha1Interface: c.Interface.SimulationV1alpha1(), transform: c.transform}
}

type pagedSimulation struct {
	simv1alpha1client.SimulationV1alpha1Interface
	transform cache.TransformFunc
}

func (c *pagedSimulation) Simulators(namespace string) simv1alpha1client.SimulatorInterface {
	return pagedSimulators{SimulatorInterface: c.SimulationV1alpha1Interface.Simulators(namespace), transform: c.transform}
}

type pagedSimulators struct {
	simv1alpha1client.SimulatorInterface
	transform cache.TransformFunc
}

func (s pagedSimulators) List(ctx context.Context, opts metav1.ListOptions) (*simv1alpha1.SimulatorList, error) {
	return ListInPages(ctx, opts, s.SimulatorInterface.List, s.transform)
}
