package cached

import (
	"context"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

// Delete records a deletion once: a second call from a cache that still holds
// the object deletes nothing and says nothing.
func TestDeleteRecordsADeletionOnce(t *testing.T) {
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "old", Namespace: "ns"}}
	client := fake.NewClientset(cm).CoreV1().ConfigMaps("ns")
	recorder := events.NewInMemoryRecorder("test", clocktesting.NewFakePassiveClock(time.Now()))
	staleCache := func(string) (*corev1.ConfigMap, error) { return cm, nil }
	for range 2 {
		if err := Delete(ctx, recorder, "ConfigMap", "ns", "old", staleCache, client); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.Get(ctx, "old", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the ConfigMap is still there: %v", err)
	}
	if n := len(recorder.Events()); n != 1 {
		t.Errorf("%d events for one deletion: %v", n, recorder.Events())
	}
	emptyCache := func(string) (*corev1.ConfigMap, error) {
		return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), "old")
	}
	if err := Delete(ctx, recorder, "ConfigMap", "ns", "old", emptyCache, client); err != nil || len(recorder.Events()) != 1 {
		t.Errorf("an object the cache does not hold: err %v, %d events", err, len(recorder.Events()))
	}
}
