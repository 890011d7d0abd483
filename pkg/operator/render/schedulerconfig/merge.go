package schedulerconfig

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// Layer is one configuration layer the caller read: YAML or JSON, full or
// sparse.
type Layer struct {
	// Source names the layer in problems, e.g. "ConfigMap ns/name config.yaml".
	Source string
	Data   []byte
	// ReplaceProfiles: when the layer lists profiles, they are exactly the
	// profiles served (a profile below that it does not name is dropped);
	// otherwise its profiles merge into the layers below by schedulerName.
	ReplaceProfiles bool
}

// Config is a merged, checked scheduler configuration.
type Config struct {
	// YAML is the config.yaml kube-scheduler reads.
	YAML []byte
	// Hash is the hex SHA-256 of YAML (Hash).
	Hash string
	// SchedulerNames are the profiles' schedulerNames, sorted.
	SchedulerNames []string
}

// origin is where a profile was last written: errors about a merged profile
// point there.
type origin struct {
	source string
	index  int
}

// Result is what Merge gives.
type Result struct {
	// Config is the merged, checked configuration; nil when there are problems.
	Config *Config
	// Merged is the merged document (YAML) that was checked, or that would
	// have been had every layer been sound: the layers merged and the
	// operator-owned fields set, as a refused configuration would run. It is
	// nil only when a layer is no document at all (over the bounds, not YAML,
	// not an object): then there is nothing to merge.
	Merged []byte
	// Problems are those of the layers and of the merged configuration.
	Problems []problem.Problem
}

// Merge builds the scheduler configuration from the embedded default, the
// given layers in order, and the operator-owned fields on top (doc.go). Each
// layer is checked on its own first; when one has problems the merged
// document is not checked (its problems would repeat them, confusingly), but
// is still returned. Problems with the layers are returned, each
// "<source>: <path>: <what>" with its subject in the merged document; the
// error is for operator bugs.
func Merge(layers ...Layer) (Result, error) {
	internal, err := internalLayers()
	if err != nil {
		return Result{}, err
	}
	errs := &problem.List{}
	parsed := []*layer{internal[0]}
	unreadable := false
	for _, in := range layers {
		l := parseLayer(in, errs)
		unreadable = unreadable || l == nil
		parsed = append(parsed, l)
	}
	if unreadable {
		return Result{Problems: errs.Problems()}, nil
	}
	parsed = append(parsed, internal[1])
	merged, data, origins, err := overlayLayers(parsed)
	if err != nil {
		return Result{}, err
	}
	var r Result
	if errs.Len() > 0 {
		r.Problems = errs.Problems()
		r.Merged, err = yaml.JSONToYAML(data)
	} else {
		r, err = checkLayered(parsed, merged, data, origins, errs)
	}
	if err != nil {
		return Result{}, fmt.Errorf("encode merged scheduler configuration: %w", err)
	}
	r.Problems = withSubjects(r.Problems, parsed, merged)
	return r, nil
}

// Check parses and checks one layer on its own, as Merge does first, and
// returns its problems.
func Check(l Layer) []problem.Problem {
	errs := &problem.List{}
	parseLayer(l, errs)
	return errs.Problems()
}

// overlayLayers overlays the layers, in order, and encodes the result as
// JSON. origins maps each schedulerName to where its profile was last written.
func overlayLayers(layers []*layer) (map[string]interface{}, []byte, map[string]origin, error) {
	merged := map[string]interface{}{}
	origins := map[string]origin{}
	for _, l := range layers {
		overlay(merged, l.obj, levelTop, l.replaceProfiles)
		list, _ := l.obj["profiles"].([]interface{})
		for i, p := range list {
			pm, _ := p.(map[string]interface{})
			if name, ok := pm["schedulerName"].(string); ok {
				origins[name] = origin{source: l.source, index: i}
			}
		}
	}
	data, err := json.Marshal(merged)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("encode merged scheduler configuration: %w", err)
	}
	return merged, data, origins, nil
}

