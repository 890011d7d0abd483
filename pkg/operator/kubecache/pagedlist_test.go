package kubecache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pagedPodList serves n pods with big annotations in the pages its caller
// asks for, and records what it was asked and how many pods the transform
// had trimmed at each request.
type pagedPodList struct {
	n         int
	trimmed   int
	requests  []metav1.ListOptions
	trimmedAt []int
}

func (l *pagedPodList) list(_ context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	l.requests = append(l.requests, opts)
	l.trimmedAt = append(l.trimmedAt, l.trimmed)
	start := 0
	if opts.Continue != "" {
		var err error
		if start, err = strconv.Atoi(opts.Continue); err != nil {
			return nil, err
		}
	}
	end := min(start+int(opts.Limit), l.n)
	out := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "42"}}
	for i := start; i < end; i++ {
		out.Items = append(out.Items, corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("p%03d", i), Annotations: map[string]string{"note": strings.Repeat("x", 1024)}}})
	}
	if end < l.n {
		out.Continue = strconv.Itoa(end)
	}
	return out, nil
}

func (l *pagedPodList) transform(obj any) (any, error) {
	obj.(*corev1.Pod).Annotations = nil
	l.trimmed++
	return obj, nil
}

func TestListInPages(t *testing.T) {
	l := &pagedPodList{n: 2*ListPageSize + 7}
	// What a reflector asks for: its watch-cache read at a resourceVersion.
	asked := metav1.ListOptions{LabelSelector: "a=b", ResourceVersion: "0", Limit: 500}
	got, err := ListInPages(context.Background(), asked, l.list, l.transform)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.requests) != 3 {
		t.Fatalf("%d requests, want 3 pages of at most %d", len(l.requests), ListPageSize)
	}
	for i, r := range l.requests {
		if r.Limit != ListPageSize || r.ResourceVersion != "" || r.LabelSelector != "a=b" {
			t.Errorf("request %d: %+v, want limit %d, a consistent read, the caller's selector", i, r, ListPageSize)
		}
		// Each page is asked for once every object before it is trimmed.
		if want := i * ListPageSize; l.trimmedAt[i] != want {
			t.Errorf("request %d came after %d objects were trimmed, want %d", i, l.trimmedAt[i], want)
		}
	}
	if l.requests[1].Continue != strconv.Itoa(ListPageSize) {
		t.Errorf("the second page was asked with continue %q", l.requests[1].Continue)
	}
	if len(got.Items) != l.n || got.ResourceVersion != "42" || got.Continue != "" {
		t.Fatalf("got %d pods at resourceVersion %q, continue %q; want %d at 42, none", len(got.Items), got.ResourceVersion, got.Continue, l.n)
	}
	for i, p := range got.Items {
		if p.Name != fmt.Sprintf("p%03d", i) || p.Annotations != nil {
			t.Fatalf("pod %d: %s with %d annotations, want p%03d trimmed", i, p.Name, len(p.Annotations), i)
		}
	}
}

func TestListInPagesFails(t *testing.T) {
	failing := errors.New("the API server is gone")
	calls := 0
	list := func(_ context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
		calls++
		if calls == 2 {
			return nil, failing
		}
		return &corev1.PodList{ListMeta: metav1.ListMeta{Continue: "next"}, Items: []corev1.Pod{{}}}, nil
	}
	keep := func(obj any) (any, error) { return obj, nil }
	if _, err := ListInPages(context.Background(), metav1.ListOptions{}, list, keep); !errors.Is(err, failing) {
		t.Fatalf("a failed page: %v, want the page's error", err)
	}
	notAnObject := func(any) (any, error) { return "trimmed", nil }
	calls = 0
	if _, err := ListInPages(context.Background(), metav1.ListOptions{}, list, notAnObject); err == nil || !strings.Contains(err.Error(), "not an object") {
		t.Fatalf("a transform that returns no object: %v", err)
	}
}
