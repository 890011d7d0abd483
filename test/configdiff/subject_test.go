package configdiff

import (
	"regexp"
	"slices"
	"strings"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// A refusal agrees only when both sides name the same subject: the field path
// of the merged configuration, or the plugin. The operator's problems carry
// theirs (problem.Subject); a binary's are read from its last line here.

// fieldPath is a field path as kube-scheduler's validation prints it
// (field.ErrorList: "path: Invalid value: ..."), and as strict decoding
// names an unknown field.
const fieldPath = `[A-Za-z][A-Za-z0-9]*(?:\[\d+\]|\.[A-Za-z][A-Za-z0-9]*|\[[A-Za-z0-9.-]+\])*`

var (
	fieldErrorRE = regexp.MustCompile(`(` + fieldPath + `): (?:Invalid value|Required value|Unsupported value|Duplicate value|Forbidden|Too long|Too many|Not found|Internal error)`)
	unknownRE    = regexp.MustCompile(`unknown field "(` + fieldPath + `)"`)
	// encoding/json: "cannot unmarshal string into Go struct field KubeSchedulerConfiguration.parallelism of type int32"
	unmarshalRE = regexp.MustCompile(`Go struct field (` + fieldPath + `) of type`)
	// the framework build: plugin "Foo" does not exist, plugin "Foo" does not
	// extend score plugin, "Foo" is not a registered ..., already registered as "Filter"
	// (FilterPlugin "Foo" does not exist, for a point's interface).
	pluginRE  = regexp.MustCompile(`(?i:plugins?) "([A-Za-z0-9*-]+)"|"([A-Za-z0-9-]+)" is not a registered|config for plugin ([A-Za-z0-9-]+)`)
	versionRE = regexp.MustCompile(`no kind "KubeSchedulerConfiguration" is registered for version`)
	// The framework build speaks of a profile by schedulerName, not by index:
	// these name a plugin set of some profile.
	profileSetREs = map[string]*regexp.Regexp{
		"plugins.queueSort": regexp.MustCompile(`queue sort plugins? (?:required|for profile)`),
		"pluginConfig":      regexp.MustCompile(`different queue sort plugin args`),
		"plugins.bind":      regexp.MustCompile(`at least one bind plugin`),
		"plugins.score":     regexp.MustCompile(`total score of Score plugins could overflow`),
	}
)

// binarySubjects are the subjects a binary's refusal of doc (the
// config.yaml it was given) names, as paths of doc; none when its message
// names none the extractor knows.
func binarySubjects(reason string, doc []byte) []problem.Subject {
	// klog quotes the error: err="... plugin \"Foo\" ..."
	reason = strings.ReplaceAll(reason, `\"`, `"`)
	var out []problem.Subject
	add := func(s problem.Subject) {
		s = normalize(s)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if s, ok := inProfile(reason, doc); ok {
		for _, subject := range s {
			add(subject)
		}
		return out
	}
	for _, re := range []*regexp.Regexp{fieldErrorRE, unknownRE} {
		for _, m := range re.FindAllStringSubmatch(reason, -1) {
			add(problem.Subject{Field: m[1]})
		}
	}
	for _, m := range unmarshalRE.FindAllStringSubmatch(reason, -1) {
		// encoding/json prefixes the path with the Go type that holds the field.
		_, path, _ := strings.Cut(m[1], ".")
		add(problem.Subject{Field: path})
	}
	for _, m := range pluginRE.FindAllStringSubmatch(reason, -1) {
		add(problem.Subject{Plugin: m[1] + m[2] + m[3]})
	}
	if versionRE.MatchString(reason) {
		add(problem.Subject{Field: "apiVersion"})
	}
	for field, re := range profileSetREs {
		if re.MatchString(reason) {
			add(problem.Subject{Field: field})
		}
	}
	return out
}

// normalize drops what only one side writes: quotes, indexes written as ".0"
// instead of "[0]", and the internal type's field names kube-scheduler's
// validation prints (queueSort.Enabled) for the versioned ones the document
// has (queueSort.enabled).
func normalize(s problem.Subject) problem.Subject {
	f := strings.Trim(s.Field, `"`)
	f = dottedIndexRE.ReplaceAllString(f, "[$1]")
	f = internalFieldRE.ReplaceAllStringFunc(f, strings.ToLower)
	return problem.Subject{Field: f, Plugin: strings.Trim(s.Plugin, `"`)}
}

var (
	dottedIndexRE   = regexp.MustCompile(`\.(\d+)(?:$|\b)`)
	internalFieldRE = regexp.MustCompile(`(?:^|\.)[A-Z]`)
)

// sameSubject tells whether one of the operator's subjects is one the binary
// names (commonSubject).
func sameSubject(operator, binary []problem.Subject) bool {
	_, ok := commonSubject(operator, binary)
	return ok
}

// commonSubject is the first of the operator's subjects the binary names: the
// same plugin, or the same field. A binary that names a profile's plugin set
// or pluginConfig without the profile (profileSetREs) matches that field, or
// one inside it, in any profile; one that names a path without its indexes,
// as encoding/json does, matches that path at any index.
func commonSubject(operator, binary []problem.Subject) (problem.Subject, bool) {
	for _, o := range operator {
		o = normalize(o)
		for _, b := range binary {
			switch {
			case b.Plugin != "" && b.Plugin == o.Plugin:
				return o, true
			case b.Field == "" || o.Field == "":
			case b.Field == o.Field, profileSetREs[b.Field] != nil && inProfileSet(o.Field, b.Field),
				!strings.Contains(b.Field, "[") && indexRE.ReplaceAllString(o.Field, "") == b.Field:
				return o, true
			}
		}
	}
	return problem.Subject{}, false
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// inProfileSet: field is set (plugins.score), or inside it, in some profile.
func inProfileSet(field, set string) bool {
	_, rest, ok := strings.Cut(field, "."+set)
	return ok && strings.HasPrefix(field, "profiles[") && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

func subjectsString(subjects []problem.Subject) string {
	if len(subjects) == 0 {
		return "(none)"
	}
	words := make([]string, len(subjects))
	for i, s := range subjects {
		words[i] = s.String()
	}
	return strings.Join(words, ", ")
}
