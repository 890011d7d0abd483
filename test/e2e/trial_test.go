package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift/secondary-scheduler-operator/pkg/cmd/ctl"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
)

// trialSecret is a value the live cluster holds in a pod's env and in a Secret
// the pod mounts; no sandbox object may contain it.
const trialSecret = "E2E-TRIAL-SECRET-VALUE"

// TestTrial runs the trial command (in-process, as `secondary-scheduler-operator
// trial` does) against the stack, with a live scheduler serving
// LeastAllocated scoring, two pods of ours bound on the first node and four
// pending:
//
//   - MostAllocated (examples/bin-packing) packs the replayed pods on fewer
//     nodes than LeastAllocated does in either run of the current
//     configuration; the gate allows it;
//   - a NodeAffinity addedAffinity no node matches leaves every replayed pod
//     unschedulable: blocked, with the count and the plugin;
//   - no object of either sandbox holds an env value or a Secret reference,
//     although the snapshot copied the pod that has them;
//   - with Coscheduling served (scheduler-plugins), a change that leaves a
//     pending gang of 4 unschedulable is blocked, the gang counted as one unit.
func TestTrial(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	dir := c.testDir(t, "trial")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	live := writeTrialInput(t, dir, "live", "LeastAllocated", "")
	if out, err := c.kubectl("apply", "-f", live); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", live, err, out)
	}
	c.waitReconciled(t)
	ns := c.createNamespace(t, "e2e-trial")
	nodes, err := c.admin.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) < 2 {
		t.Fatalf("the stack's nodes: %v (%d)", err, len(nodes.Items))
	}
	first := nodes.Items[0].Name
	c.createSecretHolder(t, ns, first)
	c.createReplaySet(t, ns, first)

	t.Run("MostAllocated packs the replayed pods and is allowed", func(t *testing.T) {
		example := repoPath(t, "examples", "bin-packing")
		r, err := c.runTrial(t, []string{filepath.Join(example, "secondaryscheduler.yaml"), filepath.Join(example, "configmap.yaml")}, nil)
		if err != nil {
			t.Fatalf("the trial: %v", err)
		}
		ours := unitsIn(r, ns)
		if len(ours) != 6 {
			t.Fatalf("%d units of namespace %s replayed, want 6 (2 bound last, 4 pending): %+v", len(ours), ns, ours)
		}
		moved := 0
		for _, u := range ours {
			if u.Change == trial.Moved {
				moved++
			}
			if u.Change != trial.Moved && u.Change != trial.Same {
				t.Errorf("unit %s: %s, want placed by both", u.Name, u.Change)
			}
		}
		if moved == 0 || !r.Verdict.Allowed || r.Counts.NewlyUnschedulable != 0 {
			t.Errorf("want moved pods and an allowed verdict; got %d moved, verdict %+v", moved, r.Verdict)
		}
		checkPacked(t, r)
		checkSettled(t, r)
		t.Logf("%d of 6 moved; %s (timings %+v)", moved, r.Verdict.Message, r.Timings)
	})

	t.Run("an addedAffinity no node matches is blocked", func(t *testing.T) {
		blocked := writeTrialInput(t, dir, "blocked", "LeastAllocated", "e2e.trial/no-such-label")
		leaks := &leakCheck{ns: ns}
		r, err := c.runTrial(t, []string{blocked}, leaks.inspect)
		if !errors.Is(err, ctl.ErrTrialBlocked) {
			t.Fatalf("the trial returned %v, want it blocked", err)
		}
		n := 0
		for _, u := range unitsIn(r, ns) {
			if u.Change == trial.NewlyUnschedulable && u.Plugins == "NodeAffinity" {
				n++
			}
		}
		if n != 6 || r.Counts.NewlyUnschedulable < 6 {
			t.Errorf("%d of our units newly unschedulable by NodeAffinity (%d in all), want 6: %+v", n, r.Counts.NewlyUnschedulable, r.Units)
		}
		if msg := r.Verdict.Message; !strings.Contains(msg, fmt.Sprintf("%d newly unschedulable (at most 0 allowed)", r.Counts.NewlyUnschedulable)) ||
			len(r.Verdict.Reasons) == 0 || !strings.HasPrefix(r.Verdict.Reasons[0], "NodeAffinity: ") {
			t.Errorf("the verdict does not name the count and the plugin: %+v", r.Verdict)
		}
		if !strings.Contains(err.Error(), "blocked") {
			t.Errorf("the command's error %q does not say it is blocked", err)
		}
		if n := leaks.count(); n != 3 {
			t.Errorf("%d sandboxes inspected, want 3 (current, candidate and the current's rerun): %s", n, leaks)
		}
		t.Logf("sandboxes inspected: %s; %s", leaks, r.Verdict.Message)
	})

	t.Run("a snapshot file, tried without the cluster, counts as the live trial", func(t *testing.T) {
		c.trialOfSnapshotFile(t, dir, ns)
	})

	t.Run("a Coscheduling gang of 4 made unschedulable counts as one unit", func(t *testing.T) {
		c.trialGang(t, dir, first)
	})
}

