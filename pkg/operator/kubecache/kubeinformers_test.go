package kubecache

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// The static resources controller takes the informer of the operand Namespace
// from the operand factory: it must ask the API server for that one alone.
func TestOperandFactoryWatchesOnlyTheOperandNamespace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.OperandNamespace}})
	var mu sync.Mutex
	selectors := sets.New[string]()
	record := func(action clienttesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		defer mu.Unlock()
		switch a := action.(type) {
		case clienttesting.ListAction:
			selectors.Insert(a.GetListRestrictions().Fields.String())
		case clienttesting.WatchAction:
			selectors.Insert(a.GetWatchRestrictions().Fields.String())
		}
		return false, nil, nil
	}
	client.PrependReactor("list", "namespaces", record)
	client.PrependWatchReactor("namespaces", func(action clienttesting.Action) (bool, watch.Interface, error) {
		_, _, _ = record(action)
		return false, nil, nil
	})
	factory := NewKubeInformers(client).InformersFor(names.OperandNamespace)
	informer := factory.Core().V1().Namespaces().Informer()
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())

	mu.Lock()
	defer mu.Unlock()
	if want := "metadata.name=" + names.OperandNamespace; !selectors.Equal(sets.New(want)) {
		t.Errorf("the Namespace informer asked with field selectors %v, want only %q", sets.List(selectors), want)
	}
	if _, ok, _ := informer.GetStore().GetByKey(names.OperandNamespace); !ok {
		t.Errorf("the operand Namespace is not cached")
	}
}
