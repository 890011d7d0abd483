package schedulerconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

const (
	schedulerConfigGroup   = "kubescheduler.config.k8s.io"
	schedulerConfigVersion = schedulerConfigGroup + "/v1"
	schedulerConfigKind    = "KubeSchedulerConfiguration"
	// defaultSchedulerName is what kube-scheduler names a profile without a
	// schedulerName; the cluster's default scheduler already serves it.
	defaultSchedulerName = "default-scheduler"
)

// layer is one parsed, checked configuration layer.
type layer struct {
	// source names the layer in error messages.
	source string
	obj    map[string]interface{}
	// replaceProfiles is Layer.ReplaceProfiles.
	replaceProfiles bool
}

// parseLayer decodes a YAML or JSON layer and checks it on its own, so that every
// problem is reported against the layer the user wrote (recorded in errs). It
// returns nil when the layer is no object to merge (over the bounds, not YAML,
// not an object), and an empty layer for empty data.
func parseLayer(in Layer, errs *problem.List) *layer {
	source, data := in.Source, in.Data
	l := &layer{source: source, obj: map[string]interface{}{}, replaceProfiles: in.ReplaceProfiles}
	if !checkBounds(source, data, errs) {
		return nil
	}
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		errs.Addf(source, "", "not valid YAML: %v", err)
		return nil
	}
	if t := bytes.TrimSpace(j); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return l
	}
	var v interface{}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber() // keep numbers exactly as written
	if err := dec.Decode(&v); err != nil {
		errs.Addf(source, "", "not valid YAML: %v", err)
		return nil
	}
	obj, ok := v.(map[string]interface{})
	if !ok {
		errs.Addf(source, "", "must be a KubeSchedulerConfiguration object, not %s", describeJSON(v))
		return nil
	}
	l.obj = obj
	before := errs.Len()
	checkTypeMeta(source, obj, errs)
	if errs.Len() > before {
		// A v1beta3 layer fails the v1 decode in a dozen ways; the version is the news.
		return l
	}
	decodeSchedulerConfig(source, j, errs)
	checkProfiles(source, obj, errs)
	checkExtenders(source, obj, errs)
	return l
}

// parseInternalLayer parses one of our own embedded layers; a problem is a bug.
func parseInternalLayer(asset string) (*layer, error) {
	errs := &problem.List{}
	l := parseLayer(Layer{Source: "bindata " + asset, Data: bindata.MustAsset(asset)}, errs)
	if l == nil || errs.Len() > 0 {
		return nil, fmt.Errorf("embedded scheduler configuration is invalid: %s", strings.Join(errs.Strings(), "; "))
	}
	return l, nil
}

func checkTypeMeta(source string, obj map[string]interface{}, errs *problem.List) {
	if v, ok := obj["apiVersion"]; ok {
		apiVersion, _ := v.(string)
		switch {
		case apiVersion == schedulerConfigVersion:
		case strings.HasPrefix(apiVersion, schedulerConfigGroup+"/"):
			errs.Addf(source, "apiVersion", "%s is not served: kube-scheduler accepts only %s since Kubernetes 1.29; "+
				"set apiVersion: %s and convert the fields that changed",
				apiVersion, schedulerConfigVersion, schedulerConfigVersion)
		default:
			errs.Addf(source, "apiVersion", "%s is not a scheduler configuration; use %s (or leave apiVersion out)",
				describeValue(v), schedulerConfigVersion)
		}
	}
	if v, ok := obj["kind"]; ok && v != schedulerConfigKind {
		errs.Addf(source, "kind", "%s is not %s; use kind: %s (or leave kind out)", describeValue(v), schedulerConfigKind, schedulerConfigKind)
	}
}

func checkProfiles(source string, obj map[string]interface{}, errs *problem.List) {
	v, ok := obj["profiles"]
	if !ok {
		return
	}
	list, ok := v.([]interface{})
	if !ok || len(list) == 0 {
		if v == nil || ok {
			errs.Addf(source, "profiles", "list at least one profile, or leave profiles out to keep the profiles of the layers below")
		}
		return // a non-list was reported by the typed decode
	}
	seen := map[string]int{}
	for i, item := range list {
		path := problem.Index("profiles", i)
		p, ok := item.(map[string]interface{})
		if !ok {
			nullEntry(source, path, item, fmt.Sprintf("kube-scheduler would serve an empty entry as %q, "+
				"which the cluster's default scheduler already serves", defaultSchedulerName), errs)
			continue
		}
		name, _ := p["schedulerName"].(string)
		switch first, dup := seen[name]; {
		case name == "":
			errs.Addf(source, path+".schedulerName", "required: without it kube-scheduler names the profile %q, "+
				"which the cluster's default scheduler already serves", defaultSchedulerName)
		case name == defaultSchedulerName:
			errs.Addf(source, path+".schedulerName", "%q belongs to the cluster's default scheduler; choose another name "+
				"(pods pick a profile with spec.schedulerName)", defaultSchedulerName)
		case dup:
			errs.Addf(source, path+".schedulerName", "duplicate %q (also profiles[%d]); each profile needs its own schedulerName", name, first)
		default:
			seen[name] = i
		}
		checkPluginConfig(source, path, p["pluginConfig"], errs)
		checkPluginSets(source, path, p["plugins"], errs)
	}
}

