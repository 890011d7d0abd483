package framework

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// ServiceUntouched fails unless the Service theirs stays as it was for d:
// the same resourceVersion and no owner.
func ServiceUntouched(ctx context.Context, t testing.TB, kube kubernetes.Interface, theirs *corev1.Service, d time.Duration) {
	t.Helper()
	Consistently(ctx, t, d, "Service "+theirs.Name+" untouched", func() (bool, error) {
		svc, err := kube.CoreV1().Services(theirs.Namespace).Get(ctx, theirs.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if svc.ResourceVersion != theirs.ResourceVersion || len(svc.OwnerReferences) != 0 {
			return false, fmt.Errorf("resourceVersion %s (was %s), owners %v", svc.ResourceVersion, theirs.ResourceVersion, svc.OwnerReferences)
		}
		return true, nil
	})
}
