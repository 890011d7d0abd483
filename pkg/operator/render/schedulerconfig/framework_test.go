package schedulerconfig

import (
	"testing"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	schedscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
)

// TestFrameworkChecks: what kube-scheduler refuses only when it builds a
// profile's framework is refused here, at the entry of the layer that wrote it.
func TestFrameworkChecks(t *testing.T) {
	const profileA = "profiles:\n- schedulerName: a\n  plugins:\n"
	const overrides = overridesSource + ": "
	withOverrides := func(cfg, o string) []Layer { return []Layer{user(cfg), overridesLayer(o)} }
	tests := []struct {
		name   string
		layers []Layer
		want   []string // none: accepted
	}{
		{"plugin at a point it does not implement", layers(profileA + "    filter:\n      enabled: [{name: ImageLocality}]\n"),
			[]string{cmSource + "profiles[0].plugins.filter.enabled[0]: ImageLocality does not implement filter; it runs at score (multiPoint"}},
		{"plugin listed twice", layers(profileA + "    filter:\n      enabled: [{name: NodeName}, {name: NodeName}]\n"),
			[]string{cmSource + "profiles[0].plugins.filter.enabled[1]: NodeName is listed twice at filter"}},
		{"plugin listed twice at multiPoint", layers(profileA + "    multiPoint:\n      enabled: [{name: NodePorts}, {name: NodePorts}]\n"),
			[]string{cmSource + "profiles[0].plugins.multiPoint.enabled[1]: NodePorts is listed twice at multiPoint"}},
		{"listed twice at multiPoint, overridden where it runs", layers(profileA +
			"    multiPoint:\n      enabled: [{name: ImageLocality}, {name: ImageLocality}]\n    score:\n      enabled: [{name: ImageLocality}]\n"), nil},
		{"no queue sort", layers(profileA + "    queueSort:\n      disabled: [{name: PrioritySort}]\n"),
			[]string{cmSource + `profiles[0].plugins.queueSort: profile "a" has no queueSort plugin left and kube-scheduler needs one`}},
		{"nothing left", layers(profileA + "    multiPoint:\n      disabled: [{name: \"*\"}]\n"),
			[]string{cmSource + `profiles[0].plugins.bind: profile "a" has no bind plugin left`, cmSource + `profiles[0].plugins.queueSort: profile "a" has no queueSort plugin left`}},
		{"out-of-tree queue sort", layers(profileA + "    multiPoint:\n      enabled: [{name: Coscheduling}]\n      disabled: [{name: PrioritySort}]\n"), nil},
		{"unknown plugin", layers(profileA + "    score:\n      enabled: [{name: NoSuchPlugin}]\n"), nil},
		{"negative weight", layers(profileA + "    score:\n      enabled: [{name: ImageLocality, weight: -2}]\n"),
			[]string{cmSource + "profiles[0].plugins.score.enabled[0].weight: -2: a score weight must not be negative"}},
		{"weight 0", layers(profileA + "    score:\n      enabled: [{name: ImageLocality, weight: 0}]\n"), nil},
		{"the layer that wrote the list, not the profile", withOverrides(profileA+"    permit:\n      enabled: [{name: NodeName}]\n",
			`{"profiles":[{"schedulerName":"a","percentageOfNodesToScore":10}]}`),
			[]string{cmSource + "profiles[0].plugins.permit.enabled[0]: NodeName does not implement permit"}},
		{"a list of the overrides", withOverrides(profileA+"    permit:\n      enabled: [{name: NodeName}]\n",
			`{"profiles":[{"schedulerName":"a","plugins":{"permit":{"enabled":[{"name":"GangScheduling"},{"name":"NodePorts"}]}}}]}`),
			[]string{overrides + "profiles[0].plugins.permit.enabled[1]: NodePorts does not implement permit"}},
		{"the binder taken away by the overrides", withOverrides(profileA, `{"profiles":[{"schedulerName":"a","plugins":{"bind":{"disabled":[{"name":"*"}]}}}]}`),
			[]string{overrides + `profiles[0].plugins.bind: profile "a" has no bind plugin left`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantProblems(t, tc.layers, tc.want) })
	}
}

// TestInTreePluginsCoverTheDefaults: every plugin of the default profile of
// the kube-scheduler code the operator vendors is in the table, so none of
// kube-scheduler's own defaults is taken for an out-of-tree plugin.
func TestInTreePluginsCoverTheDefaults(t *testing.T) {
	obj, _, err := schedscheme.Codecs.UniversalDecoder().Decode(
		[]byte(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration"}`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defaults := obj.(*schedconfig.KubeSchedulerConfiguration).Profiles[0].Plugins.MultiPoint.Enabled
	table := InTreePlugins()
	for _, p := range defaults {
		if len(table[p.Name]) == 0 {
			t.Errorf("default plugin %s is not in %s", p.Name, InTreePluginsAsset)
		}
	}
	if len(defaults) < 10 {
		t.Errorf("only %d default plugins: %v", len(defaults), defaults)
	}
}
