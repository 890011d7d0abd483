package schedulerconfig

import "testing"

// TestLayerChecks: each problem of a layer, or of the merge, names the layer
// and the path that set the value.
func TestLayerChecks(t *testing.T) {
	const profileA = "profiles:\n- schedulerName: a\n"
	tests := []struct {
		name   string
		layers []Layer
		want   []string // each must be one problem line, in this order
	}{
		{"not yaml", layers("profiles: [a"), []string{cmSource + "not valid YAML"}},
		{"duplicate yaml key", layers("parallelism: 1\nparallelism: 2\n"), []string{cmSource + "not valid YAML"}},
		{"not an object", layers("- a\n"), []string{cmSource + "must be a KubeSchedulerConfiguration object, not a list"}},
		{"v1beta3", layers("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n"),
			[]string{cmSource + "apiVersion: kubescheduler.config.k8s.io/v1beta3 is not served: kube-scheduler accepts only kubescheduler.config.k8s.io/v1 since Kubernetes 1.29"}},
		{"v1beta2", layers("apiVersion: kubescheduler.config.k8s.io/v1beta2\n"),
			[]string{cmSource + "apiVersion: kubescheduler.config.k8s.io/v1beta2 is not served: kube-scheduler accepts only kubescheduler.config.k8s.io/v1 since Kubernetes 1.29"}},
		{"foreign apiVersion", layers("apiVersion: v1\n"), []string{cmSource + `apiVersion: "v1" is not a scheduler configuration`}},
		{"wrong kind", layers("kind: Policy\n"), []string{cmSource + `kind: "Policy" is not KubeSchedulerConfiguration`}},
		{"unknown field", layers(profileA + "  plugins:\n    scoree: {}\n"),
			[]string{cmSource + "profiles[0].plugins.scoree: unknown field: remove it or fix its spelling"}},
		{"unknown top-level field", layers("percentageOfNodes: 5\n"), []string{cmSource + "percentageOfNodes: unknown field"}},
		{"wrong type", layers("percentageOfNodesToScore: fifty\n"),
			[]string{cmSource + "percentageOfNodesToScore: must be a number, not a string"}},
		{"profiles not a list", layers("profiles: a\n"), []string{cmSource + "profiles: must be a list, not a string"}},
		{"empty profile list", layers("profiles: []\n"),
			[]string{cmSource + "profiles: list at least one profile, or leave profiles out to keep the profiles of the layers below"}},
		{"null profile list", layers("profiles: null\n"), []string{cmSource + "profiles: list at least one profile"}},
		{"duplicate schedulerName", layers("profiles:\n- schedulerName: foo\n- schedulerName: foo\n"),
			[]string{cmSource + `profiles[1].schedulerName: duplicate "foo" (also profiles[0])`}},
		{"empty schedulerName", layers("profiles:\n- plugins: {}\n"),
			[]string{cmSource + `profiles[0].schedulerName: required: without it kube-scheduler names the profile "default-scheduler"`}},
		{"default-scheduler", layers("profiles:\n- schedulerName: default-scheduler\n"),
			[]string{cmSource + `profiles[0].schedulerName: "default-scheduler" belongs to the cluster's default scheduler`}},
		{"pluginConfig without name", layers(profileA + "  pluginConfig:\n  - args: {}\n"),
			[]string{cmSource + "profiles[0].pluginConfig[0].name: required"}},
		{"duplicate pluginConfig", layers(profileA + "  pluginConfig:\n  - name: X\n  - name: X\n"),
			[]string{cmSource + `profiles[0].pluginConfig[1].name: duplicate "X" (also pluginConfig[0])`}},
		{"args not an object", layers(profileA + "  pluginConfig:\n  - name: X\n    args: [1]\n"),
			[]string{cmSource + "profiles[0].pluginConfig[0].args: must be an object, not a list"}},
		{"in-tree args unknown field", layers(profileA + "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        typ: MostAllocated\n"),
			[]string{cmSource + "profiles[0].pluginConfig[0].args.scoringStrategy.typ: unknown field"}},
		{"in-tree args wrong type", layers(profileA + "  pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: ten\n"),
			[]string{cmSource + "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: must be a number, not a string"}},
		{"extender without urlPrefix", layers("extenders:\n- filterVerb: filter\n"), []string{cmSource + "extenders[0].urlPrefix: required"}},
		{"duplicate extender", layers("extenders:\n- urlPrefix: http://x\n- urlPrefix: http://x\n"),
			[]string{cmSource + `extenders[1].urlPrefix: duplicate "http://x" (also extenders[0])`}},
		{"queueSort differs", layers("profiles:\n- schedulerName: a\n  plugins:\n    queueSort:\n      enabled: [{name: Coscheduling}]\n      disabled: [{name: \"*\"}]\n- schedulerName: b\n"),
			[]string{cmSource + `profiles[1].plugins.queueSort: profile "b" sorts the queue with PrioritySort but profile "a" with Coscheduling`}},
		{"two queueSort plugins", layers(profileA + "  plugins:\n    queueSort:\n      enabled: [{name: Coscheduling}]\n"),
			[]string{cmSource + `profiles[0].plugins.queueSort: profile "a" would sort the queue with Coscheduling and PrioritySort; kube-scheduler allows one queueSort plugin`}},
		{"queueSort args differ", layers("profiles:\n- schedulerName: a\n  pluginConfig: [{name: PrioritySort, args: {x: 1}}]\n- schedulerName: b\n"),
			[]string{cmSource + `profiles[1].pluginConfig: profile "b" configures queueSort plugin PrioritySort differently from profile "a"`}},
		{"aggregated", layers("profiles:\n- schedulerName: default-scheduler\n- schedulerName: \"\"\nextenders:\n- {}\n"),
			[]string{cmSource + "profiles[0].schedulerName: ", cmSource + "profiles[1].schedulerName: required", cmSource + "extenders[0].urlPrefix: required"}},

		// Null entries, which a typed decode takes as zero values.
		{"null profile", layers("profiles: [null]\n"),
			[]string{cmSource + `profiles[0]: null entry: remove it or fill it in (kube-scheduler would serve an empty entry as "default-scheduler"`}},
		{"null pluginConfig", layers(profileA + "  pluginConfig: [null]\n"), []string{cmSource + "profiles[0].pluginConfig[0]: null entry"}},
		{"null extender", layers("extenders: [null]\n"), []string{cmSource + "extenders[0]: null entry"}},
		{"null plugin", layers(profileA + "  plugins:\n    filter:\n      enabled: [null]\n"),
			[]string{cmSource + "profiles[0].plugins.filter.enabled[0]: null entry"}},
		{"plugin without name", layers(profileA + "  plugins:\n    filter:\n      disabled: [{}]\n"),
			[]string{cmSource + "profiles[0].plugins.filter.disabled[0].name: required"}},

		// kube-scheduler's own checks, traced to the layer and field that set the value.
		{"backoff order", layers("podInitialBackoffSeconds: 10\npodMaxBackoffSeconds: 5\n"),
			[]string{cmSource + "podMaxBackoffSeconds: Invalid value: 5: must be greater than or equal to PodInitialBackoffSeconds (kube-scheduler refuses this)"}},
		{"range in overrides", []Layer{user("percentageOfNodesToScore: 50\n"), overridesLayer(`{"percentageOfNodesToScore":101}`)}, []string{"SecondaryScheduler cluster spec.unsupportedConfigOverrides: percentageOfNodesToScore: Invalid value: 101"}},
		{"enum in plugin args", layers("profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: InterPodAffinity\n  - name: PodTopologySpread\n    args: {defaultingType: Bogus}\n"),
			[]string{cmSource + `profiles[0].pluginConfig[1].args.defaultingType: Unsupported value: "Bogus"`}},
		{"NodeResourcesFit strategy", layers(profileA + "  pluginConfig:\n  - name: NodeResourcesFit\n    args: {scoringStrategy: {type: Bogus}}\n"),
			[]string{cmSource + `profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Bogus"`}},
		{"profile from overrides over configmap", []Layer{user("profiles:\n- schedulerName: x\n- schedulerName: a\n"),
			overridesLayer(`{"profiles":[{"schedulerName":"a","percentageOfNodesToScore":150}]}`)}, []string{"SecondaryScheduler cluster spec.unsupportedConfigOverrides: profiles[0].percentageOfNodesToScore: Invalid value: 150"}},
		{"leader election timings", layers("leaderElection:\n  leaseDuration: 10s\n  renewDeadline: 15s\n"),
			[]string{cmSource + "leaderElection.leaseDuration: Invalid value"}},
		{"extender weight", layers("extenders:\n- urlPrefix: http://x\n  prioritizeVerb: p\n"),
			[]string{cmSource + "extenders[0].weight: Invalid value: 0: must have a positive weight"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantProblems(t, tc.layers, tc.want) })
	}
}
