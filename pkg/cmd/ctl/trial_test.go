package ctl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrialRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct {
		o    TrialOptions
		want string
	}{
		{TrialOptions{Output: "yaml"}, `--output: "yaml" is none of text, json, junit, html`},
		{TrialOptions{Output: "text", Snapshot: "s", Kubeconfig: "k"}, "--snapshot and --kubeconfig: a trial reads the cluster from one of them; give one"},
		{TrialOptions{Output: "text", Snapshot: "s", ReplayGiven: true}, "--replay: the replay set comes from the --snapshot file"},
		{TrialOptions{Output: "text", Replay: -1}, "--replay: -1 is negative"},
		{TrialOptions{Output: "text", ArmsAtOnce: 4}, "--arms-at-once: 4 is not 1, 2 or 3 (0: all three)"},
		{TrialOptions{Output: "text", ArmsAtOnce: -1}, "--arms-at-once: -1 is not 1, 2 or 3 (0: all three)"},
		{TrialOptions{Output: "text", MinFidelityPercent: 101}, "--min-fidelity-percent: 101 is not a percent from 0 to 100"},
		{TrialOptions{Output: "text", MinFidelityPercent: -5}, "--min-fidelity-percent: -5 is not a percent from 0 to 100"},
		{TrialOptions{Output: "json"}, "no input: give the SecondaryScheduler"},
	} {
		var out bytes.Buffer
		err := RunTrial(t.Context(), &tc.o, nil, &out, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RunTrial(%+v) = %v, want %q", tc.o, err, tc.want)
		}
		if out.Len() != 0 {
			t.Errorf("RunTrial(%+v) wrote %q before refusing", tc.o, out.String())
		}
	}
}

func TestSchedulerBinaryByImage(t *testing.T) {
	dir := t.TempDir()
	for _, b := range []string{"kube-scheduler", "scheduler-plugins"} {
		if err := os.WriteFile(filepath.Join(dir, b), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for image, want := range map[string]string{
		"registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7": "scheduler-plugins",
		"registry.k8s.io/kube-scheduler:v1.37.2":                   "kube-scheduler",
	} {
		got, err := schedulerBinary(dir, image)
		if err != nil || got != filepath.Join(dir, want) {
			t.Errorf("schedulerBinary(%s) = %s, %v; want %s", image, got, err, want)
		}
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := schedulerBinary(t.TempDir(), "registry.k8s.io/kube-scheduler:v1.37.2"); err == nil || !strings.Contains(err.Error(), "kube-scheduler, which is neither in") {
		t.Errorf("a missing binary gave %v", err)
	}
}
