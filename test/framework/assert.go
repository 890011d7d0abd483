package framework

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ExpectInvalid fails the test unless err is the API server's 422 Invalid whose
// message contains every fragment (a field path, the words of a rule's message).
func ExpectInvalid(t testing.TB, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the API server accepted the object; want Invalid naming %q", fragments)
	}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want an Invalid error naming %q, got %T: %v", fragments, err, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("the rejection does not say %q:\n%v", f, err)
		}
	}
}
