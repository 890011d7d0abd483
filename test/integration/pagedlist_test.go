package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/kubecache"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trim"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// listRequests records the list requests a client sends.
type listRequests struct {
	next  http.RoundTripper
	mu    sync.Mutex
	query []string
}

func (l *listRequests) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/simulators") && req.URL.Query().Get("watch") == "" {
		l.mu.Lock()
		l.query = append(l.query, req.URL.RawQuery)
		l.mu.Unlock()
	}
	return l.next.RoundTrip(req)
}

// What an informer's reflector sends when the API server serves no
// watch-list, or the watch-list fails: a list at resourceVersion 0, which the
// watch cache answers whole. Through kubecache.PagedSimulatorLists, the real
// API server is asked page by page, and every Simulator comes back trimmed.
func TestPagedSimulatorListsOnTheAPIServer(t *testing.T) {
	env := framework.Shared(t)
	ctx := context.Background()
	ns := env.CreateNamespace(t, "paged-lists")
	n := 2*kubecache.ListPageSize + 3
	note := strings.Repeat("x", 64*1024)
	for i := range n {
		_, err := env.Admin.Operator.SimulationV1alpha1().Simulators(ns).Create(ctx, &simv1alpha1.Simulator{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("sim-%03d", i), Annotations: map[string]string{"note": note}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	cfg := rest.CopyConfig(env.Config)
	recorded := &listRequests{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { recorded.next = rt; return recorded })
	cr, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	list, err := kubecache.PagedSimulatorLists(cr, trim.Objects).SimulationV1alpha1().Simulators(ns).List(ctx,
		metav1.ListOptions{ResourceVersion: "0", Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != n || list.ResourceVersion == "" || list.Continue != "" {
		t.Fatalf("%d Simulators at resourceVersion %q, continue %q; want %d, a resourceVersion, no continue", len(list.Items), list.ResourceVersion, list.Continue, n)
	}
	for _, sim := range list.Items {
		if len(sim.Annotations) != 0 {
			t.Fatalf("Simulator %s kept %d annotations", sim.Name, len(sim.Annotations))
		}
	}
	if len(recorded.query) != 3 {
		t.Fatalf("the API server was asked %d times (%v), want 3 pages of %d", len(recorded.query), recorded.query, kubecache.ListPageSize)
	}
	for i, q := range recorded.query {
		if !strings.Contains(q, fmt.Sprintf("limit=%d", kubecache.ListPageSize)) || strings.Contains(q, "resourceVersion=") || (i > 0) != strings.Contains(q, "continue=") {
			t.Errorf("request %d: %q, want limit=%d, a consistent read, and continue after the first", i, q, kubecache.ListPageSize)
		}
	}
}
