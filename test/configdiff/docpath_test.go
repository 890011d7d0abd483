package configdiff

import (
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// The framework build speaks of a profile by schedulerName, of a plugin's args
// relative to the args, and of a plugin entry by its name, "" for one that has
// none; the args decoder of a pluginConfig entry by index, and of a field
// relative to the args. inProfile turns these into paths of the document the
// binary was given, the form the operator names.

var (
	profileNameRE = regexp.MustCompile(`creating profile for scheduler name ([^:]+): (.*)$`)
	pluginArgsRE  = regexp.MustCompile(`^initializing plugin "([^"]+)": (.*)$`)
	emptyPluginRE = regexp.MustCompile(`^([A-Za-z]+)Plugin "" does not exist`)
	argsDecodeRE  = regexp.MustCompile(`decoding \.(profiles\[\d+\]\.pluginConfig\[\d+\]): .*?decoding args for plugin [^:]+: (.*)$`)
)

// inProfile resolves what a refusal names inside one profile or one plugin's
// args; ok is false for a message of another kind.
func inProfile(reason string, doc []byte) (subjects []problem.Subject, ok bool) {
	if m := argsDecodeRE.FindStringSubmatch(reason); m != nil {
		for _, f := range argsFields(m[2]) {
			subjects = append(subjects, problem.Subject{Field: m[1] + ".args." + f})
		}
		return subjects, true
	}
	m := profileNameRE.FindStringSubmatch(reason)
	if m == nil {
		return nil, false
	}
	profiles := listOf(docObject(doc)["profiles"])
	pi := indexByKey(profiles, "schedulerName", m[1])
	if pi < 0 {
		return nil, false
	}
	profile, at := object(profiles[pi]), problem.Index("profiles", pi)
	if a := pluginArgsRE.FindStringSubmatch(m[2]); a != nil {
		ci := indexByKey(listOf(profile["pluginConfig"]), "name", a[1])
		for _, f := range fieldErrorRE.FindAllStringSubmatch(a[2], -1) {
			if ci >= 0 {
				subjects = append(subjects, problem.Subject{Field: problem.Index(at+".pluginConfig", ci) + ".args." + f[1]})
			}
		}
		if len(subjects) == 0 {
			subjects = []problem.Subject{{Plugin: a[1]}}
		}
		return subjects, true
	}
	if e := emptyPluginRE.FindStringSubmatch(m[2]); e != nil {
		point := strings.ToLower(e[1][:1]) + e[1][1:]
		field := at + ".plugins." + point + ".enabled"
		for k, entry := range listOf(object(object(profile["plugins"])[point])["enabled"]) {
			if name, _ := object(entry)["name"].(string); name == "" {
				field = problem.Index(field, k)
				break
			}
		}
		return []problem.Subject{{Field: field}}, true
	}
	return nil, false
}

// argsFields are the fields, relative to the args, that an args decoding
// error names: an unknown field, or one of the wrong type.
func argsFields(msg string) []string {
	var out []string
	for _, m := range unknownRE.FindAllStringSubmatch(msg, -1) {
		out = append(out, m[1])
	}
	for _, m := range unmarshalRE.FindAllStringSubmatch(msg, -1) {
		_, path, _ := strings.Cut(m[1], ".")
		out = append(out, path)
	}
	return out
}

func docObject(doc []byte) map[string]interface{} {
	var obj map[string]interface{}
	if yaml.Unmarshal(doc, &obj) != nil {
		return nil
	}
	return obj
}

func object(v interface{}) map[string]interface{} {
	m, _ := v.(map[string]interface{})
	return m
}

func listOf(v interface{}) []interface{} {
	l, _ := v.([]interface{})
	return l
}

// indexByKey is the index of the first entry of list whose key is name, -1 for none.
func indexByKey(list []interface{}, key, name string) int {
	for i, item := range list {
		if object(item)[key] == name {
			return i
		}
	}
	return -1
}
