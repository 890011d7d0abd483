package operator

import (
	"time"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/unservedpodscontroller"
)

// Options are what the operator command configures; DefaultOptions returns
// the defaults of its flags.
type Options struct {
	// UnservedPodGrace is how long a pod waits for its scheduler before the
	// unserved pods controller reports it (--unserved-pod-grace).
	UnservedPodGrace time.Duration
}

// DefaultOptions are the operator's options when no flag changes them.
func DefaultOptions() Options {
	return Options{UnservedPodGrace: unservedpodscontroller.DefaultGrace}
}
