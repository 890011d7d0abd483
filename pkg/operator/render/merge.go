package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

type mergedConfig struct {
	yaml           []byte
	hash           string
	schedulerNames []string
}

// origin is where a profile was last written: errors about a merged profile
// point there.
type origin struct {
	source string
	index  int
}

// mergeConfig builds the scheduler configuration from its five layers (doc.go).
// Problems with the inputs go to errs; the error return is for operator bugs.
func mergeConfig(ss *secondaryschedulerv1.SecondaryScheduler, userCM *corev1.ConfigMap, observed []byte, errs *problems) (*mergedConfig, error) {
	internal, err := internalLayers()
	if err != nil {
		return nil, err
	}
	base, owned := internal[0], internal[1]
	layers := []*layer{base}
	before := errs.len()
	if len(observed) > 0 {
		layers = append(layers, parseLayer(specSource(ss, "spec.observedConfig.kubeSchedulerConfiguration"), observed, errs))
	}
	if l, ok := userLayer(ss, userCM, errs); ok {
		layers = append(layers, l)
	}
	if raw := ss.Spec.UnsupportedConfigOverrides.Raw; len(raw) > 0 {
		layers = append(layers, parseLayer(specSource(ss, "spec.unsupportedConfigOverrides"), raw, errs))
	}
	if errs.len() > before {
		return nil, nil // a broken layer would only add confusing problems to the merge
	}
	layers = append(layers, owned)

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
	if errs.len() > before {
		return nil, nil
	}
	out, err := yaml.JSONToYAML(data)
	if err != nil {
		return nil, fmt.Errorf("encode merged scheduler configuration: %w", err)
	}
	sort.Strings(names)
	return &mergedConfig{yaml: out, hash: configHash(out), schedulerNames: names}, nil
}

// configHash is the hex SHA-256 of a merged config.yaml: its identity.
func configHash(configYAML []byte) string {
	sum := sha256.Sum256(configYAML)
	return hex.EncodeToString(sum[:])
}

// internalLayers are parsed once: overlay only reads its source layers.
var internalLayers = sync.OnceValues(func() ([2]*layer, error) {
	base, err := parseInternalLayer(defaultConfigAsset)
	if err != nil {
		return [2]*layer{}, err
	}
	owned, err := parseInternalLayer(operatorOwnedConfigAsset)
	return [2]*layer{base, owned}, err
})

// userLayer reads the ConfigMap named by spec.schedulerConfig.
func userLayer(ss *secondaryschedulerv1.SecondaryScheduler, cm *corev1.ConfigMap, errs *problems) (*layer, bool) {
	name := ss.Spec.SchedulerConfig
	if name == "" {
		return nil, false
	}
	ref := fmt.Sprintf("ConfigMap %s/%s", OperandNamespace, name)
	if cm == nil {
		errs.addf(ref, "", "not found; create it with the scheduler configuration under key %s, or unset %s",
			ConfigKey, specSource(ss, "spec.schedulerConfig"))
		return nil, false
	}
	data, ok := cm.Data[ConfigKey]
	if !ok {
		keys := make([]string, 0, len(cm.Data))
		for k := range cm.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		errs.addf(ref, "", "no key %s (it has: %s); put the KubeSchedulerConfiguration under %s",
			ConfigKey, strings.Join(keys, ", "), ConfigKey)
		return nil, false
	}
	l := parseLayer(ref+" "+ConfigKey, []byte(data), errs)
	if l == nil {
		return nil, false
	}
	_, l.replaceProfiles = l.obj["profiles"]
	return l, true
}

func specSource(ss *secondaryschedulerv1.SecondaryScheduler, path string) string {
	return fmt.Sprintf("SecondaryScheduler %s %s", ss.Name, path)
}

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
