package simulatorrender

import (
	"errors"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// InputError says a Simulator's spec cannot be rendered: its author has to
// change it. Anything else Render returns is an operator bug.
type InputError struct {
	// Errors name each field and say what a valid value looks like.
	Errors field.ErrorList
}

func (e *InputError) Error() string {
	return e.Errors.ToAggregate().Error()
}

// IsInputError tells whether err (or an error it wraps) is an *InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