// checkLayered checks the merge of sound layers.
func checkLayered(layers []*layer, merged map[string]interface{}, data []byte, origins map[string]origin, errs *problem.List) (Result, error) {
	names := checkMerged(data, merged, layers, origins, errs)
	out, err := yaml.JSONToYAML(data)
	if err != nil || errs.Len() > 0 {
		return Result{Merged: out, Problems: errs.Problems()}, err
	}
	sort.Strings(names)
	return Result{Config: &Config{YAML: out, Hash: Hash(out), SchedulerNames: names}, Merged: out}, nil
}

// Hash is the hex SHA-256 of a merged config.yaml: its identity.
func Hash(configYAML []byte) string {
	sum := sha256.Sum256(configYAML)
	return hex.EncodeToString(sum[:])
}

const (
	defaultConfigAsset       = "assets/config/defaultconfig.yaml"
	operatorOwnedConfigAsset = "assets/config/operator-owned.yaml"
)

// internalLayers are parsed once: overlay only reads its source layers.
var internalLayers = sync.OnceValues(func() ([2]*layer, error) {
	base, err := parseInternalLayer(defaultConfigAsset)
	if err != nil {
		return [2]*layer{}, err
	}
	owned, err := parseInternalLayer(operatorOwnedConfigAsset)
	return [2]*layer{base, owned}, err
})

type level int

const (
	levelTop level = iota
	levelProfile
	levelOther
)

// keyedList says which lists merge entry by entry, and by which key; every
// other list is replaced by the later layer.
func keyedList(lv level, field string) (key string, child level, ok bool) {
	switch {
	case lv == levelTop && field == "profiles":
		return "schedulerName", levelProfile, true
	case lv == levelTop && field == "extenders":
		return "urlPrefix", levelOther, true
	case lv == levelProfile && field == "pluginConfig":
		return "name", levelOther, true
	}
	return "", 0, false
}

// overlay merges src over dst: objects recursively, keyed lists by key, other
// values replaced; null deletes. dst is owned and modified; src is copied.
func overlay(dst, src map[string]interface{}, lv level, replaceProfiles bool) {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		if key, child, ok := keyedList(lv, k); ok {
			if s, ok := v.([]interface{}); ok {
				d, _ := dst[k].([]interface{})
				dst[k] = overlayList(d, s, key, child, replaceProfiles && k == "profiles")
				continue
			}
		}
		if sm, ok := v.(map[string]interface{}); ok {
			if dm, ok := dst[k].(map[string]interface{}); ok {
				overlay(dm, sm, levelOther, false)
				continue
			}
		}
		dst[k] = runtime.DeepCopyJSONValue(v)
	}
}

// overlayList merges src's entries into dst's entries with the same key and
// appends new ones. With replace, dst entries src does not name are dropped.
func overlayList(dst, src []interface{}, key string, child level, replace bool) []interface{} {
	out := dst
	if replace {
		out = make([]interface{}, 0, len(src))
	}
	for _, item := range src {
		m, ok := item.(map[string]interface{})
		name, _ := m[key].(string)
		if !ok || name == "" {
			out = append(out, runtime.DeepCopyJSONValue(item))
			continue
		}
		if replace {
			if i := findKeyed(dst, key, name); i >= 0 {
				base := dst[i].(map[string]interface{})
				overlay(base, m, child, false)
				out = append(out, base)
				continue
			}
		} else if i := findKeyed(out, key, name); i >= 0 {
			overlay(out[i].(map[string]interface{}), m, child, false)
			continue
		}
		out = append(out, runtime.DeepCopyJSONValue(m))
	}
	return out
}

func findKeyed(list []interface{}, key, name string) int {
	for i, item := range list {
		if m, ok := item.(map[string]interface{}); ok && m[key] == name {
			return i
		}
	}
	return -1
}
