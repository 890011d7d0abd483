package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// kubectlPlayingKubelet is kubectl with the kubelet's log endpoint played:
// kwok nodes serve no logs, so `kubectl logs` of a pod in LOGS (as the gather
// script asks: logs -n NS POD -c CONTAINER --timestamps [--previous]) prints
// LOGS/NS/POD/CONTAINER.log (CONTAINER.previous.log), and everything else goes
// to the real kubectl.
const kubectlPlayingKubelet = `#!/bin/sh
if [ "$1" = logs ] && [ "$2" = -n ] && [ "$5" = -c ]; then
  f="%[1]s/$3/$4/$6"
  if [ "${8:-}" = --previous ]; then f="$f.previous"; fi
  if [ -f "$f.log" ]; then exec cat "$f.log"; fi
fi
exec %[2]s "$@"
`

// TestMustGather runs images/must-gather/gather with kubectl (oc adm inspect is
// not here) against the stack, with a rolled-out SecondaryScheduler whose
// scheduler the harness runs, a Simulator, a trial report and a Secret in the
// operand namespace, and checks what the archive holds: each part in its
// file, the operator's and the scheduler's logs (current, and previous for a
// container that restarted), and no trace of the Secret's value.
//
// The operator runs as a host process here, and kwok pods have no logs to
// serve: the kubectl the script runs serves, for the operator's pod (the one
// kwok runs for manifests/' Deployment) and the scheduler's, the logs of the
// processes that stand in for them. In a cluster the same `kubectl logs` (or
// oc adm inspect) reads them from the kubelet.
func TestMustGather(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	kube := c.admin.Kube

	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)
	scheduler := c.playKubelet(t)
	framework.WaitForWithin(ctx, t, time.Minute, "the harness's kube-scheduler to log", func() (bool, error) {
		return scheduler.Log(t) != "", nil
	})
	sched := scheduler.Current()

	simNamespace := c.createNamespace(t, "e2e-must-gather")
	sim := &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "gathered", Namespace: simNamespace}}
	if _, err := c.admin.Operator.SimulationV1alpha1().Simulators(simNamespace).Create(ctx, sim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var simPod string
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the operator to create the Simulator's Pod", func() (bool, error) {
		pods, err := kube.CoreV1().Pods(simNamespace).List(ctx, metav1.ListOptions{LabelSelector: simulatorrender.SimulatorLabel + "=" + sim.Name})
		if err != nil || len(pods.Items) == 0 {
			return false, err
		}
		simPod = pods.Items[0].Name
		return true, nil
	})

	report := c.trialReport(t)
	secretValue := c.secretInOperandNamespace(t)

	logs := t.TempDir()
	operatorPod := c.operatorPodRestarted(t)
	serveLog(t, logs, names.OperatorNamespace, operatorPod, "secondary-scheduler-operator", c.operator.log)
	const previousLog = "the operator's run before its restart\n"
	playedPrevious := filepath.Join(logs, names.OperatorNamespace, operatorPod, "secondary-scheduler-operator.previous.log")
	if err := os.WriteFile(playedPrevious, []byte(previousLog), 0o600); err != nil {
		t.Fatal(err)
	}
	serveLog(t, logs, names.OperandNamespace, sched.Pod.Name, names.OperandName, sched.LogPath)

	// In the run's work directory, which hack/test-e2e.sh keeps after a failure.
	dest := c.testDir(t, "must-gather")
	c.gather(t, logs, dest)

	want := []string{
		"cluster-scoped-resources/apiextensions.k8s.io/customresourcedefinitions/secondaryschedulers.operator.openshift.io.yaml",
		"cluster-scoped-resources/apiextensions.k8s.io/customresourcedefinitions/simulators.simulation.kube-scheduler-simulator.x-k8s.io.yaml",
		"cluster-scoped-resources/operator.openshift.io/secondaryschedulers/cluster.yaml",
		"cluster-scoped-resources/rbac.authorization.k8s.io/clusterroles/" + names.OperandClusterRoleName + ".yaml",
		"cluster-scoped-resources/admissionregistration.k8s.io/validatingadmissionpolicies/" + names.SimulatorAdmissionName + ".yaml",
		"secondary-scheduler/scheduler-configs/" + sched.Pod.ConfigMap + ".yaml",
		"secondary-scheduler/trial-report.yaml",
		"secondary-scheduler/secondaryscheduler-events.yaml",
		"secondary-scheduler/simulators/simulators.yaml",
		"secondary-scheduler/simulators/" + simNamespace + "/core/pods.yaml",
		"secondary-scheduler/simulators/" + simNamespace + "/pods/" + simPod + "/" + simPod + ".yaml",
	}
	for _, ns := range []string{names.OperatorNamespace, names.OperandNamespace} {
		for _, f := range []string{ns + ".yaml", "core/pods.yaml", "core/configmaps.yaml", "core/events.yaml", "core/secrets.yaml",
			"apps/deployments.yaml", "rbac.authorization.k8s.io/roles.yaml", "coordination.k8s.io/leases.yaml"} {
			want = append(want, "namespaces/"+ns+"/"+f)
		}
	}
	co := "cluster-scoped-resources/config.openshift.io/clusteroperators/secondary-scheduler.yaml"
	if c.openShift {
		want = append(want, co)
	} else if _, err := os.Stat(filepath.Join(dest, co)); err == nil {
		t.Errorf("%s gathered on a cluster without the ClusterOperator API", co)
	}
	for _, f := range want {
		if data, err := os.ReadFile(filepath.Join(dest, f)); err != nil || len(bytes.TrimSpace(data)) == 0 {
			t.Errorf("the archive lacks %s (or it is empty): %v", f, err)
		}
	}
	contains(t, dest, "secondary-scheduler/trial-report.yaml", report)
	contains(t, dest, "secondary-scheduler/simulators/simulators.yaml", "name: "+sim.Name)
	contains(t, dest, "secondary-scheduler/scheduler-configs/"+sched.Pod.ConfigMap+".yaml", "schedulerName: "+names.DefaultSchedulerName)

	// Logs, where oc adm inspect puts them: the operator's (current and
	// previous), the scheduler's.
	podLogs := func(ns, pod, container string) string {
		return filepath.Join("namespaces", ns, "pods", pod, container, container, "logs")
	}
	operatorLogs := podLogs(names.OperatorNamespace, operatorPod, "secondary-scheduler-operator")
	sameStart(t, dest, filepath.Join(operatorLogs, "current.log"), c.operator.log)
	contains(t, dest, filepath.Join(operatorLogs, "previous.log"), previousLog)
	sameStart(t, dest, filepath.Join(podLogs(names.OperandNamespace, sched.Pod.Name, names.OperandName), "current.log"), sched.LogPath)

	// Only logs may be missing: those of pods nobody plays kubelet for.
	gatherErrors, err := os.ReadFile(filepath.Join(dest, "secondary-scheduler/gather-errors.log"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(gatherErrors)) {
		if file, _, _ := strings.Cut(line, ": "); !strings.Contains(file, "/logs/") {
			t.Errorf("not gathered: %s", line)
		}
	}

	// The Secret is listed, its value is nowhere.
	contains(t, dest, "namespaces/"+names.OperandNamespace+"/core/secrets.yaml", "name: "+mustGatherSecret)
	for _, leak := range []string{secretValue, base64.StdEncoding.EncodeToString([]byte(secretValue))} {
		if files := filesContaining(t, dest, leak); len(files) > 0 {
			t.Errorf("the Secret's value (%q) is in the archive: %s", leak, strings.Join(files, ", "))
		}
	}
}

