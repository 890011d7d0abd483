package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// upgradedEtcdImage is the default etcd image of Simulators in the binary the
// upgrade test builds: an embedded default that changed between versions.
const upgradedEtcdImage = "registry.k8s.io/etcd:3.5.99-0"

// buildUpgradedOperator builds the operator with a changed embedded default
// (the Simulators' etcd image). Only the link step runs again.
func buildUpgradedOperator(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "secondary-scheduler-operator-next")
	started := time.Now()
	goBuildOperator(t, repoPath(t, "."), out,
		"-ldflags", "-X github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender.DefaultEtcdImage="+upgradedEtcdImage)
	t.Logf("built the upgraded operator in %s", time.Since(started).Round(time.Second))
	return out
}

// onlySimulatorPod is the one live Pod of a Simulator, or an error when it has not exactly one.
func (c *cluster) onlySimulatorPod(ctx context.Context, ns, sim string) (*corev1.Pod, error) {
	pods, err := c.admin.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: simulatorrender.SimulatorLabel + "=" + sim})
	if err != nil {
		return nil, err
	}
	var live []*corev1.Pod
	for i := range pods.Items {
		if pods.Items[i].DeletionTimestamp == nil {
			live = append(live, &pods.Items[i])
		}
	}
	if len(live) != 1 {
		return nil, fmt.Errorf("Simulator %s/%s has %d live Pods, want 1", ns, sim, len(live))
	}
	return live[0], nil
}

func etcdImage(pod *corev1.Pod) string {
	for _, ctr := range pod.Spec.Containers {
		if ctr.Name == "etcd" {
			return ctr.Image
		}
	}
	return ""
}

// waitSimulatorSays waits until the Simulator is Available and its
// message holds want, and returns its one live Pod.
func (c *cluster) waitSimulatorSays(t *testing.T, ns, name, want string) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	var pod *corev1.Pod
	framework.WaitFor(ctx, t, fmt.Sprintf("Simulator %s/%s to be Available, saying %q", ns, name, want), func() (bool, error) {
		sim, err := c.admin.Operator.SimulationV1alpha1().Simulators(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		message := ""
		if sim.Status.Message != nil {
			message = *sim.Status.Message
		}
		if sim.Status.Phase != simv1alpha1.SimulatorAvailable || !strings.Contains(message, want) {
			return false, fmt.Errorf("%s: %s", sim.Status.Phase, message)
		}
		pod, err = c.onlySimulatorPod(ctx, ns, name)
		return err == nil, err
	})
	return pod
}

// TestFaultUpgrade: converge with this build, then replace the operator (a
// SIGKILL, as a node drain can) by a binary whose embedded defaults changed:
// the Simulators' default etcd image. Only what must change rolls: the
// scheduler's Deployment does not, and a running Simulator keeps its Pod (its
// state lives in an emptyDir) and says it runs an earlier version's defaults.
// A new Simulator, or the old one's Pod once deleted, gets the new default.
func TestFaultUpgrade(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	owned, user := c.faultBaseline(ctx, t)
	next := buildUpgradedOperator(t, c.dir)

	ns := c.createNamespace(t, "fault-upgrade")
	framework.RunInBackground(t, func(ctx context.Context) { c.markSimulatorPodsReady(ctx, ns) })
	sims := c.admin.Operator.SimulationV1alpha1().Simulators(ns)
	if _, err := sims.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := c.waitSimulatorSays(t, ns, "before", "the simulator is ready")
	if got := etcdImage(before); got != simulatorrender.DefaultEtcdImage {
		t.Fatalf("the Simulator's Pod runs etcd %q, want this build's default %q", got, simulatorrender.DefaultEtcdImage)
	}
	deployment, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	current, currentVersion := c.operator.binary, c.operatorVersion
	t.Cleanup(func() {
		// Back to this build, as the rest of the suite expects.
		c.operator.binary, c.operatorVersion = current, currentVersion
		c.killOperator(t)
		c.startOperator(t)
		c.waitReconciled(t)
	})
	c.killOperator(t)
	upgraded := time.Now()
	c.operator.binary, c.operatorVersion = next, currentVersion+"-next"
	c.startOperator(t)

	kept := c.waitSimulatorSays(t, ns, "before", "keeps the defaults of the operator version that created it")
	t.Logf("FAULT upgrade: the upgraded operator reported the kept Simulator Pod %s after the kill", time.Since(upgraded).Round(time.Millisecond))
	if kept.UID != before.UID {
		t.Fatalf("the upgrade replaced the running Simulator's Pod %s by %s: its state is lost", before.Name, kept.Name)
	}
	c.waitReconciled(t)
	after, err := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Generation != deployment.Generation {
		t.Fatalf("the upgrade rolled the scheduler's Deployment (generation %d → %d), whose defaults did not change", deployment.Generation, after.Generation)
	}
	c.checkOwned(ctx, t, owned)
	c.checkOneSchedulerPod(ctx, t)
	c.userConfigIntact(ctx, t, user)
	if c.openShift {
		framework.WaitFor(ctx, t, "the ClusterOperator to report the upgraded version", func() (bool, error) {
			out, err := c.kubectl("get", "clusteroperator", "secondary-scheduler", "-o", `jsonpath={.status.versions[?(@.name=="operator")].version}`)
			if err != nil || out != c.operatorVersion {
				return false, fmt.Errorf("%q (%v)", out, err)
			}
			return true, nil
		})
	}

	// What the upgraded operator creates has its defaults.
	if _, err := sims.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := etcdImage(c.waitSimulatorSays(t, ns, "after", "the simulator is ready")); got != upgradedEtcdImage {
		t.Fatalf("a Simulator created after the upgrade runs etcd %q, want %q", got, upgradedEtcdImage)
	}
	// The kept Pod, deleted by its user, comes back with them.
	if err := c.admin.Kube.CoreV1().Pods(ns).Delete(ctx, kept.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(ctx, t, "the kept Pod's replacement with the upgraded defaults", func() (bool, error) {
		pod, err := c.onlySimulatorPod(ctx, ns, "before")
		if err != nil {
			return false, err
		}
		if pod.UID == kept.UID || etcdImage(pod) != upgradedEtcdImage {
			return false, fmt.Errorf("Pod %s runs etcd %s", pod.Name, etcdImage(pod))
		}
		return true, nil
	})
	c.waitSimulatorSays(t, ns, "before", "the simulator is ready")
}