// trialGang serves examples/coscheduling (scheduler-plugins), leaves a gang of
// 4 pods of 10 CPUs pending, and tries the same configuration with an
// addedAffinity to node alone, which cannot hold the gang.
func (c *cluster) trialGang(t *testing.T, dir, node string) {
	c.coschedulingRolledOut(t)
	ns := c.createWaitingGang(t, "e2e-trial-gang")
	path := writePinnedCoscheduling(t, dir, node)
	r, err := c.runTrial(t, []string{repoPath(t, "examples", "coscheduling", "secondaryscheduler.yaml"), path}, nil)
	if !errors.Is(err, ctl.ErrTrialBlocked) {
		t.Fatalf("the trial returned %v, want it blocked", err)
	}
	if !strings.HasSuffix(r.Current.Binary, "/scheduler-plugins") || !strings.HasSuffix(r.Candidate.Binary, "/scheduler-plugins") {
		t.Errorf("the arms ran %s and %s, want scheduler-plugins' build for its image", r.Current.Binary, r.Candidate.Binary)
	}
	checkBlockedGang(t, r, ns)
	checkSettled(t, r)
}

// checkSettled checks that every arm of a trial ended on its scheduler's own
// word that it had nothing left to try (its metrics, read from the trial
// command's processes or the operator's trial Pods), not on its pods looking
// decided: the gang's pods look decided while the scheduler still holds them
// in backoff for their siblings.
func checkSettled(t *testing.T, r *trial.Report) {
	t.Helper()
	for _, a := range []trial.ArmReport{r.Current, r.Candidate, r.Rerun} {
		if !strings.HasPrefix(a.Settled, "done when the scheduler had nothing left to try: ") {
			t.Errorf("the %s arm ended %q, want it done by its scheduler's queues", a.Name, a.Settled)
		}
	}
}

// createWaitingGang creates a namespace (named from prefix) with a PodGroup
// of 4 and its 4 pods of ours, 10 CPUs each, pending; it returns the namespace.
func (c *cluster) createWaitingGang(t *testing.T, prefix string) string {
	t.Helper()
	ns := c.createNamespace(t, prefix)
	c.createPodGroup(t, ns, "gang", 4)
	for i := 0; i < 4; i++ {
		c.createTrialPod(t, ns, fmt.Sprintf("gang-%d", i), "", "10", map[string]string{podGroupLabel: "gang"})
	}
	return ns
}