// mustGatherSecret is the Secret TestMustGather puts in the operand namespace.
const mustGatherSecret = "e2e-must-gather"

// gather runs images/must-gather/gather DEST with kubectl, with the kubelet's
// logs for the pods in logs played (kubectlPlayingKubelet).
func (c *cluster) gather(t *testing.T, logs, dest string) {
	t.Helper()
	bin := t.TempDir()
	wrapper := fmt.Sprintf(kubectlPlayingKubelet, logs, filepath.Join(c.bin, "kubectl"))
	if err := os.WriteFile(filepath.Join(bin, "kubectl"), []byte(wrapper), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, repoPath(t, "images", "must-gather", "gather"), dest)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig, "GATHER_CLI=kubectl", "PATH="+bin+":"+os.Getenv("PATH"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("images/must-gather/gather (%s):\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("images/must-gather/gather: %v", err)
	}
}

// trialReport returns a line of the trial report ConfigMap, which it creates
// (and deletes at the end) when no trial has written one.
func (c *cluster) trialReport(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	cms := c.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace)
	cm, err := cms.Get(ctx, trialcontroller.ReportName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: trialcontroller.ReportName, Namespace: names.OperandNamespace},
			Data: map[string]string{"report.txt": "a trial report for TestMustGather"}}
		if cm, err = cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cms.Delete(context.Background(), cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID}})
		})
	} else if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(cm.Data["report.txt"], "\n")
	if line == "" {
		t.Fatalf("ConfigMap %s has no report.txt", trialcontroller.ReportName)
	}
	return line
}

