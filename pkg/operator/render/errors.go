package render

import (
	"errors"
	"fmt"
	"strings"
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

// problems collects every problem of one render, so a user sees them all at once.
type problems struct {
	list []string
}

// addf records a problem of source at path; path may be empty.
func (p *problems) addf(source, path, format string, args ...interface{}) {
	msg := fmt.Sprintf(format, args...)
	switch {
	case source == "":
		p.list = append(p.list, path+": "+msg)
	case path == "":
		p.list = append(p.list, source+": "+msg)
	default:
		p.list = append(p.list, source+": "+path+": "+msg)
	}
}

func (p *problems) len() int { return len(p.list) }

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &InputError{Problems: append([]string(nil), p.list...)}
}

// joinPath appends a field or an index ("[2]") to a dotted path.
func joinPath(path, elem string) string {
	switch {
	case path == "":
		return elem
	case strings.HasPrefix(elem, "["):
		return path + elem
	default:
		return path + "." + elem
	}
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
