package simulatorcontroller

import (
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
)

// recentWrites remembers the objects this controller wrote until its informers
// show them, so that a sync running before the watch event arrives neither
// creates an object twice nor updates a status from a stale resourceVersion
// (AlreadyExists and Conflict: wasted requests, and a rate-limited retry).
// client-go's MutationCache does the same but forgets beyond 100 objects, which a
// burst of a thousand Simulators exceeds.
type recentWrites struct {
	clock clock.PassiveClock
	ttl   time.Duration

	mu      sync.Mutex
	written map[string]writtenObject
}

type writtenObject struct {
	obj runtime.Object
	at  time.Time
}

func newRecentWrites(clk clock.PassiveClock, ttl time.Duration) *recentWrites {
	return &recentWrites{clock: clk, ttl: ttl, written: map[string]writtenObject{}}
}

// record remembers an object the API server returned from a write, trimmed
// (in place) as the informers would hold it.
func (w *recentWrites) record(kind string, obj runtime.Object) {
	obj = cached(obj)
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.written[kind+"/"+m.GetNamespace()+"/"+m.GetName()] = writtenObject{obj: obj, at: w.clock.Now()}
}

// forget drops what is remembered of an object, such as one just deleted.
func (w *recentWrites) forget(kind, namespace, name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.written, kind+"/"+namespace+"/"+name)
}

// newest returns the newer of the cached object (nil: not in the cache) and the
// one written last, or nil when neither exists. The memory of a write ends once
// the cache holds that version or a newer one, or after the TTL (a watch event
// that never came: the object was deleted meanwhile).
func (w *recentWrites) newest(kind, namespace, name string, cached runtime.Object) runtime.Object {
	key := kind + "/" + namespace + "/" + name
	w.mu.Lock()
	defer w.mu.Unlock()
	wo, ok := w.written[key]
	if !ok {
		return cached
	}
	if w.clock.Since(wo.at) > w.ttl {
		delete(w.written, key)
		return cached
	}
	if cached != nil && compareResourceVersions(cached, wo.obj) >= 0 {
		delete(w.written, key)
		return cached
	}
	return wo.obj
}

// compareResourceVersions orders two versions of an object. Resource versions are
// opaque to clients, but etcd's are integers; an unparsable one counts as newest,
// so that a cache we cannot compare with always wins.
func compareResourceVersions(a, b runtime.Object) int {
	av, aerr := resourceVersion(a)
	bv, berr := resourceVersion(b)
	switch {
	case aerr != nil:
		return 1
	case berr != nil:
		return -1
	case av < bv:
		return -1
	case av > bv:
		return 1
	}
	return 0
}

func resourceVersion(obj runtime.Object) (uint64, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(m.GetResourceVersion(), 10, 64)
}
