package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/rest"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/kubecache"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trim"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// listRequests records the list requests a client sends for Simulators,
// and counts its watch-list requests (watches asking for the initial events).
type listRequests struct {
	next       http.RoundTripper
	mu         sync.Mutex
	query      []string
	watchLists int
}

func (l *listRequests) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/simulators") {
		q := req.URL.Query()
		l.mu.Lock()
		switch {
		case q.Get("watch") == "":
			l.query = append(l.query, req.URL.RawQuery)
		case q.Get("sendInitialEvents") == "true":
			l.watchLists++
		}
		l.mu.Unlock()
	}
	return l.next.RoundTrip(req)
}

// recordedSimulatorClient is a client of env's administrator whose Simulator
// lists are recorded.
func recordedSimulatorClient(t *testing.T, env *framework.Env) (versioned.Interface, *listRequests) {
	cfg := rest.CopyConfig(env.Config)
	recorded := &listRequests{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { recorded.next = rt; return recorded })
	cr, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cr, recorded
}

// createAnnotatedSimulators creates, in a new namespace, three pages' worth
// of Simulators less a few, each with 64 KiB of annotations, and returns the
// namespace and how many there are.
func createAnnotatedSimulators(t *testing.T, env *framework.Env, prefix string) (string, int) {
	ctx := context.Background()
	ns := env.CreateNamespace(t, prefix)
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
	return ns, n
}

// checkPages fails unless recorded holds the three pages of a paged list:
// each of kubecache.ListPageSize, a consistent read, with a continue token
// after the first.
func checkPages(t *testing.T, recorded *listRequests) {
	t.Helper()
	recorded.mu.Lock()
	defer recorded.mu.Unlock()
	if len(recorded.query) != 3 {
		t.Fatalf("the API server was asked %d times (%v), want 3 pages of %d", len(recorded.query), recorded.query, kubecache.ListPageSize)
	}
	for i, q := range recorded.query {
		if !strings.Contains(q, fmt.Sprintf("limit=%d", kubecache.ListPageSize)) || strings.Contains(q, "resourceVersion=") || (i > 0) != strings.Contains(q, "continue=") {
			t.Errorf("request %d: %q, want limit=%d, a consistent read, and continue after the first", i, q, kubecache.ListPageSize)
		}
	}
}

// What an informer's reflector sends when the API server serves no
// watch-list, or the watch-list fails: a list at resourceVersion 0, which the
// watch cache answers whole. Through kubecache.PagedSimulatorLists, the real
// API server is asked page by page, and every Simulator comes back trimmed.
func TestPagedSimulatorListsOnTheAPIServer(t *testing.T) {
	env := framework.Shared(t)
	ns, n := createAnnotatedSimulators(t, env, "paged-lists")
	cr, recorded := recordedSimulatorClient(t, env)
	list, err := kubecache.PagedSimulatorLists(cr, trim.Objects).SimulationV1alpha1().Simulators(ns).List(context.Background(),
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
	checkPages(t, recorded)
}

// The operator's Simulator informer factory (kubecache.NewPagedCRInformers,
// as the operator builds it) where there is no watch-list: client-go's
// WatchListClient turned off makes the reflector take the list it falls back
// to when the API server serves none. Its first list reaches the API server
// page by page, and its cache holds every Simulator trimmed.
func TestSimulatorInformerWithoutWatchList(t *testing.T) {
	gates, ok := clientfeatures.FeatureGates().(interface {
		Enabled(clientfeatures.Feature) bool
		Set(clientfeatures.Feature, bool) error
	})
	if !ok {
		t.Fatalf("client-go's feature gates (%T) cannot be set: nothing here turns the watch-list off", clientfeatures.FeatureGates())
	}
	was := gates.Enabled(clientfeatures.WatchListClient)
	if err := gates.Set(clientfeatures.WatchListClient, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := gates.Set(clientfeatures.WatchListClient, was); err != nil {
			t.Error(err)
		}
	})
	env := framework.Shared(t)
	ns, n := createAnnotatedSimulators(t, env, "no-watch-list")
	cr, recorded := recordedSimulatorClient(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	factory := kubecache.NewPagedCRInformers(cr, 0, trim.Objects, externalversions.WithNamespace(ns))
	simulators := factory.Simulation().V1alpha1().Simulators().Lister()
	factory.Start(ctx.Done())
	// Shutdown waits for the informers, which stop when ctx is done.
	defer func() { cancel(); factory.Shutdown() }()
	for informer, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			t.Fatalf("the informer of %v did not sync", informer)
		}
	}
	cached, err := simulators.List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	if len(cached) != n {
		t.Fatalf("the informer holds %d Simulators, want %d", len(cached), n)
	}
	for _, sim := range cached {
		if len(sim.Annotations) != 0 {
			t.Fatalf("Simulator %s kept %d annotations in the informer", sim.Name, len(sim.Annotations))
		}
	}
	recorded.mu.Lock()
	watchLists := recorded.watchLists
	recorded.mu.Unlock()
	if watchLists != 0 {
		t.Fatalf("the informer asked for the watch-list %d times: the list path was not taken", watchLists)
	}
	checkPages(t, recorded)
}
