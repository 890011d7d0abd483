package render

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// FuzzMerge feeds arbitrary user ConfigMap and unsupportedConfigOverrides layers
// to Render: it must never panic, must be deterministic, and whatever it accepts
// must be a strict v1 configuration. Run it with
//
//	go test ./pkg/operator/render/ -run '^$' -fuzz FuzzMerge -fuzztime 60s
func FuzzMerge(f *testing.F) {
	// Seeds: the ConfigMaps of the golden inputs, plus edge cases of the merge.
	for _, name := range goldenCases {
		in := readInputs(f, filepath.Join("testdata", "input", name+".yaml"))
		cfg := ""
		if in.UserConfig != nil {
			cfg = in.UserConfig.Data[names.ConfigKey]
		}
		f.Add(cfg, string(in.SecondaryScheduler.Spec.UnsupportedConfigOverrides.Raw))
	}
	for _, seed := range [][2]string{
		{"", ""},
		{"profiles: null", `{"profiles":[{"schedulerName":"x"}]}`},
		{"profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: P\n    args: {a: {b: 1}}\n", `{"profiles":[{"schedulerName":"a","pluginConfig":[{"name":"P","args":{"a":{"c":2}}}]}]}`},
		{"extenders:\n- urlPrefix: http://a\n  weight: 1\n", `{"extenders":[{"urlPrefix":"http://a","weight":null}]}`},
		{"leaderElection: {leaderElect: false, resourceName: x}\nclientConnection: {kubeconfig: /k}\n", `{"leaderElection":null}`},
		{"profiles:\n- schedulerName: a\n- a\n", `[1]`},
		{"apiVersion: kubescheduler.config.k8s.io/v1beta3\n", `{"kind":"X"}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, cfg, overrides string) {
		in := withConfig(cfg)
		in.SecondaryScheduler.Spec.UnsupportedConfigOverrides = raw(overrides)
		first, err1 := Render(in)
		second, err2 := Render(Inputs{SecondaryScheduler: in.SecondaryScheduler.DeepCopy(), UserConfig: in.UserConfig.DeepCopy()})
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("not deterministic: %v / %v", err1, err2)
		}
		if err1 != nil {
			if !IsInputError(err1) {
				t.Fatalf("bad input gave an internal error: %v", err1)
			}
			return
		}
		if a, b := first.ConfigMap.Data[names.ConfigKey], second.ConfigMap.Data[names.ConfigKey]; a != b || first.ConfigHash != second.ConfigHash {
			t.Fatalf("not deterministic:\n%s\n---\n%s", a, b)
		}
		// What Render accepts, kube-scheduler must be able to read back: render it
		// as the user layer of a fresh SecondaryScheduler.
		again := withConfig(first.ConfigMap.Data[names.ConfigKey])
		if _, err := Render(again); err != nil {
			t.Fatalf("the merged config does not render again: %v\n%s", err, first.ConfigMap.Data[names.ConfigKey])
		}
		if !bytes.Equal(printObjects(t, first), printObjects(t, second)) {
			t.Fatal("objects differ between two renders of the same input")
		}
	})
}

// BenchmarkRender renders the KubeFlux example (config merge, checks, every
// object):
//
//	go test ./pkg/operator/render/ -run '^$' -bench BenchmarkRender -benchmem
func BenchmarkRender(b *testing.B) {
	in := readInputs(b, filepath.Join("testdata", "input", "kubeflux-sidecar.yaml"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(in); err != nil {
			b.Fatal(err)
		}
	}
}
