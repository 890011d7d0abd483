// Package problem collects what is wrong with the inputs of one render, each
// problem reading "<where>: <path>: <what is wrong and what to do>", so a user
// sees them all at once, and naming its subject in a form a machine compares.
// render and its scheduler-config engine share it.
package problem

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with the inputs.
type Problem struct {
	// Source is where the problem is, e.g. "ConfigMap ns/name config.yaml";
	// Path the field in it. Either may be empty.
	Source, Path string
	// Message says what is wrong and what to do.
	Message string
	// Subject is what the problem is about in the merged scheduler
	// configuration, the document kube-scheduler reads; zero for a problem
	// outside it.
	Subject Subject
}

// Subject names what a refusal is about the way a scheduler binary names it:
// a field path of the merged KubeSchedulerConfiguration
// (profiles[0].plugins.score.enabled[1].weight), or a plugin.
type Subject struct {
	Field  string
	Plugin string
}

func (s Subject) String() string {
	switch {
	case s.Plugin != "" && s.Field != "":
		return fmt.Sprintf("plugin %s at %s", s.Plugin, s.Field)
	case s.Plugin != "":
		return "plugin " + s.Plugin
	}
	return s.Field
}

// String reads "<source>: <path>: <message>", leaving out what is empty.
func (p Problem) String() string {
	switch {
	case p.Source == "" && p.Path == "":
		return p.Message
	case p.Source == "":
		return p.Path + ": " + p.Message
	case p.Path == "":
		return p.Source + ": " + p.Message
	}
	return p.Source + ": " + p.Path + ": " + p.Message
}

// List collects problems; the zero value is empty and ready.
type List struct {
	list []Problem
}

// Addf records a problem of source at path; either may be empty.
func (p *List) Addf(source, path, format string, args ...interface{}) {
	p.list = append(p.list, Problem{Source: source, Path: path, Message: fmt.Sprintf(format, args...)})
}

// AddAbout is Addf for a problem whose subject is known.
func (p *List) AddAbout(subject Subject, source, path, format string, args ...interface{}) {
	p.list = append(p.list, Problem{Source: source, Path: path, Message: fmt.Sprintf(format, args...), Subject: subject})
}

// Add records problems already found, such as another List's.
func (p *List) Add(problems ...Problem) { p.list = append(p.list, problems...) }

// Len is how many problems were recorded.
func (p *List) Len() int { return len(p.list) }

// Problems returns a copy of the problems, in the order recorded; nil if none.
func (p *List) Problems() []Problem {
	if len(p.list) == 0 {
		return nil
	}
	return append([]Problem(nil), p.list...)
}

// Strings returns the problems worded, in the order recorded; nil if none.
func (p *List) Strings() []string { return Strings(p.list) }

// Strings words problems; nil if none.
func Strings(problems []Problem) []string {
	if len(problems) == 0 {
		return nil
	}
	out := make([]string, len(problems))
	for i, pr := range problems {
		out[i] = pr.String()
	}
	return out
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
