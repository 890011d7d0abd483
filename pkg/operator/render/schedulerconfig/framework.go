package schedulerconfig

import (
	"fmt"
	"strings"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// extensionPoint is one plugin set of a defaulted profile, named as in the
// configuration.
type extensionPoint struct {
	name string
	set  *schedconfig.PluginSet
}

// extensionPoints are a profile's plugin sets but multiPoint, in the order
// kube-scheduler's framework builds them (runtime.NewFramework).
func extensionPoints(p *schedconfig.Plugins) []extensionPoint {
	return []extensionPoint{
		{"preFilter", &p.PreFilter}, {"filter", &p.Filter}, {"postFilter", &p.PostFilter},
		{"reserve", &p.Reserve}, {"preScore", &p.PreScore}, {"score", &p.Score},
		{"preBind", &p.PreBind}, {"bind", &p.Bind}, {"postBind", &p.PostBind},
		{"permit", &p.Permit}, {"preEnqueue", &p.PreEnqueue}, {"queueSort", &p.QueueSort},
		{"placementGenerate", &p.PlacementGenerate}, {"placementScore", &p.PlacementScore},
	}
}

// checkFrameworks repeats what kube-scheduler checks only when it builds each
// profile's framework (runtime.NewFramework), after its validation passed:
// every plugin enabled at an extension point implements it and is listed there
// once, multiPoint lists a plugin once, and a profile keeps one queueSort
// plugin and a bind plugin. It reads the defaulted profiles, kube-scheduler's
// default plugins merged in as the binary merges them. Which extension points
// a plugin implements comes from InTreePluginsAsset; a plugin the table does
// not list is out of tree, and only its own build can judge it.
func checkFrameworks(cfg *schedconfig.KubeSchedulerConfiguration, loc locator, errs *problem.List) {
	for i := range cfg.Profiles {
		if cfg.Profiles[i].Plugins == nil {
			continue
		}
		f := framework{profile: &cfg.Profiles[i], index: i, loc: loc, errs: errs}
		f.checkPoints()
		f.checkMultiPoint()
		f.checkRequired()
	}
}

type framework struct {
	profile *schedconfig.KubeSchedulerProfile
	index   int // in the merged configuration
	loc     locator
	errs    *problem.List
}

// checkPoints checks each extension point's own list, as updatePluginList does.
func (f framework) checkPoints() {
	for _, e := range extensionPoints(f.profile.Plugins) {
		seen := map[string]int{}
		for _, pl := range e.set.Enabled {
			n := seen[pl.Name]
			seen[pl.Name]++
			yes, known := implements(pl.Name, e.name)
			switch {
			case known && !yes:
				f.report(e.name, pl.Name, n, "%s does not implement %s; it runs at %s (multiPoint enables it at each of them)",
					pl.Name, e.name, strings.Join(pointsOf(pl.Name), ", "))
			case n == 1:
				f.report(e.name, pl.Name, n, "%s is listed twice at %s; list it once", pl.Name, e.name)
			}
		}
	}
}

// checkMultiPoint finds a plugin multiPoint would add twice to an extension
// point, as expandMultiPointPlugins does: where it runs, unless that point
// disables it (or "*") or lists it itself, which overrides multiPoint.
func (f framework) checkMultiPoint() {
	reported := map[string]bool{}
	for _, e := range extensionPoints(f.profile.Plugins) {
		seen := map[string]bool{}
		for _, pl := range f.fromMultiPoint(e) {
			if yes, _ := implements(pl.Name, e.name); !yes {
				continue
			}
			if seen[pl.Name] && !reported[pl.Name] {
				reported[pl.Name] = true
				f.report("multiPoint", pl.Name, 1, "%s is listed twice at multiPoint; list it once", pl.Name)
			}
			seen[pl.Name] = true
		}
	}
}

// fromMultiPoint lists the multiPoint plugins that extension point e takes
// when they implement it.
func (f framework) fromMultiPoint(e extensionPoint) []schedconfig.Plugin {
	if listsPlugin(e.set.Disabled, "*") {
		return nil
	}
	var out []schedconfig.Plugin
	for _, pl := range f.profile.Plugins.MultiPoint.Enabled {
		if !listsPlugin(e.set.Disabled, pl.Name) && !listsPlugin(e.set.Enabled, pl.Name) {
			out = append(out, pl)
		}
	}
	return out
}

// checkRequired refuses a profile left without a queueSort or a bind plugin:
// kube-scheduler needs exactly one of the first and at least one of the second.
// More than one queue sort is checkMerged's finding.
func (f framework) checkRequired() {
	for _, e := range extensionPoints(f.profile.Plugins) {
		var own string
		switch e.name {
		case "queueSort":
			own = prioritySort
		case "bind":
			own = "DefaultBinder"
		default:
			continue
		}
		// An entry of the point's own list runs there, or the binary refuses it.
		n, unknown := len(e.set.Enabled), false
		for _, pl := range f.fromMultiPoint(e) {
			yes, known := implements(pl.Name, e.name)
			if yes {
				n++
			}
			unknown = unknown || !known
		}
		if n == 0 && !unknown {
			field := problem.Index("profiles", f.index) + ".plugins." + e.name
			source, path := f.loc.locateInProfile(f.profile, ".plugins."+e.name, field)
			f.errs.AddAbout(problem.Subject{Field: field}, source, path, "profile %q has no %s plugin left and kube-scheduler needs one: enable one "+
				"(%s is kube-scheduler's own) or stop disabling it (kube-scheduler refuses this)", f.profile.SchedulerName, e.name, own)
		}
	}
}

func (f framework) report(point, plugin string, nth int, format string, args ...interface{}) {
	source, path := f.loc.pluginEntry(f.profile, f.index, point, plugin, nth)
	subject := problem.Subject{Field: problem.Index("profiles", f.index) + ".plugins." + point, Plugin: plugin}
	f.errs.AddAbout(subject, source, path, format+" (kube-scheduler refuses this)", args...)
}

// pluginEntry locates the nth listing (0 the first) of plugin in a profile's
// plugins.<point>.enabled, in the topmost layer that sets that list: a later
// layer replaces a list. No layer lists the plugin when it is one of
// kube-scheduler's default plugins (multiPoint); then the profile's point is named.
func (l locator) pluginEntry(p *schedconfig.KubeSchedulerProfile, i int, point, plugin string, nth int) (string, string) {
	for k := len(l.layers) - 1; k >= 0; k-- {
		profiles, _ := l.layers[k].obj["profiles"].([]interface{})
		pi := findKeyed(profiles, "schedulerName", p.SchedulerName)
		if pi < 0 {
			continue
		}
		plugins, _ := profiles[pi].(map[string]interface{})["plugins"].(map[string]interface{})
		set, _ := plugins[point].(map[string]interface{})
		list, ok := set["enabled"].([]interface{})
		if !ok {
			continue
		}
		if j := nthListing(list, plugin, nth); j >= 0 {
			return l.layers[k].source, fmt.Sprintf("profiles[%d].plugins.%s.enabled[%d]", pi, point, j)
		}
		break
	}
	return l.locateInProfile(p, ".plugins."+point, problem.Index("profiles", i)+".plugins."+point)
}

// nthListing is the index of the nth entry named name (or of the last one,
// when fewer), -1 when none is.
func nthListing(list []interface{}, name string, nth int) int {
	found := -1
	for j, item := range list {
		m, _ := item.(map[string]interface{})
		if m["name"] != name {
			continue
		}
		found = j
		if nth == 0 {
			break
		}
		nth--
	}
	return found
}

func listsPlugin(list []schedconfig.Plugin, name string) bool {
	for _, pl := range list {
		if pl.Name == name {
			return true
		}
	}
	return false
}
