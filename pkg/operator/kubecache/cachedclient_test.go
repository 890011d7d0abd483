package kubecache

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// A cluster-scoped object whose managed-by label was removed by hand is not in
// the label-filtered cache, yet the cached client's Get finds it (so the apply
// updates it and puts the label back, instead of failing to create it).
// Objects in the cache are read from it.
func TestCachedClientFindsUnlabelledClusterObjects(t *testing.T) {
	ctx := context.Background()
	labelled := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "labelled",
		Labels: map[string]string{names.ManagedByLabel: names.ManagedByValue}}}
	unlabelled := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "unlabelled"}}
	live := fake.NewClientset(labelled, unlabelled)
	informers := NewKubeInformers(live)
	client := NewCachedKubeClient(live, informers)
	informers.Start(ctx.Done())
	for _, f := range informers.(scopedInformers) {
		f.WaitForCacheSync(ctx.Done())
	}

	live.ClearActions()
	if _, err := client.RbacV1().ClusterRoleBindings().Get(ctx, "labelled", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := len(live.Actions()); n != 0 {
		t.Errorf("a cached object cost %d requests: %v", n, live.Actions())
	}
	got, err := client.RbacV1().ClusterRoleBindings().Get(ctx, "unlabelled", metav1.GetOptions{})
	if err != nil || got.Name != "unlabelled" {
		t.Fatalf("the unlabelled object: %v, %v; want it found", got, err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Get(ctx, "absent", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("an absent object: %v, want NotFound", err)
	}
}
