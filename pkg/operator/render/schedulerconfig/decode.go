package schedulerconfig

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"

	kubeschedulerv1 "k8s.io/kube-scheduler/config/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// inTreeArgs are the typed args of kube-scheduler's own plugins: their args are
// decoded strictly, as kube-scheduler will. Out-of-tree plugins (Coscheduling,
// Trimaran, Fluence ...) register their own types in their own builds; their
// args are only checked to be objects.
var inTreeArgs = map[string]func() interface{}{
	"DefaultPreemption":               func() interface{} { return &kubeschedulerv1.DefaultPreemptionArgs{} },
	"DynamicResources":                func() interface{} { return &kubeschedulerv1.DynamicResourcesArgs{} },
	"InterPodAffinity":                func() interface{} { return &kubeschedulerv1.InterPodAffinityArgs{} },
	"NodeAffinity":                    func() interface{} { return &kubeschedulerv1.NodeAffinityArgs{} },
	"NodeResourcesBalancedAllocation": func() interface{} { return &kubeschedulerv1.NodeResourcesBalancedAllocationArgs{} },
	"NodeResourcesFit":                func() interface{} { return &kubeschedulerv1.NodeResourcesFitArgs{} },
	"PodTopologySpread":               func() interface{} { return &kubeschedulerv1.PodTopologySpreadArgs{} },
	"VolumeBinding":                   func() interface{} { return &kubeschedulerv1.VolumeBindingArgs{} },
}

// decodeSchedulerConfig decodes JSON strictly as a v1 KubeSchedulerConfiguration
// and records unknown fields and wrong types with their paths.
func decodeSchedulerConfig(source string, data []byte, errs *problem.List) {
	strictDecode(source, "", data, &kubeschedulerv1.KubeSchedulerConfiguration{}, errs)
}

func decodePluginArgs(source, path, plugin string, args map[string]interface{}, errs *problem.List) {
	newArgs, ok := inTreeArgs[plugin]
	if !ok {
		return
	}
	data, err := json.Marshal(args)
	if err != nil {
		errs.Addf(source, path, "cannot encode: %v", err)
		return
	}
	strictDecode(source, path, data, newArgs(), errs)
}

var (
	// sigs.k8s.io/json reports unknown and duplicate fields as `unknown field "a.b[0].c"`.
	strictFieldRE = regexp.MustCompile(`^(unknown|duplicate) field "(.*)"$`)
	// and wrong types as encoding/json does, with the path minus list indices.
	// A number out of range reads "cannot unmarshal number 2147483648 into ...".
	typeErrRE  = regexp.MustCompile(`cannot unmarshal (\w+)(?: (\S+))? into Go struct field [^.\s]+\.(\S+) of type (\S+)`)
	valueErrRE = regexp.MustCompile(`cannot unmarshal (\w+) into Go value of type (\S+)`)
)

func strictDecode(source, prefix string, data []byte, into interface{}, errs *problem.List) {
	strictErrs, err := sigsjson.UnmarshalStrict(data, into)
	if err != nil {
		msg := err.Error()
		if m := typeErrRE.FindStringSubmatch(msg); m != nil {
			path := problem.JoinPath(prefix, indexedPath(data, m[3], m[1]))
			if m[2] != "" {
				errs.Addf(source, path, "%s is out of range for %s", m[2], m[4])
			} else {
				errs.Addf(source, path, "must be %s, not %s", goTypeWords(m[4]), jsonWord(m[1]))
			}
		} else if m := valueErrRE.FindStringSubmatch(msg); m != nil {
			errs.Addf(source, prefix, "must be %s, not %s", goTypeWords(m[2]), jsonWord(m[1]))
		} else {
			errs.Addf(source, prefix, "%s", strings.TrimPrefix(msg, "json: "))
		}
		return
	}
	for _, se := range strictErrs {
		if m := strictFieldRE.FindStringSubmatch(se.Error()); m != nil {
			hint := "remove it or fix its spelling (field names are case-sensitive)"
			if m[1] == "duplicate" {
				hint = "remove one of them"
			}
			errs.Addf(source, problem.JoinPath(prefix, m[2]), "%s field: %s", m[1], hint)
		} else {
			errs.Addf(source, prefix, "%v", se)
		}
	}
}

func jsonWord(t string) string {
	switch t {
	case "object":
		return "an object"
	case "array":
		return "a list"
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "a boolean"
	}
	return t
}

// goTypeWords describes a Go type as a YAML author thinks of it.
func goTypeWords(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "an object"
	case t == "string", strings.HasSuffix(t, "Type"), strings.HasSuffix(t, "Defaulting"):
		return "a string"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	case t == "v1.Duration":
		return `a duration such as "15s"`
	}
	return "an object"
}

// indexedPath is the path, list indexes included, of the one value of the
// JSON kind at path in data, which encoding/json names without its indexes
// (profiles.plugins.score.enabled.weight); path itself when no value, or more
// than one, fits.
func indexedPath(data []byte, path, kind string) string {
	var doc interface{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return path
	}
	var found []string
	var walk func(v interface{}, at, rest string)
	walk = func(v interface{}, at, rest string) {
		if rest == "" {
			if jsonKind(v) == kind {
				found = append(found, at)
			}
			return
		}
		switch v := v.(type) {
		case []interface{}:
			for i, item := range v {
				walk(item, problem.Index(at, i), rest)
			}
		case map[string]interface{}:
			field, after, _ := strings.Cut(rest, ".")
			if child, ok := v[field]; ok {
				walk(child, problem.JoinPath(at, field), after)
			}
		}
	}
	walk(doc, "", path)
	if len(found) != 1 {
		return path
	}
	return found[0]
}

// jsonKind is how encoding/json names the kind of a decoded value in its errors.
func jsonKind(v interface{}) string {
	switch v.(type) {
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "bool"
	case []interface{}:
		return "array"
	case map[string]interface{}:
		return "object"
	}
	return "null"
}