// nullEntry reports a null (or empty) list entry: the typed decode accepts it
// as a zero value, which kube-scheduler then defaults or rejects late.
func nullEntry(source, path string, item interface{}, why string, errs *problem.List) {
	if item == nil {
		errs.Addf(source, path, "null entry: remove it or fill it in (%s)", why)
	}
}

// checkPluginSets checks that every plugin a profile enables or disables has a
// name (kube-scheduler fails at start-up on a plugin named "") and that no
// score weight is negative.
func checkPluginSets(source, profilePath string, v interface{}, errs *problem.List) {
	points, _ := v.(map[string]interface{})
	for _, point := range sortedKeys(points) {
		set, _ := points[point].(map[string]interface{})
		for _, which := range []string{"enabled", "disabled"} {
			list, _ := set[which].([]interface{})
			for i, item := range list {
				path := problem.Index(profilePath+".plugins."+point+"."+which, i)
				p, ok := item.(map[string]interface{})
				if !ok {
					nullEntry(source, path, item, "a plugin entry needs a name", errs)
					continue
				}
				if name, _ := p["name"].(string); name == "" {
					errs.Addf(source, path+".name", "required: the plugin's name (\"*\" stands for all default plugins in disabled)")
				}
				if which == "enabled" && (point == "score" || point == "multiPoint") {
					checkWeight(source, path+".weight", p["weight"], errs)
				}
			}
		}
	}
}

// checkWeight refuses a negative score weight. kube-scheduler adds the weights
// up in an int64 and refuses the profile when the sum wraps around, which a
// negative weight does as soon as another score plugin follows it; the one it
// accepts, on the last score plugin, ranks nodes against the plugin's own
// preference. Either way it is a mistake.
func checkWeight(source, path string, v interface{}, errs *problem.List) {
	w, _ := v.(json.Number)
	if f, err := w.Float64(); err == nil && f < 0 {
		errs.Addf(source, path, "%s: a score weight must not be negative; disable the plugin instead, "+
			"or give a weight of 1 or more (0 or no weight means 1)", w)
	}
}

func checkPluginConfig(source, profilePath string, v interface{}, errs *problem.List) {
	list, _ := v.([]interface{})
	seen := map[string]int{}
	for i, item := range list {
		path := problem.Index(profilePath+".pluginConfig", i)
		pc, ok := item.(map[string]interface{})
		if !ok {
			nullEntry(source, path, item, "an args entry needs the plugin's name", errs)
			continue
		}
		name, _ := pc["name"].(string)
		if name == "" {
			errs.Addf(source, path+".name", "required: the plugin these args are for")
			continue
		}
		if first, dup := seen[name]; dup {
			errs.Addf(source, path+".name", "duplicate %q (also pluginConfig[%d]); merge the two args", name, first)
			continue
		}
		seen[name] = i
		switch args := pc["args"].(type) {
		case nil:
		case map[string]interface{}:
			decodePluginArgs(source, path+".args", name, args, errs)
		default:
			errs.Addf(source, path+".args", "must be an object, not %s", describeJSON(args))
		}
	}
}

func checkExtenders(source string, obj map[string]interface{}, errs *problem.List) {
	list, _ := obj["extenders"].([]interface{})
	seen := map[string]int{}
	for i, item := range list {
		e, ok := item.(map[string]interface{})
		if !ok {
			nullEntry(source, problem.Index("extenders", i), item, "an extender needs its urlPrefix", errs)
			continue
		}
		path := problem.Index("extenders", i) + ".urlPrefix"
		url, _ := e["urlPrefix"].(string)
		if url == "" {
			errs.Addf(source, path, "required: the URL of the extender")
		} else if first, dup := seen[url]; dup {
			errs.Addf(source, path, "duplicate %q (also extenders[%d])", url, first)
		} else {
			seen[url] = i
		}
	}
}

// describeJSON names the JSON type of a decoded value, for messages.
func describeJSON(v interface{}) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]interface{}:
		return "an object"
	case []interface{}:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

func sortedKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func describeValue(v interface{}) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return describeJSON(v)
}
