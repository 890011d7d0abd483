package configdiff

import (
	"testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// TestRefusalForAnotherFieldIsADisagreement: an operator that refuses what
// kube-scheduler refuses, but names another field, must fail the comparison.
// rewriteOperatorSubjects makes the operator name parallelism for a case both
// refuse for percentageOfNodesToScore, on the real binary.
func TestRefusalForAnotherFieldIsADisagreement(t *testing.T) {
	bin := binary{kubeScheduler, kubeSchedulerBinary(t)}
	c := corpusCase{Name: "percentage over 100", Config: "percentageOfNodesToScore: 101\n"}
	r := newRunner(t)

	op, config := renderCase(t, c)
	got, _ := r.run(bin, config)
	if o, msg := judge(c, bin.name, op, got); o != agreed {
		t.Fatalf("with the operator's own subjects: %s", msg)
	}
	if !sameSubject(op.subjects, []problem.Subject{{Field: "percentageOfNodesToScore"}}) {
		t.Fatalf("the operator refuses for %s, want percentageOfNodesToScore", subjectsString(op.subjects))
	}

	rewriteOperatorSubjects = func(corpusCase, []problem.Subject) []problem.Subject {
		return []problem.Subject{{Field: "parallelism"}}
	}
	t.Cleanup(func() { rewriteOperatorSubjects = nil })
	op, config = renderCase(t, c)
	got, _ = r.run(bin, config)
	if o, msg := judge(c, bin.name, op, got); o != disagreed {
		t.Errorf("the operator refusing for parallelism, %s for %s: judged %d (%s), want a disagreement", bin.name, subjectsString(got.subjects), o, msg)
	}
}

// subjectsDoc is the document TestBinarySubjects' refusals are of.
const subjectsDoc = `profiles:
- schedulerName: a
- schedulerName: b
  plugins:
    score:
      enabled: [{name: ImageLocality}, null]
  pluginConfig:
  - name: InterPodAffinity
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: Bogus}}
`

// TestBinarySubjects: the extractor reads the subjects of the messages the
// binaries print, as klog quotes them, as paths of the document they refused.
func TestBinarySubjects(t *testing.T) {
	tests := []struct{ reason, want string }{
		{`E1206 run.go:72] "command failed" err="[parallelism: Invalid value: 0: should be an integer value greater than zero, percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]]"`,
			"parallelism, percentageOfNodesToScore"},
		{`err="invalid KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[1].weight: Invalid value: -1: must be positive"`,
			"profiles[0].plugins.score.enabled[1].weight"},
		{`err="couldn't create scheduler: initializing profiles: creating profile for scheduler name a: plugin \"NodeName\" does not extend score plugin"`,
			"plugin NodeName"},
		{`err="... creating profile for scheduler name a: FilterPlugin \"GCEPDLimits\" does not exist"`, "plugin GCEPDLimits"},
		{`err="... \"Foo\" is not a registered plugin"`, "plugin Foo"},
		{`err="strict decoding error: unknown field \"percentageOfNodes\""`, "percentageOfNodes"},
		{`err="json: cannot unmarshal string into Go struct field KubeSchedulerConfiguration.parallelism of type int32"`, "parallelism"},
		{`err="no kind \"KubeSchedulerConfiguration\" is registered for version \"kubescheduler.config.k8s.io/v1beta3\""`, "apiVersion"},
		{`err="... only one queue sort plugin required for profile with scheduler name \"a\", but got 2"`, "plugins.queueSort"},
		{`err="... at least one bind plugin is needed for profile with scheduler name \"a\""`, "plugins.bind"},
		{`err="profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin can be enabled"`, "profiles[0].plugins.queueSort.enabled"},
		{`err="json: cannot unmarshal number 2147483648 into Go struct field Plugin.profiles.plugins.score.enabled.weight of type int32"`,
			"profiles.plugins.score.enabled.weight"},
		{`err="initializing profiles: creating profile for scheduler name b: initializing plugin \"NodeResourcesFit\": scoringStrategy.type: Unsupported value: \"Bogus\""`,
			"profiles[1].pluginConfig[1].args.scoringStrategy.type"},
		{`err="initializing profiles: creating profile for scheduler name b: initializing plugin \"VolumeBinding\": bindTimeoutSeconds: Invalid value: -1"`,
			"plugin VolumeBinding"},
		{`err="strict decoding error: decoding .profiles[1].pluginConfig[1]: strict decoding error: decoding args for plugin NodeResourcesFit: strict decoding error: unknown field \"scoringStrategyy\""`,
			"profiles[1].pluginConfig[1].args.scoringStrategyy"},
		{`err="initializing profiles: creating profile for scheduler name b: ScorePlugin \"\" does not exist"`, "profiles[1].plugins.score.enabled[1]"},
		{`err="stat /nowhere: no such file or directory"`, "(none)"},
	}
	for _, tt := range tests {
		if got := subjectsString(binarySubjects(tt.reason, []byte(subjectsDoc))); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.reason, got, tt.want)
		}
	}
	if !sameSubject([]problem.Subject{{Field: "profiles[1].plugins.bind"}}, []problem.Subject{{Field: "plugins.bind"}}) ||
		sameSubject([]problem.Subject{{Field: "profiles[1].plugins.bindx"}}, []problem.Subject{{Field: "plugins.bind"}}) ||
		!sameSubject([]problem.Subject{{Field: "profiles[0].plugins.score.enabled[1].weight"}}, []problem.Subject{{Field: "plugins.score"}}) {
		t.Error("a profile's plugin set named without the profile matches that set, and what is inside it, only")
	}
	weight := []problem.Subject{{Field: "profiles[0].plugins.score.enabled[1].weight"}}
	if !sameSubject(weight, []problem.Subject{{Field: "profiles.plugins.score.enabled.weight"}}) ||
		sameSubject(weight, []problem.Subject{{Field: "profiles.plugins.score.enabled.name"}}) ||
		sameSubject(weight, []problem.Subject{{Field: "profiles[1].plugins.score.enabled[1].weight"}}) {
		t.Error("a path named without its indexes matches that path at any index; one with indexes, only those")
	}
}
