package render

import (
	"errors"
	"strings"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// InputError says the SecondaryScheduler, its ConfigMap or its observed config
// cannot be rendered: a person has to change them. Anything else Render returns
// is an operator bug. Each problem reads "<where>: <path>: <what is wrong and
// what to do>", e.g.
//
//	ConfigMap openshift-secondary-scheduler/my-config config.yaml: profiles[1].schedulerName: duplicate "foo"
//
// A problem of the scheduler configuration also names its subject in the
// merged configuration (problem.Subject), the field or plugin kube-scheduler
// would name when refusing the same document.
type InputError struct {
	Problems []problem.Problem
	// Config is the merged scheduler configuration (config.yaml) the
	// problems were found in, or that the scheduler would have read were
	// they ignored: every layer merged, the operator-owned fields set. It is
	// nil when the layers could not be merged: a layer is no YAML object or
	// over the bounds, or the user's ConfigMap cannot be read.
	Config []byte
}

func (e *InputError) Error() string {
	return strings.Join(problem.Strings(e.Problems), "\n")
}

// IsInputError tells whether err (or an error it wraps) is an *InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// inputError wraps the problems recorded so far and the merged scheduler
// configuration, nil when there are no problems.
func inputError(p *problem.List, config []byte) error {
	if p.Len() == 0 {
		return nil
	}
	return &InputError{Problems: p.Problems(), Config: config}
}
