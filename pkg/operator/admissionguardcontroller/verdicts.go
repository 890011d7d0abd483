package admissionguardcontroller

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// Verdicts holds the latest verdict on the guard for the controllers that act
// on it. It is a library-go factory.Informer: a controller built with it waits
// for the first verdict before its first sync, and its handlers are called
// with an UPDATE of a placeholder object whenever the verdict changes.
type Verdicts struct {
	mu       sync.Mutex
	verdict  Verdict
	handlers []cache.ResourceEventHandler
	known    chan struct{} // closed at the first verdict
}

// NewVerdicts returns a holder with no verdict yet: not synced, not intact.
func NewVerdicts() *Verdicts {
	return &Verdicts{known: make(chan struct{}), verdict: Verdict{Reason: ReasonCannotRead, Message: "the admission guard has not been checked yet"}}
}

// Get returns the latest verdict.
func (v *Verdicts) Get() Verdict {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.verdict
}

// Intact says whether the guard is intact and, when not, why.
func (v *Verdicts) Intact() (bool, string) {
	verdict := v.Get()
	return verdict.Intact, verdict.Message
}

// Set records a verdict and tells the handlers when it differs from the last.
func (v *Verdicts) Set(verdict Verdict) {
	v.mu.Lock()
	first := !v.hasSyncedLocked()
	changed := first || verdict != v.verdict
	v.verdict = verdict
	if first {
		close(v.known)
	}
	handlers := append([]cache.ResourceEventHandler(nil), v.handlers...)
	v.mu.Unlock()
	if !changed {
		return
	}
	for _, h := range handlers {
		h.OnUpdate(placeholder, placeholder)
	}
}

// placeholder is the object handlers get: what changed is in Get.
var placeholder = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "simulator-admission-guard"}}

// AddEventHandler registers a handler for verdict changes.
func (v *Verdicts) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.handlers = append(v.handlers, handler)
	return registration{v}, nil
}

// HasSynced is true once the first verdict is in.
func (v *Verdicts) HasSynced() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.hasSyncedLocked()
}

func (v *Verdicts) hasSyncedLocked() bool {
	select {
	case <-v.known:
		return true
	default:
		return false
	}
}

// registration is what AddEventHandler returns; handlers are never removed.
type registration struct{ v *Verdicts }

func (r registration) HasSynced() bool                     { return r.v.HasSynced() }
func (r registration) HasSyncedChecker() cache.DoneChecker { return doneChecker{r.v.known} }
func (doneChecker) Name() string                           { return "simulator admission guard verdict" }
func (d doneChecker) Done() <-chan struct{}                { return d.done }

type doneChecker struct{ done chan struct{} }
