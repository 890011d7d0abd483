package ctl

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// writeSnapshotFile writes a snapshot file of one node and one pending pod
// of profiles, with cluster as its cluster section; it returns its path.
func writeSnapshotFile(t *testing.T, profiles []string, cluster string) string {
	t.Helper()
	return writeSnapshotFileServing(t, profiles, cluster, "profiles:\n- schedulerName: secondary-scheduler\n")
}

// writeSnapshotFileServing is writeSnapshotFile with the current arm's configuration.
func writeSnapshotFileServing(t *testing.T, profiles []string, cluster, currentConfig string) string {
	t.Helper()
	snap := &trial.Snapshot{Nodes: []corev1.Node{{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}},
		Replay: []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{SchedulerName: profiles[0]}}}}
	f := &trial.SnapshotFile{SchedulerNames: profiles, Replay: trial.ReplayBounds{Pending: 1000}, Snapshot: snap, Cluster: json.RawMessage(cluster),
		Current: trial.Arm{Name: "current", Image: "registry.k8s.io/kube-scheduler:v1.37.2", Config: []byte(currentConfig)}}
	var buf bytes.Buffer
	if err := trial.WriteSnapshotFile(&buf, f); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "snapshot.json.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func binPacking(t *testing.T) []string {
	dir := filepath.Join("..", "..", "..", "examples", "bin-packing")
	return []string{filepath.Join(dir, "secondaryscheduler.yaml"), filepath.Join(dir, "configmap.yaml")}
}

// TestTrialFromFile: the change is rendered for the cluster the file
// describes (spec.rbac is held to the rules it holds), the
// current arm and the snapshot are the file's, and no cluster is read.
func TestTrialFromFile(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "no-such-kubeconfig"))
	cluster := `{"servedFrom":"secondary-scheduler-config-0123456789ab","servingCertAvailable":true,"grantableRules":[]}`
	path := writeSnapshotFile(t, []string{"secondary-scheduler"}, cluster)
	in, err := trialFromFile(path, binPacking(t), nil)
	if err != nil {
		t.Fatalf("a trial of a snapshot file: %v", err)
	}
	if in.servedFrom != "secondary-scheduler-config-0123456789ab" || string(in.current.Config) != "profiles:\n- schedulerName: secondary-scheduler\n" ||
		in.current.Image != "registry.k8s.io/kube-scheduler:v1.37.2" || len(in.snap.Nodes) != 1 || len(in.snap.Replay) != 1 {
		t.Errorf("the trial's input is not the file's: %+v", in)
	}
	if cfg := in.objs.ConfigMap.Data["config.yaml"]; !strings.Contains(cfg, "MostAllocated") {
		t.Errorf("the candidate is not the change rendered:\n%s", cfg)
	}

	// spec.rbac is held to the rules the file holds, as the operator holds it
	// to the cluster's ClusterRole: none (the role is gone) refuses it.
	coscheduling := filepath.Join("..", "..", "..", "examples", "coscheduling")
	files := []string{filepath.Join(coscheduling, "secondaryscheduler.yaml"), filepath.Join(coscheduling, "configmap.yaml")}
	for cluster, want := range map[string]string{
		`{"servedFrom":"cm"}`: "ClusterRole " + names.GrantableClusterRole + " does not exist",
		`{"servedFrom":"cm","grantableRules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]}`: "",
	} {
		_, err := trialFromFile(writeSnapshotFile(t, []string{"secondary-scheduler"}, cluster), files, nil)
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.Contains(err.Error(), want))) {
			t.Errorf("spec.rbac against the cluster section %s: %v, want %q", cluster, err, want)
		}
	}
}

// TestTrialRefusesSnapshotFiles: every refusal names --snapshot and what to do.
func TestTrialRefusesSnapshotFiles(t *testing.T) {
	dir := t.TempDir()
	yamlFile := filepath.Join(dir, "list.yaml")
	if err := os.WriteFile(yamlFile, []byte("apiVersion: v1\nkind: List\nitems: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "none"), "--snapshot: open "},
		{"not a snapshot", yamlFile, "--snapshot " + yamlFile + ": not a trial snapshot"},
		{"a profile it does not replay", writeSnapshotFile(t, []string{"other"}, `{"servedFrom":"cm"}`),
			"the change's profile secondary-scheduler is not replayed by the snapshot (taken for other): take it again with --scheduler-name secondary-scheduler"},
		{"an unknown cluster field", writeSnapshotFile(t, []string{"secondary-scheduler"}, `{"servedFrom":"cm","token":"x"}`),
			`its cluster section: json: unknown field "token"`},
	} {
		_, err := trialFromFile(tc.path, binPacking(t), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if strings.HasPrefix(tc.want, "--snapshot ") && !strings.Contains(err.Error(), "write one with secondary-scheduler-ctl snapshot -o FILE") {
			t.Errorf("%s: %v does not say what to do", tc.name, err)
		}
	}
}

// With -o junit, a trial that cannot run is a testsuite with one error.
func TestTrialJUnitWhenItCannotRun(t *testing.T) {
	var out, errOut bytes.Buffer
	o := &TrialOptions{Output: "junit", Snapshot: filepath.Join(t.TempDir(), "none"), Files: binPacking(t)}
	err := RunTrial(t.Context(), o, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "--snapshot: open") {
		t.Fatalf("RunTrial = %v", err)
	}
	var s trial.JUnitSuite
	if xerr := xml.Unmarshal(out.Bytes(), &s); xerr != nil || s.Errors != 1 || len(s.Cases) != 1 || s.Cases[0].Error == nil ||
		!strings.Contains(s.Cases[0].Error.Message, "--snapshot: open") {
		t.Errorf("the JUnit of a trial that could not run: %v, %+v\n%s", xerr, s, out.String())
	}
}
