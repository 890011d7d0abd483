// Package problem collects what is wrong with the inputs of one render, each
// problem reading "<where>: <path>: <what is wrong and what to do>", so a user
// sees them all at once. render and its scheduler-config engine share it.
package problem

import (
	"fmt"
	"strings"
)

// List collects problems; the zero value is empty and ready.
type List struct {
	list []string
}

// Addf records a problem of source at path; either may be empty.
func (p *List) Addf(source, path, format string, args ...interface{}) {
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

// Add records problems already worded, such as another List's.
func (p *List) Add(problems ...string) { p.list = append(p.list, problems...) }

// Len is how many problems were recorded.
func (p *List) Len() int { return len(p.list) }

// Strings returns a copy of the problems, in the order recorded; nil if none.
func (p *List) Strings() []string {
	if len(p.list) == 0 {
		return nil
	}
	return append([]string(nil), p.list...)
}

// Index appends a list index to a dotted path: Index("profiles", 2) is "profiles[2]".
func Index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// JoinPath appends a field or an index ("[2]") to a dotted path.
func JoinPath(path, elem string) string {
	switch {
	case path == "":
		return elem
	case strings.HasPrefix(elem, "["):
		return path + elem
	default:
		return path + "." + elem
	}
}
