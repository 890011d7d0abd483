package schedulerconfig

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	schedvalidation "k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// checkUpstream loads the merged configuration exactly as kube-scheduler loads
// its --config file (strict decoding, v1 defaulting, conversion) and runs
// kube-scheduler's own validation on it, so that nothing kube-scheduler would
// refuse at start-up is rolled out. Each problem is traced back to the layer
// that wrote the field.
//
// It runs after the operator's own layer checks, which name layers and fields
// more precisely for the common mistakes; this is the backstop that keeps the
// operator in agreement with kube-scheduler for everything else (ranges,
// enums, the backoff order, plugin args, extenders). A configuration that
// passes goes on to the checks kube-scheduler makes when it builds each
// profile's framework (checkFrameworks).
func checkUpstream(data []byte, layers []*layer, origins map[string]origin, errs *problem.List) {
	obj, gvk, err := schedscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		errs.Addf(mergedSource, "", "kube-scheduler cannot load it: %v", err)
		return
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		errs.Addf(mergedSource, "", "decodes as %s, not a KubeSchedulerConfiguration", gvk)
		return
	}
	// kube-scheduler sets it after decoding too: validation reads it.
	cfg.TypeMeta.APIVersion = gvk.GroupVersion().String()

	loc := locator{cfg: cfg, layers: layers, origins: origins}
	before := errs.Len()
	report := func(err error) {
		var agg utilerrors.Aggregate
		if !errors.As(err, &agg) {
			agg = utilerrors.NewAggregate([]error{err})
		}
		for _, e := range utilerrors.Flatten(agg).Errors() {
			var fe *field.Error
			if errors.As(e, &fe) {
				source, path := loc.locate(fe.Field)
				errs.AddAbout(problem.Subject{Field: fe.Field}, source, path, "%s (kube-scheduler refuses this)", fe.ErrorBody())
				continue
			}
			errs.Addf(mergedSource, "", "%v (kube-scheduler refuses this)", e)
		}
	}
	if err := schedvalidation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		report(err)
	}
	// kube-scheduler's validation table misses NodeResourcesFit (it is keyed
	// "NodeResourcesFitArgs"); the plugin runs this check when it starts.
	for i := range cfg.Profiles {
		for j, pc := range cfg.Profiles[i].PluginConfig {
			if args, ok := pc.Args.(*schedconfig.NodeResourcesFitArgs); ok {
				argsPath := field.NewPath("profiles").Index(i).Child("pluginConfig").Index(j).Child("args")
				if err := schedvalidation.ValidateNodeResourcesFitArgs(argsPath, args); err != nil {
					report(err)
				}
			}
		}
	}
	// Whatever path led there (a profile without a name, a null entry),
	// kube-scheduler would serve this name and race the cluster's scheduler.
	for i, p := range cfg.Profiles {
		if p.SchedulerName == defaultSchedulerName {
			field := problem.Index("profiles", i) + ".schedulerName"
			source, path := loc.locate(field)
			errs.AddAbout(problem.Subject{Field: field}, source, path, "kube-scheduler would serve %q, which belongs to the cluster's default scheduler; "+
				"give every profile its own schedulerName", defaultSchedulerName)
		}
	}
	if errs.Len() == before {
		checkFrameworks(cfg, loc, errs)
	}
}

// locator maps a field path of the merged, defaulted configuration to the
// layer that wrote it and the path in that layer.
type locator struct {
	cfg     *schedconfig.KubeSchedulerConfiguration
	layers  []*layer
	origins map[string]origin
}

var listElemRE = regexp.MustCompile(`^([A-Za-z]+)\[(\d+)\](.*)$`)

func (l locator) locate(path string) (source, layerPath string) {
	m := listElemRE.FindStringSubmatch(path)
	if m == nil {
		return l.topmostWith(path), path
	}
	i, _ := strconv.Atoi(m[2])
	switch {
	case m[1] == "profiles" && i < len(l.cfg.Profiles):
		return l.locateInProfile(&l.cfg.Profiles[i], m[3], path)
	case m[1] == "extenders" && i < len(l.cfg.Extenders):
		url := l.cfg.Extenders[i].URLPrefix
		for j := len(l.layers) - 1; j >= 0; j-- {
			list, _ := l.layers[j].obj["extenders"].([]interface{})
			if k := findKeyed(list, "urlPrefix", url); k >= 0 {
				return l.layers[j].source, problem.Index("extenders", k) + m[3]
			}
		}
	}
	return l.topmostWith(m[1]), path
}

// locateInProfile points a profile's field at the layer that last wrote the
// profile, and a pluginConfig entry at the layer that last wrote that entry.
func (l locator) locateInProfile(p *schedconfig.KubeSchedulerProfile, rest, merged string) (string, string) {
	o, ok := l.origins[p.SchedulerName]
	if !ok {
		return mergedSource, merged
	}
	profilePath := problem.Index("profiles", o.index)
	pc := listElemRE.FindStringSubmatch(strings.TrimPrefix(rest, "."))
	if pc == nil || pc[1] != "pluginConfig" {
		return o.source, profilePath + rest
	}
	j, _ := strconv.Atoi(pc[2])
	if j >= len(p.PluginConfig) {
		return o.source, profilePath + rest
	}
	name := p.PluginConfig[j].Name
	for k := len(l.layers) - 1; k >= 0; k-- {
		profiles, _ := l.layers[k].obj["profiles"].([]interface{})
		pi := findKeyed(profiles, "schedulerName", p.SchedulerName)
		if pi < 0 {
			continue
		}
		configs, _ := profiles[pi].(map[string]interface{})["pluginConfig"].([]interface{})
		if ci := findKeyed(configs, "name", name); ci >= 0 {
			return l.layers[k].source, fmt.Sprintf("profiles[%d].pluginConfig[%d]%s", pi, ci, pc[3])
		}
	}
	// kube-scheduler's defaulting added these args; the profile chose the plugin.
	return o.source, fmt.Sprintf("%s.pluginConfig (args of %s)", profilePath, name)
}

// topmostWith names the last layer that sets a dotted field path (the value
// in effect is its), else the last that sets its top-level field.
func (l locator) topmostWith(path string) string {
	keys := strings.Split(path, ".")
	for _, depth := range []int{len(keys), 1} {
		for i := len(l.layers) - 1; i >= 0; i-- {
			if hasPath(l.layers[i].obj, keys[:depth]) {
				return l.layers[i].source
			}
		}
	}
	return mergedSource
}

func hasPath(obj map[string]interface{}, keys []string) bool {
	for i, k := range keys {
		v, ok := obj[k]
		if !ok {
			return false
		}
		if i < len(keys)-1 {
			if obj, ok = v.(map[string]interface{}); !ok {
				return false
			}
		}
	}
	return true
}
