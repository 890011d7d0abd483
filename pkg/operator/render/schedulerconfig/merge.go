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

// Merge builds the scheduler configuration from the embedded default, the
// given layers in order, and the operator-owned fields on top (doc.go). Each
// layer is checked on its own first; when one has problems nothing is merged.
// Problems with the layers are returned, each "<source>: <path>: <what>"; the
// error is for operator bugs.
func Merge(layers ...Layer) (*Config, []string, error) {
	internal, err := internalLayers()
	if err != nil {
		return nil, nil, err
	}
	errs := &problem.List{}
	parsed := []*layer{internal[0]}
	for _, in := range layers {
		parsed = append(parsed, parseLayer(in, errs))
	}
	if errs.Len() > 0 {
		return nil, errs.Strings(), nil // a broken layer would only add confusing problems to the merge
	}
	parsed = append(parsed, internal[1])
	cfg, err := merge(parsed, errs)
	return cfg, errs.Strings(), err
}

// Check parses and checks one layer on its own, as Merge does first, and
// returns its problems.
func Check(l Layer) []string {
	errs := &problem.List{}
	parseLayer(l, errs)
	return errs.Strings()
}

// merge overlays sound layers and checks the result.
func merge(layers []*layer, errs *problem.List) (*Config, error) {
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
		return nil, fmt.Errorf("encode merged scheduler configuration: %w", err)
	}
	names := checkMerged(data, merged, layers, origins, errs)
	if errs.Len() > 0 {
		return nil, nil
	}
	out, err := yaml.JSONToYAML(data)
	if err != nil {
		return nil, fmt.Errorf("encode merged scheduler configuration: %w", err)
	}
	sort.Strings(names)
	return &Config{YAML: out, Hash: Hash(out), SchedulerNames: names}, nil
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
