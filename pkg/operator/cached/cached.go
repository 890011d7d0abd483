// Package cached reads from informer caches and deletes what they hold, so
// that a converged controller sends no request.
package cached

import (
	"context"
	"fmt"

	"github.com/openshift/library-go/pkg/operator/events"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Get is a lister's Get where absent is nil, not an error.
func Get[T any](get func(name string) (*T, error), name string) (*T, error) {
	obj, err := get(name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, err
}

// Deleter is the Delete of a typed client.
type Deleter interface {
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Delete deletes the object the cache holds under name (get reads the
// cache) and records it; one the cache does not hold costs no request. The
// delete names the cached object's UID, so the object the caller judged
// from the cache is the one deleted. One already gone, which a cache behind
// an earlier delete still holds, is not recorded again; nor is one replaced
// under the same name since (the precondition's Conflict): the one judged is
// gone too, and the replacement is left to be judged when its event comes.
func Delete[T metav1.Object](ctx context.Context, recorder events.Recorder, kind, namespace, name string, get func(name string) (T, error), client Deleter) error {
	obj, err := get(name)
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	qualified := name
	if namespace != "" {
		qualified = namespace + "/" + name
	}
	uid := obj.GetUID()
	switch err := client.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}); {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		return nil
	case err != nil:
		return fmt.Errorf("deleting %s %s: %w", kind, qualified, err)
	}
	recorder.Eventf(kind+"Deleted", "Deleted %s %s", kind, qualified)
	return nil
}