// writePinnedCoscheduling writes examples/coscheduling's ConfigMap with one
// more pluginConfig entry: an addedAffinity to node alone. It returns the file.
func writePinnedCoscheduling(t *testing.T, dir, node string) string {
	t.Helper()
	config, err := os.ReadFile(repoPath(t, "examples", "coscheduling", "configmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pinned := strings.Replace(string(config), "      pluginConfig:\n", "      pluginConfig:\n"+
		addedAffinity(fmt.Sprintf("{key: kubernetes.io/hostname, operator: In, values: [%s]}", node))+"\n", 1)
	if pinned == string(config) {
		t.Fatal("examples/coscheduling/configmap.yaml has no pluginConfig list to add to")
	}
	path := filepath.Join(dir, "gang-configmap.yaml")
	if err := os.WriteFile(path, []byte(pinned), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkBlockedGang checks that the report counts the gang of namespace ns as
// one unit of 4 pods, newly unschedulable, and that its reason names
// Coscheduling.
func checkBlockedGang(t *testing.T, r *trial.Report, ns string) {
	t.Helper()
	units := unitsIn(r, ns)
	if len(units) != 1 || !units[0].Gang || units[0].Pods != 4 || units[0].Change != trial.NewlyUnschedulable {
		t.Fatalf("units of namespace %s: %+v, want one gang of 4 pods, newly unschedulable", ns, units)
	}
	// The reason is the first pod's: rejected by Coscheduling with the whole
	// gang, and, when the scheduler's first look at it is the one kept, the
	// filters it failed (NodeAffinity, NodeResourcesFit).
	if !slices.Contains(strings.Split(units[0].Plugins, ", "), "Coscheduling") {
		t.Errorf("the gang's reason names plugins %q, want Coscheduling among them: %s", units[0].Plugins, units[0].Reason)
	}
	t.Logf("the gang: %+v", units[0])
}

// checkPacked checks the shape MostAllocated gives the candidate: the
// replayed pods on fewer nodes than LeastAllocated, which the current
// configuration runs (twice), spreads them over. Moving proves less: a second
// run of the current configuration moves pods too.
func checkPacked(t *testing.T, r *trial.Report) {
	t.Helper()
	nodes := map[string]int{}
	for _, s := range r.Spread {
		for arm, n := range map[string]int{"current": s.Current, "candidate": s.Candidate, trial.RerunArm: s.Rerun} {
			if n > 0 {
				nodes[arm]++
			}
		}
	}
	if nodes["candidate"] >= nodes["current"] || nodes["candidate"] >= nodes[trial.RerunArm] {
		t.Errorf("the replayed pods are on %d nodes under MostAllocated, on %d and %d under LeastAllocated (current, rerun): want fewer; spread %+v",
			nodes["candidate"], nodes["current"], nodes[trial.RerunArm], r.Spread)
	}
	// An arm that knew only some nodes packs too: each must have seen them all.
	for _, a := range []trial.ArmReport{r.Current, r.Candidate, r.Rerun} {
		if !strings.HasPrefix(a.Fence, "the scheduler knew all ") {
			t.Errorf("the %s arm's fence: %q, want the scheduler to know all nodes before the release", a.Name, a.Fence)
		}
	}
}

// trialOfSnapshotFile writes a snapshot of the stack to a file, runs the
// blocked change's trial live, then from the file with no kubeconfig, and
// compares them. The change leaves every replayed unit unschedulable and the
// current scheduler has room for them all, so no tie-break of either arm
// changes a count: the live trial's counts are the file's, or the file lost
// something the trial reads.
func (c *cluster) trialOfSnapshotFile(t *testing.T, dir, ns string) {
	blocked := writeTrialInput(t, dir, "blocked", "LeastAllocated", "e2e.trial/no-such-label")
	file := filepath.Join(dir, "snapshot.json.gz")
	var errOut bytes.Buffer
	if err := ctl.RunSnapshot(context.Background(), &ctl.SnapshotOptions{Kubeconfig: c.kubeconfig, Output: file, Replay: 2, ReplayPending: 1000}, io.Discard, &errOut); err != nil {
		t.Fatalf("the snapshot: %v\n%s", err, errOut.String())
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes; %s", file, fi.Size(), errOut.String())
	live, err := c.runTrial(t, []string{blocked}, nil)
	if !errors.Is(err, ctl.ErrTrialBlocked) {
		t.Fatalf("the live trial returned %v, want it blocked", err)
	}
	// No cluster: a kubeconfig read by mistake fails the trial.
	t.Setenv("KUBECONFIG", filepath.Join(dir, "no-such-kubeconfig"))
	fromFile, err := c.runTrialWith(t, &ctl.TrialOptions{Files: []string{blocked}, Snapshot: file})
	if !errors.Is(err, ctl.ErrTrialBlocked) {
		t.Fatalf("the trial of the snapshot file returned %v, want it blocked", err)
	}
	if got, want := replayed(fromFile), replayed(live); got != want {
		t.Fatalf("the file replays %s, the live trial %s: the cluster changed in between, the counts would mean nothing", got, want)
	}
	if n := len(unitsIn(live, ns)); n != 6 || live.Counts.NewlyUnschedulable < 6 {
		t.Fatalf("the live trial has %d units of %s and %d newly unschedulable, want 6 and at least 6: the comparison would prove little",
			n, ns, live.Counts.NewlyUnschedulable)
	}
	for what, pair := range map[string][2]any{
		"snapshot":  {live.Snapshot, fromFile.Snapshot},
		"counts":    {live.Counts, fromFile.Counts},
		"current":   {[3]int{live.Current.Bound, live.Current.Unschedulable, live.Current.Undecided}, [3]int{fromFile.Current.Bound, fromFile.Current.Unschedulable, fromFile.Current.Undecided}},
		"candidate": {[3]int{live.Candidate.Bound, live.Candidate.Unschedulable, live.Candidate.Undecided}, [3]int{fromFile.Candidate.Bound, fromFile.Candidate.Unschedulable, fromFile.Candidate.Undecided}},
		// The fidelity line's same-node share and tie-break count come from
		// each run's random picks among equal nodes: the verdict is compared
		// without it, and what the copy placed at all is compared apart.
		"verdict":  {withoutFidelity(live.Verdict.Message), withoutFidelity(fromFile.Verdict.Message)},
		"fidelity": {[2]int{live.Fidelity.Bound, live.Fidelity.Placed}, [2]int{fromFile.Fidelity.Bound, fromFile.Fidelity.Placed}},
		"binaries": {[2]string{live.Current.Binary, live.Candidate.Binary}, [2]string{fromFile.Current.Binary, fromFile.Candidate.Binary}},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: live %+v, from the file %+v", what, pair[0], pair[1])
		}
	}
	t.Logf("live and from the file: %s", fromFile.Verdict.Message)
}

// withoutFidelity is a verdict's message up to its fidelity line.
func withoutFidelity(message string) string {
	before, _, _ := strings.Cut(message, "; fidelity:")
	return before
}

// replayed names the replayed pods of a report, sorted.
func replayed(r *trial.Report) string {
	var out []string
	for _, p := range r.Pods {
		out = append(out, p.Pod)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// runTrial runs the trial command against the stack with the input files of
// files, and decodes its JSON report.
func (c *cluster) runTrial(t *testing.T, files []string, inspect func(string, *rest.Config) error, with ...func(*ctl.TrialOptions)) (*trial.Report, error) {
	t.Helper()
	o := &ctl.TrialOptions{Files: files, Kubeconfig: c.kubeconfig, Replay: 2, ReplayPending: 1000, Inspect: inspect}
	for _, f := range with {
		f(o)
	}
	return c.runTrialWith(t, o)
}

// runTrialWith runs the trial command with o, its arms on this machine from
// the stack's binaries, and decodes its JSON report.
func (c *cluster) runTrialWith(t *testing.T, o *ctl.TrialOptions) (*trial.Report, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	start := time.Now()
	o.NewRuntime, o.BinDir, o.Timeout, o.Output = local.New, c.bin, time.Minute, "json"
	err := ctl.RunTrial(context.Background(), o, nil, &out, &errOut)
	t.Logf("trial of %s: %s after %s\n%s", strings.Join(o.Files, ", "), errText(err), time.Since(start).Round(100*time.Millisecond), errOut.String())
	if out.Len() == 0 {
		t.Fatalf("the trial wrote no report: %v", err)
	}
	r := &trial.Report{}
	if jerr := json.Unmarshal(out.Bytes(), r); jerr != nil {
		t.Fatalf("the report: %v\n%s", jerr, out.String())
	}
	var text bytes.Buffer
	if werr := r.WriteText(&text); werr != nil {
		t.Fatal(werr)
	}
	t.Logf("the report as text:\n%s", text.String())
	return r, err
}

func errText(err error) string {
	if err == nil {
		return "allowed"
	}
	return err.Error()
}

func unitsIn(r *trial.Report, ns string) []trial.Unit {
	var out []trial.Unit
	for _, u := range r.Units {
		if strings.HasPrefix(u.Name, ns+"/") {
			out = append(out, u)
		}
	}
	return out
}

// writeTrialInput writes a SecondaryScheduler and its ConfigMap scoring with
// strategy, and when enforced is set, an addedAffinity that requires the node
// label enforced; it returns the file. MostAllocated is scored as
// examples/bin-packing does, without NodeResourcesBalancedAllocation: on the
// stack's nodes (32 CPUs, 256Gi) a pod of 4 CPUs and 1Gi unbalances a node
// by as much as it fills it, so with that plugin on, MostAllocated and
// LeastAllocated tie or spread alike and only tie-breaks would move pods.
func writeTrialInput(t *testing.T, dir, name, strategy, enforced string) string {
	t.Helper()
	affinity := ""
	if enforced != "" {
		affinity = "\n" + addedAffinity(fmt.Sprintf("{key: %s, operator: Exists}", enforced))
	}
	plugins := ""
	if strategy == "MostAllocated" {
		plugins = `
      plugins:
        score:
          disabled:
          - name: NodeResourcesBalancedAllocation
          enabled:
          - name: NodeResourcesFit
            weight: 5`
	}
	doc := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: trial-%[1]s
  namespace: openshift-secondary-scheduler
data:
  config.yaml: |
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - schedulerName: secondary-scheduler%[4]s
      pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: %[2]s
            resources:
            - {name: cpu, weight: 1}
            - {name: memory, weight: 1}%[3]s
---
apiVersion: operator.openshift.io/v1
kind: SecondaryScheduler
metadata:
  name: cluster
spec:
  managementState: Managed
  schedulerImage: registry.k8s.io/kube-scheduler:v1.37.2
  schedulerConfig: trial-%[1]s
`, name, strategy, affinity, plugins)
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// addedAffinity is a pluginConfig entry (indented as in a ConfigMap's
// config.yaml) of NodeAffinity requiring the node selector requirement expr.
func addedAffinity(expr string) string {
	return `      - name: NodeAffinity
        args:
          addedAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions:
                - ` + expr
}

// createTrialPod creates a pod of ours asking for cpu and 1Gi, bound to node
// when it is set (as if our scheduler had bound it).
func (c *cluster) createTrialPod(t *testing.T, ns, name, node, cpu string, labels map[string]string) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Spec: corev1.PodSpec{
		SchedulerName: "secondary-scheduler", NodeName: node,
		Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("1Gi")}}}},
	}}
	if _, err := c.admin.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createReplaySet creates the pods of ours that a trial replays: two bound on
// node (a trial replaying the last two bound takes them) and four pending,
// 4 CPUs each.
func (c *cluster) createReplaySet(t *testing.T, ns, node string) {
	t.Helper()
	for i := 0; i < 2; i++ {
		c.createTrialPod(t, ns, fmt.Sprintf("bound-%d", i), node, "4", nil)
	}
	for i := 0; i < 4; i++ {
		c.createTrialPod(t, ns, fmt.Sprintf("pending-%d", i), "", "4", nil)
	}
}

// createSecretHolder creates a Secret and a pod bound to node that has it in
// its env, envFrom and volumes, and trialSecret as a plain env value.
func (c *cluster) createSecretHolder(t *testing.T, ns, node string) {
	t.Helper()
	ctx := context.Background()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "trial-secret", Namespace: ns}, StringData: map[string]string{"k": trialSecret}}
	if _, err := c.admin.Kube.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := corev1.LocalObjectReference{Name: secret.Name}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "secret-holder", Namespace: ns}, Spec: corev1.PodSpec{
		NodeName: node,
		Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
			Env: []corev1.EnvVar{{Name: "PLAIN", Value: trialSecret},
				{Name: "FROM", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref, Key: "k"}}}},
			EnvFrom:      []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: ref}}},
			VolumeMounts: []corev1.VolumeMount{{Name: "s", MountPath: "/s"}},
		}},
		Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret.Name}}}},
	}}
	if _, err := c.admin.Kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// leakCheck is a trial.Options.Inspect that runs sandboxLeaks on each arm's
// sandbox; the arms run side by side.
type leakCheck struct {
	ns    string
	mu    sync.Mutex
	found []string
	clean int
}

func (l *leakCheck) inspect(arm string, sandbox *rest.Config) error {
	found, err := sandboxLeaks(sandbox, l.ns)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.found = append(l.found, fmt.Sprintf("%s at %s: %s", arm, sandbox.Host, found))
	if err == nil {
		l.clean++
	}
	return err
}

// count is how many sandboxes were inspected without finding a leak.
func (l *leakCheck) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.clean
}

func (l *leakCheck) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.found, "; ")
}

// sandboxLeaks checks a sandbox: the secret holder was copied, and no pod,
// Secret or ConfigMap there holds trialSecret or refers to a Secret.
func sandboxLeaks(sandbox *rest.Config, ns string) (string, error) {
	ctx := context.Background()
	kube, err := kubernetes.NewForConfig(sandbox)
	if err != nil {
		return "", err
	}
	pods, err := kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	holder := false
	for _, p := range pods.Items {
		if p.Namespace == ns && p.Name == "secret-holder" {
			holder = p.Spec.NodeName != ""
		}
	}
	if !holder {
		return "", fmt.Errorf("pod %s/secret-holder is not bound in the sandbox: the check would prove nothing", ns)
	}
	secrets, err := kube.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	cms, err := kube.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	for what, obj := range map[string]any{"pods": pods, "secrets": secrets, "configmaps": cms} {
		data, err := json.Marshal(obj)
		if err != nil {
			return "", err
		}
		for _, bad := range []string{trialSecret, `"secretName"`, `"secretKeyRef"`, `"secretRef"`, `"trial-secret"`, `"env"`} {
			if bytes.Contains(data, []byte(bad)) {
				return "", fmt.Errorf("the sandbox's %s hold %s", what, bad)
			}
		}
	}
	return fmt.Sprintf("%d pods, %d secrets, %d configmaps, none with an env value or a Secret reference",
		len(pods.Items), len(secrets.Items), len(cms.Items)), nil
}
