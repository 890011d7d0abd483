package schedulerconfig

import (
	"reflect"
	"strings"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

const (
	mergedSource = "merged scheduler configuration"
	prioritySort = "PrioritySort"
)

// checkMerged checks what only the merged configuration shows: that it is a
// valid v1 KubeSchedulerConfiguration, that all profiles share one queue sort
// (kube-scheduler has a single queue), and then everything kube-scheduler
// itself checks at start-up. It returns the profiles' schedulerNames.
func checkMerged(data []byte, merged map[string]interface{}, layers []*layer, origins map[string]origin, errs *problem.List) []string {
	before := errs.Len()
	defer func() {
		// Our own findings name the fix better; kube-scheduler's would repeat them.
		if errs.Len() == before {
			checkUpstream(data, layers, origins, errs)
		}
	}()
	decodeSchedulerConfig(mergedSource, data, errs)

	profiles, _ := merged["profiles"].([]interface{})
	if len(profiles) == 0 {
		errs.AddAbout(problem.Subject{Field: "profiles"}, mergedSource, "profiles", "no profile left; list at least one")
		return nil
	}
	var names []string
	var first *queueSort
	for i, item := range profiles {
		p, _ := item.(map[string]interface{})
		// kube-scheduler names the list it counts (plugins.queueSort.enabled),
		// and the set it compares across profiles (plugins.queueSort).
		queueSortField := problem.Subject{Field: problem.Index("profiles", i) + ".plugins.queueSort"}
		name, _ := p["schedulerName"].(string)
		names = append(names, name)
		qs := queueSortOf(p)
		at := where(origins, name)
		if len(qs.plugins) > 1 {
			errs.AddAbout(problem.Subject{Field: queueSortField.Field + ".enabled"}, at.source, problem.Index("profiles", at.index)+".plugins.queueSort",
				"profile %q would sort the queue with %s; kube-scheduler allows one queueSort plugin: "+
					`disable the others (queueSort.disabled: [{name: "*"}] turns off the default %s)`,
				name, strings.Join(qs.plugins, " and "), prioritySort)
			continue
		}
		if len(qs.plugins) == 0 {
			// The queue sort comes from a multiPoint plugin, if any: checkFrameworks
			// knows the in-tree ones, kube-scheduler's build the others.
			continue
		}
		qs.profile, qs.at = name, at
		if first == nil {
			first = &qs
			continue
		}
		if qs.plugins[0] != first.plugins[0] {
			errs.AddAbout(queueSortField, at.source, problem.Index("profiles", at.index)+".plugins.queueSort",
				"profile %q sorts the queue with %s but profile %q with %s; kube-scheduler has one queue, "+
					"so every profile must use the same queueSort plugin",
				name, qs.plugins[0], first.profile, first.plugins[0])
		} else if !reflect.DeepEqual(qs.args, first.args) {
			errs.AddAbout(problem.Subject{Field: problem.Index("profiles", i) + ".pluginConfig"}, at.source, problem.Index("profiles", at.index)+".pluginConfig",
				"profile %q configures queueSort plugin %s differently from profile %q; kube-scheduler has one queue, "+
					"so give every profile the same args for it", name, qs.plugins[0], first.profile)
		}
	}
	return names
}

type queueSort struct {
	plugins []string    // the queueSort plugins we can see, in order
	args    interface{} // pluginConfig args of plugins[0]
	profile string
	at      origin
}

// queueSortOf works out a profile's queue sort the way kube-scheduler does: the
// plugins enabled at queueSort, plus the default PrioritySort (a multiPoint
// default) unless queueSort or multiPoint disables it by name or "*".
func queueSortOf(p map[string]interface{}) queueSort {
	plugins, _ := p["plugins"].(map[string]interface{})
	qsSet, _ := plugins["queueSort"].(map[string]interface{})
	mpSet, _ := plugins["multiPoint"].(map[string]interface{})
	var qs queueSort
	qs.plugins = pluginNames(qsSet["enabled"])
	off := append(pluginNames(qsSet["disabled"]), pluginNames(mpSet["disabled"])...)
	if !contains(qs.plugins, prioritySort) && !contains(off, prioritySort) && !contains(off, "*") {
		qs.plugins = append(qs.plugins, prioritySort)
	}
	if len(qs.plugins) > 0 {
		configs, _ := p["pluginConfig"].([]interface{})
		if i := findKeyed(configs, "name", qs.plugins[0]); i >= 0 {
			qs.args = configs[i].(map[string]interface{})["args"]
		}
	}
	return qs
}

func pluginNames(v interface{}) []string {
	list, _ := v.([]interface{})
	var names []string
	for _, item := range list {
		m, _ := item.(map[string]interface{})
		if name, ok := m["name"].(string); ok {
			names = append(names, name)
		}
	}
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func where(origins map[string]origin, name string) origin {
	if o, ok := origins[name]; ok {
		return o
	}
	return origin{source: mergedSource}
}
