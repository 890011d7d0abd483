package integration

import (
	"context"
	"testing"

	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/kubecache"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The operator's cache lags its own writes: a sync right after the one that
// created an object can run before the object's event arrives. The cached
// client's Get must then find the object on the API server, or the apply that
// follows sends a second create, fails with AlreadyExists and reports the
// target config Degraded. The informers here are never started: a cache that
// has seen none of the objects, for every kind the operator applies in its
// namespace.
func TestCachedClientAsksAboutWhatTheCacheMisses(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	kube := env.Admin.Kube
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operandNS}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	client := kubecache.NewCachedKubeClient(kube, kubecache.NewKubeInformers(kube))
	const name = "cache-behind"
	meta := metav1.ObjectMeta{Name: name, Namespace: operandNS}
	labels := map[string]string{"app": name}
	roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}
	bindingTo := func(sa string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{ObjectMeta: meta, RoleRef: roleRef,
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: operandNS, Name: sa}}}
	}
	type kind struct {
		name   string
		create func() (types.UID, error)
		get    func() (metav1.Object, error)
		remove func() error
	}
	core, rbac, apps := kube.CoreV1(), kube.RbacV1(), kube.AppsV1()
	asObject := func(obj metav1.Object, err error) (metav1.Object, error) { return obj, err }
	uid := func(obj metav1.Object, err error) (types.UID, error) {
		if err != nil {
			return "", err
		}
		return obj.GetUID(), nil
	}
	kinds := []kind{
		{"ServiceAccount",
			func() (types.UID, error) {
				return uid(core.ServiceAccounts(operandNS).Create(ctx, &corev1.ServiceAccount{ObjectMeta: meta}, metav1.CreateOptions{}))
			},
			func() (metav1.Object, error) {
				return asObject(client.CoreV1().ServiceAccounts(operandNS).Get(ctx, name, metav1.GetOptions{}))
			},
			func() error { return core.ServiceAccounts(operandNS).Delete(ctx, name, metav1.DeleteOptions{}) }},
		{"Service",
			func() (types.UID, error) {
				return uid(core.Services(operandNS).Create(ctx, &corev1.Service{ObjectMeta: meta,
					Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}}}, metav1.CreateOptions{}))
			},
			func() (metav1.Object, error) {
				return asObject(client.CoreV1().Services(operandNS).Get(ctx, name, metav1.GetOptions{}))
			},
			func() error { return core.Services(operandNS).Delete(ctx, name, metav1.DeleteOptions{}) }},
		{"ConfigMap",
			func() (types.UID, error) {
				return uid(core.ConfigMaps(operandNS).Create(ctx, &corev1.ConfigMap{ObjectMeta: meta}, metav1.CreateOptions{}))
			},
			func() (metav1.Object, error) {
				return asObject(client.CoreV1().ConfigMaps(operandNS).Get(ctx, name, metav1.GetOptions{}))
			},
			func() error { return core.ConfigMaps(operandNS).Delete(ctx, name, metav1.DeleteOptions{}) }},
		{"Role",
			func() (types.UID, error) {
				return uid(rbac.Roles(operandNS).Create(ctx, &rbacv1.Role{ObjectMeta: meta}, metav1.CreateOptions{}))
			},
			func() (metav1.Object, error) {
				return asObject(client.RbacV1().Roles(operandNS).Get(ctx, name, metav1.GetOptions{}))
			},
			func() error { return rbac.Roles(operandNS).Delete(ctx, name, metav1.DeleteOptions{}) }},
		{"RoleBinding",
			func() (types.UID, error) {
				return uid(rbac.RoleBindings(operandNS).Create(ctx, bindingTo("first"), metav1.CreateOptions{}))
			},
			func() (metav1.Object, error) {
				return asObject(client.RbacV1().RoleBindings(operandNS).Get(ctx, name, metav1.GetOptions{}))
			},
			func() error { return rbac.RoleBindings(operandNS).Delete(ctx, name, metav1.DeleteOptions{}) }},
		{"Deployment",
			func() (types.UID, error) {
				return uid(apps.Deployments(operandNS).Create(ctx, &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "scheduler"}}}},
				}}, metav1.CreateOptions{}))
			},
			func() (metav1.Object, error) {
				return asObject(client.AppsV1().Deployments(operandNS).Get(ctx, name, metav1.GetOptions{}))
			},
			func() error { return apps.Deployments(operandNS).Delete(ctx, name, metav1.DeleteOptions{}) }},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			if _, err := k.get(); !apierrors.IsNotFound(err) {
				t.Fatalf("before it is created: %v, want NotFound", err)
			}
			created, err := k.create()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := k.remove(); err != nil && !apierrors.IsNotFound(err) {
					t.Error(err)
				}
			})
			got, err := k.get()
			if err != nil || got.GetUID() != created {
				t.Fatalf("read through a cache that has not seen it: %v (err %v), want the object the API server holds (UID %s)", got, err, created)
			}
		})
	}

	// What the fix is for: the apply of a RoleBinding created a moment
	// before, still missing from the cache, updates it.
	t.Run("an apply after a miss updates the object", func(t *testing.T) {
		if _, err := rbac.RoleBindings(operandNS).Create(ctx, bindingTo("first"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = rbac.RoleBindings(operandNS).Delete(ctx, name, metav1.DeleteOptions{}) })
		recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
		_, modified, err := resourceapply.ApplyRoleBinding(ctx, client.RbacV1(), recorder, bindingTo("second"))
		if err != nil || !modified {
			t.Fatalf("apply: modified %v, err %v; want the RoleBinding updated", modified, err)
		}
		got, err := rbac.RoleBindings(operandNS).Get(ctx, name, metav1.GetOptions{})
		if err != nil || len(got.Subjects) != 1 || got.Subjects[0].Name != "second" {
			t.Errorf("the RoleBinding after the apply: %v (err %v), want the subject \"second\"", got, err)
		}
	})
}
