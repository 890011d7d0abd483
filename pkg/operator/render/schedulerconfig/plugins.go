package schedulerconfig

import (
	"fmt"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
)

// InTreePluginsAsset maps each plugin of kube-scheduler's in-tree registry to
// the extension points it implements, by their names in the configuration
// (filter, score ...). test/configdiff writes it from the real kube-scheduler
// binary and checks it against both binaries. It is data, not code: a new
// kube-scheduler release updates it with UPDATE_PLUGINS=1 (see that test).
const InTreePluginsAsset = "assets/config/in-tree-plugins.yaml"

// InTreePlugins returns the table of InTreePluginsAsset: plugin name to the
// extension points it implements, in the asset's order. A name it lacks is an
// out-of-tree plugin (only its own build knows it) or a mistake.
func InTreePlugins() map[string][]string {
	out := map[string][]string{}
	for name, points := range inTreePlugins() {
		out[name] = append([]string(nil), points.list...)
	}
	return out
}

type pluginPoints struct {
	list []string
	set  map[string]bool
}

// inTreePlugins parses the embedded table once; a broken table is a build bug.
var inTreePlugins = sync.OnceValue(func() map[string]pluginPoints {
	var table map[string][]string
	if err := yaml.UnmarshalStrict(bindata.MustAsset(InTreePluginsAsset), &table); err != nil {
		panic(fmt.Sprintf("bindata %s: %v", InTreePluginsAsset, err))
	}
	out := make(map[string]pluginPoints, len(table))
	for name, list := range table {
		p := pluginPoints{list: list, set: map[string]bool{}}
		for _, point := range list {
			p.set[point] = true
		}
		out[name] = p
	}
	return out
})

// implements tells whether an in-tree plugin runs at point; known is false for
// a plugin the table does not list, which only the scheduler build can judge.
func implements(plugin, point string) (yes, known bool) {
	p, known := inTreePlugins()[plugin]
	return p.set[point], known
}

// pointsOf lists the extension points of an in-tree plugin, for messages.
func pointsOf(plugin string) []string { return inTreePlugins()[plugin].list }
