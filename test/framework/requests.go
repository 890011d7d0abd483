package framework

import (
	"fmt"
	"maps"
	"net/http"
	"sync"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/rest"
)

// writeVerbs are the API verbs that change state.
var writeVerbs = sets.New("create", "update", "patch", "delete", "deletecollection")

// maxRecorded bounds the writes a RequestCounter remembers for messages.
const maxRecorded = 200

// RequestCounter counts the API requests sent through one rest.Config, by verb
// (get, list, watch, create, update, patch, delete, deletecollection), as
// kube-apiserver classifies them.
type RequestCounter struct {
	mu     sync.Mutex
	byVerb map[string]int
	writes []string // "PATCH /apis/apps/v1/namespaces/x/deployments/y", the first maxRecorded
}

// CountRequests returns a copy of cfg whose requests c counts. Build every client
// of the code under test from the returned config.
func CountRequests(cfg *rest.Config) (*rest.Config, *RequestCounter) {
	c := &RequestCounter{byVerb: map[string]int{}}
	counted := rest.CopyConfig(cfg)
	counted.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			c.record(req)
			return rt.RoundTrip(req)
		})
	})
	return counted, c
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

var requestInfos = &request.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

func (c *RequestCounter) record(req *http.Request) {
	verb := req.Method
	if info, err := requestInfos.NewRequestInfo(req); err == nil && info.Verb != "" {
		verb = info.Verb
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byVerb[verb]++
	if writeVerbs.Has(verb) && len(c.writes) < maxRecorded {
		c.writes = append(c.writes, fmt.Sprintf("%s %s", req.Method, req.URL.RequestURI()))
	}
}

// Count is the number of requests of one verb.
func (c *RequestCounter) Count(verb string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byVerb[verb]
}

// Counts are the numbers of requests by verb.
func (c *RequestCounter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.byVerb)
}

// Writes is the number of create, update, patch, delete and deletecollection requests.
func (c *RequestCounter) Writes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for v := range writeVerbs {
		n += c.byVerb[v]
	}
	return n
}

// WriteRequests are the write requests (method and URI) since the last Reset, the
// first 200 of them: put them in the message of a failed "no writes" assertion.
func (c *RequestCounter) WriteRequests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.writes...)
}

// Reset sets every count to zero.
func (c *RequestCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byVerb = map[string]int{}
	c.writes = nil
}

// NoWrites is a Consistently condition: false, with the requests in the error,
// once any write was sent since the last Reset.
//
//	counter.Reset()
//	framework.Consistently(ctx, t, 30*time.Second, "a converged operator writes nothing", counter.NoWrites)
func (c *RequestCounter) NoWrites() (bool, error) {
	if n := c.Writes(); n > 0 {
		return false, fmt.Errorf("%d write requests: %v", n, c.WriteRequests())
	}
	return true, nil
}
