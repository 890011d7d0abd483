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
type InputError struct {
	Problems []string
}

func (e *InputError) Error() string {
	return strings.Join(e.Problems, "\n")
}

// IsInputError tells whether err (or an error it wraps) is an *InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

// inputError wraps the problems recorded so far, nil when there are none.
func inputError(p *problem.List) error {
	if p.Len() == 0 {
		return nil
	}
	return &InputError{Problems: p.Strings()}
}
