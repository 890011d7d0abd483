package schedulerconfig

import (
	"regexp"
	"strconv"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// withSubjects names, for each problem that does not yet name one, its
// subject in the merged document: a path of a layer moves to where the merge
// put that entry (a profile by schedulerName, its pluginConfig entry by name,
// an extender by urlPrefix), a path of the merged document stays. A scheduler
// binary, which sees only the merged document, names the same subject.
func withSubjects(problems []problem.Problem, layers []*layer, merged map[string]interface{}) []problem.Problem {
	for i := range problems {
		p := &problems[i]
		if p.Subject != (problem.Subject{}) || p.Path == "" {
			continue
		}
		if p.Source == mergedSource {
			p.Subject.Field = p.Path
			continue
		}
		for j := len(layers) - 1; j >= 0; j-- {
			if layers[j] != nil && layers[j].source == p.Source {
				p.Subject.Field = mergedPath(layers[j], p.Path, merged)
				break
			}
		}
	}
	return problems
}

var (
	profileElemRE      = regexp.MustCompile(`^profiles\[(\d+)\](.*)$`)
	pluginConfigElemRE = regexp.MustCompile(`^\.pluginConfig\[(\d+)\](.*)$`)
	extenderElemRE     = regexp.MustCompile(`^extenders\[(\d+)\](.*)$`)
)

// mergedPath is where path of layer l is in the merged document.
func mergedPath(l *layer, path string, merged map[string]interface{}) string {
	if m := extenderElemRE.FindStringSubmatch(path); m != nil {
		return problem.Index("extenders", movedIndex(l.obj["extenders"], merged["extenders"], "urlPrefix", m[1])) + m[2]
	}
	m := profileElemRE.FindStringSubmatch(path)
	if m == nil {
		return path
	}
	i := movedIndex(l.obj["profiles"], merged["profiles"], "schedulerName", m[1])
	rest := m[2]
	if pc := pluginConfigElemRE.FindStringSubmatch(rest); pc != nil {
		from, _ := entryAt(l.obj["profiles"], m[1]).(map[string]interface{})
		to, _ := entryAt(merged["profiles"], strconv.Itoa(i)).(map[string]interface{})
		rest = problem.Index(".pluginConfig", movedIndex(from["pluginConfig"], to["pluginConfig"], "name", pc[1])) + pc[2]
	}
	return problem.Index("profiles", i) + rest
}

// movedIndex is the index in list to of the entry at index at of list from,
// found by key: the n-th entry of from with that key is the n-th of to (a
// layer that lists a name twice keeps both, and the merged document too, or
// folds them into its last); at itself when that entry has no key or to
// lacks it.
func movedIndex(from, to interface{}, key, at string) int {
	i, _ := strconv.Atoi(at)
	entry, _ := entryAt(from, at).(map[string]interface{})
	name, _ := entry[key].(string)
	if name == "" {
		return i
	}
	fromList, _ := from.([]interface{}) // entryAt found the entry: i is in range
	toList, _ := to.([]interface{})
	nth := len(keyedIndexes(fromList[:i], key, name))
	switch found := keyedIndexes(toList, key, name); {
	case nth < len(found):
		return found[nth]
	case len(found) > 0: // the merge folded the entries into one
		return found[len(found)-1]
	}
	return i
}

// keyedIndexes are the indexes of list's entries whose key is name.
func keyedIndexes(list []interface{}, key, name string) []int {
	var out []int
	for i, item := range list {
		if m, ok := item.(map[string]interface{}); ok && m[key] == name {
			out = append(out, i)
		}
	}
	return out
}

// entryAt is list's entry at index at, nil when there is none.
func entryAt(list interface{}, at string) interface{} {
	l, _ := list.([]interface{})
	i, err := strconv.Atoi(at)
	if err != nil || i < 0 || i >= len(l) {
		return nil
	}
	return l[i]
}
