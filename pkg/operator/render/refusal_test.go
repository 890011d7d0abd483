package render

import (
	"errors"
	"strings"
	"testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// TestRefusalKeepsItsDocument: a refused configuration comes with the merged
// document it was judged on (the operator's own merge, operator-owned fields
// set) and each problem's subject in that document; a layer that is no
// object leaves no document.
func TestRefusalKeepsItsDocument(t *testing.T) {
	tests := []struct {
		name, config string
		overrides    string
		// want are the subjects, in order; document the lines the merged
		// document must hold, none for no document.
		want     []problem.Subject
		document []string
	}{
		{name: "merged field", config: "percentageOfNodesToScore: 101\n",
			want:     []problem.Subject{{Field: "percentageOfNodesToScore"}},
			document: []string{"percentageOfNodesToScore: 101", "resourceName: secondary-scheduler", "leaderElect: true"}},
		{name: "a layer's own check, its profile moved by the merge",
			config:    "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins: {score: {enabled: [{name: ImageLocality, weight: 2}, {name: TaintToleration, weight: -1}]}}\n",
			overrides: `{"profiles":[{"schedulerName":"b","percentageOfNodesToScore":5}]}`,
			want:      []problem.Subject{{Field: "profiles[1].plugins.score.enabled[1].weight"}},
			document:  []string{"weight: -1", "percentageOfNodesToScore: 5"}},
		{name: "pluginConfig entry, found by name",
			config: "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 101}\n",
			want:   []problem.Subject{{Field: "profiles[0].pluginConfig[0].args.hardPodAffinityWeight"}}, document: []string{"hardPodAffinityWeight: 101"}},
		{name: "framework build", config: "profiles:\n- schedulerName: a\n  plugins: {score: {enabled: [{name: NodeName}]}}\n",
			want: []problem.Subject{{Field: "profiles[0].plugins.score", Plugin: "NodeName"}}, document: []string{"name: NodeName"}},
		{name: "a name listed twice: the second entry",
			config: "profiles:\n- schedulerName: a\n- schedulerName: a\n",
			want:   []problem.Subject{{Field: "profiles[1].schedulerName"}}, document: []string{"schedulerName: a"}},
		{name: "two queue sorts: the list kube-scheduler counts",
			config: "profiles:\n- schedulerName: a\n  plugins: {queueSort: {enabled: [{name: PrioritySort}, {name: PrioritySort}]}}\n",
			want:   []problem.Subject{{Field: "profiles[0].plugins.queueSort.enabled"}}, document: []string{"name: PrioritySort"}},
		{name: "queue sorts that differ: the set kube-scheduler compares",
			config: "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins: {multiPoint: {disabled: [{name: PrioritySort}]}, queueSort: {enabled: [{name: Coscheduling}]}}\n",
			want:   []problem.Subject{{Field: "profiles[1].plugins.queueSort"}}, document: []string{"name: Coscheduling"}},
		{name: "a number out of range, at its indexes",
			config: "profiles:\n- schedulerName: a\n  plugins: {score: {enabled: [{name: ImageLocality}, {name: TaintToleration, weight: 2147483648}]}}\n",
			want:   []problem.Subject{{Field: "profiles[0].plugins.score.enabled[1].weight"}}, document: []string{"weight: 2147483648"}},
		{name: "no object", config: "- a list\n", want: []problem.Subject{{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := withConfig(tt.config)
			if tt.overrides != "" {
				in.SecondaryScheduler.Spec.UnsupportedConfigOverrides = raw(tt.overrides)
			}
			_, err := Render(in)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Render: %v, want an InputError", err)
			}
			var got []problem.Subject
			for _, p := range ie.Problems {
				got = append(got, p.Subject)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("subjects %q, want %q:\n%v", got, tt.want, err)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("problem %d: subject %q, want %q (%s)", i, got[i], tt.want[i], ie.Problems[i])
				}
			}
			if len(tt.document) == 0 && ie.Config != nil {
				t.Errorf("a document for layers that could not be merged:\n%s", ie.Config)
			}
			for _, line := range tt.document {
				if !strings.Contains(string(ie.Config), line) {
					t.Errorf("the merged document lacks %q:\n%s", line, ie.Config)
				}
			}
		})
	}
}