// secretInOperandNamespace applies, as users do (so that the last-applied
// annotation holds it too), a Secret with a random value in the operand
// namespace, deleted at the end, and returns the value.
func (c *cluster) secretInOperandNamespace(t *testing.T) string {
	t.Helper()
	random := make([]byte, 16)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	value := hex.EncodeToString(random)
	manifest := filepath.Join(t.TempDir(), "secret.yaml")
	secret := fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: %s\nstringData:\n  password: %s\n",
		mustGatherSecret, names.OperandNamespace, value)
	if err := os.WriteFile(manifest, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.kubectl("apply", "-f", manifest); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		_ = c.admin.Kube.CoreV1().Secrets(names.OperandNamespace).Delete(context.Background(), mustGatherSecret, metav1.DeleteOptions{})
	})
	return value
}

// operatorPodRestarted returns the pod kwok runs for the operator's Deployment,
// its container's restartCount set to 1 until the test ends, as after a crash.
func (c *cluster) operatorPodRestarted(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	pods := c.admin.Kube.CoreV1().Pods(names.OperatorNamespace)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=secondary-scheduler-operator"})
	if err != nil {
		t.Fatal(err)
	}
	var pod *corev1.Pod
	for i := range list.Items {
		if p := &list.Items[i]; p.DeletionTimestamp == nil && len(p.Status.ContainerStatuses) == 1 {
			pod = p
		}
	}
	if pod == nil {
		t.Fatalf("no running pod of the operator's Deployment in %s", names.OperatorNamespace)
	}
	restarts := func(n int) error {
		patch := fmt.Sprintf(`[{"op":"replace","path":"/status/containerStatuses/0/restartCount","value":%d}]`, n)
		_, err := pods.Patch(context.Background(), pod.Name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{}, "status")
		return err
	}
	if err := restarts(1); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = restarts(int(pod.Status.ContainerStatuses[0].RestartCount)) })
	return pod.Name
}

// serveLog has kubectlPlayingKubelet serve file as the log of container in pod.
func serveLog(t *testing.T, logs, namespace, pod, container, file string) {
	t.Helper()
	dir := filepath.Join(logs, namespace, pod)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, filepath.Join(dir, container+".log")); err != nil {
		t.Fatal(err)
	}
}

// contains fails the test unless the archive's file holds want.
func contains(t *testing.T, dest, file, want string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dest, file))
	if err != nil {
		t.Errorf("the archive lacks %s: %v", file, err)
		return
	}
	if !strings.Contains(string(data), want) {
		t.Errorf("%s does not hold %q", file, want)
	}
}

// sameStart fails the test unless the archive's file is non-empty and starts
// with the first line of source (the log it was served, which grows).
func sameStart(t *testing.T, dest, file, source string) {
	t.Helper()
	firstLine := func(path string) string {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s := bufio.NewScanner(f)
		s.Buffer(nil, 1<<20)
		s.Scan()
		return s.Text()
	}
	want := firstLine(source)
	if got := firstLine(filepath.Join(dest, file)); want == "" || got != want {
		t.Errorf("%s starts with %q, want the first line of %s, %q", file, got, source, want)
	}
}

// filesContaining lists the archive's files that hold s.
func filesContaining(t *testing.T, dest, s string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dest, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && bytes.Contains(data, []byte(s)) {
			rel, _ := filepath.Rel(dest, path)
			found = append(found, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
