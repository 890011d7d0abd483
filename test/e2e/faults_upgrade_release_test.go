package e2e

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/staticresources"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// upgradeSimulators are the Simulators each upgrade starts with.
var upgradeSimulators = []string{"sandbox", "team-a"}

// TestFaultUpgradeFromRelease: for each earlier release (upgradeReleases), a
// control plane of its own gets that release's manifests/ (CRDs, RBAC,
// namespaces) and its operator binary, built from this clone's history and
// run with its ServiceAccount's token under that release's RBAC. With the
// release's examples/bin-packing and two Simulators converged, the old
// operator is stopped as a Deployment rollout stops it (SIGTERM), this
// build's manifests/ are applied as an upgrade applies them (the ClusterOperator
// too, not the create-only SecondaryScheduler), and this build's operator
// starts. Then: everything converges to what this build renders, nothing owned
// is orphaned or duplicated, the former objects are gone, the scheduler's
// Deployment rolls at most once, the Simulators stay Available (their Pods
// replaced once, as docs/simulator.md says of Pods without the managed-by
// label), new status fields appear, and the operator's writes after the
// switch stay within a bound and then stop.
func TestFaultUpgradeFromRelease(t *testing.T) {
	c := needCluster(t)
	for _, r := range upgradeReleases {
		t.Run(r.short(), func(t *testing.T) { c.upgradeFrom(t, r) })
	}
}

func (c *cluster) upgradeFrom(t *testing.T, r release) {
	ctx := context.Background()
	t.Logf("release %s: %s", r.short(), r.why)
	began := time.Now()
	oldBinary, tree := releaseBuild(t, r)
	built := time.Since(began)
	u := c.freshCluster(t, "upgrade-"+r.short())

	// The release, installed and run as its own harness did.
	u.installManifests(t, filepath.Join(tree, "manifests"), true)
	u.operator.binary, u.operator.args, u.operatorVersion = oldBinary, r.args, "0.0.1-"+r.short()
	u.startOperator(t)
	out, err := u.kubectl("apply", "-f", filepath.Join(tree, "examples", "bin-packing")+"/")
	if err != nil {
		t.Fatalf("kubectl apply -f examples/bin-packing/ of %s: %v\n%s", r.short(), err, out)
	}
	ns := u.createNamespace(t, "upgrade-simulators")
	framework.RunInBackground(t, func(ctx context.Context) { u.markSimulatorPodsReady(ctx, ns) })
	for _, name := range upgradeSimulators {
		if _, err := u.admin.Operator.SimulationV1alpha1().Simulators(ns).Create(ctx,
			&simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	before := u.waitUpgradeBaseline(t, ns)
	if err := u.formerObjectsErr(ctx, r, true); err != nil {
		t.Fatalf("release %s did not make the objects this build replaces, so their removal proves nothing: %v", r.short(), err)
	}
	for _, field := range r.newStatus {
		if _, ok := before.status[field]; ok {
			t.Fatalf("release %s already wrote status.%s", r.short(), field)
		}
	}
	t.Logf("release %s converged %s after the start (its build took %s)", r.short(), time.Since(began).Round(time.Second), built.Round(time.Second))

	// The upgrade.
	stopped := time.Now()
	u.stopOperator(t)
	t.Logf("release %s stopped %s after SIGTERM", r.short(), time.Since(stopped).Round(time.Millisecond))
	u.installManifests(t, repoPath(t, "manifests"), false)
	switched := time.Now()
	u.operator.binary, u.operator.args, u.operatorVersion = c.operator.binary, c.operator.args, c.operatorVersion
	u.startOperator(t)
	u.waitUpgraded(t, r)
	for _, name := range upgradeSimulators {
		u.waitSimulatorSays(t, ns, name, "")
	}
	u.waitOperatorQuiet(t, switched, 10*time.Second)
	converged := time.Since(switched)
	d, err := u.reconciled(ctx)
	if err != nil {
		t.Fatalf("once quiet, the operator has not converged: %v", err)
	}
	after := u.upgradeState(t, ns)

	// What the upgrade wrote, as the API server counts it.
	requests := u.operatorRequests(t, switched)
	var writes []auditv1.Event
	for _, ev := range requests {
		if isWrite(ev) && !isLease(ev) {
			writes = append(writes, ev)
		}
	}
	t.Logf("FAULT upgrade from %s: converged %s after the switch; the operator's writes (leases apart): %d: %s",
		r.short(), converged.Round(time.Millisecond), len(writes), requestsByKind(writes))
	u.checkUpgradeWrites(t, writes)

	// Nothing orphaned, duplicated or left of the former layout.
	u.checkOwned(ctx, t, u.renderedOwned(t))
	if err := u.formerObjectsErr(ctx, r, false); err != nil {
		t.Fatal(err)
	}
	mounted := mountedConfigMapNames(d.Spec.Template.Spec)
	if want := names.ConfigMapNameFor(after.configHash); !slices.Equal(mounted, []string{want}) {
		t.Fatalf("the Deployment mounts the config ConfigMaps %v, want exactly %s", mounted, want)
	}
	u.checkOneSchedulerPod(ctx, t)
	u.userConfigIntact(ctx, t, before.user)

	// The scheduler rolled at most once.
	if n := after.generation - before.generation; n > 1 {
		t.Fatalf("the Deployment's generation went from %d to %d: the upgrade changed its spec %d times", before.generation, after.generation, n)
	}
	var rolled []string
	for hash := range after.replicaSets {
		if !before.replicaSets[hash] {
			rolled = append(rolled, hash)
		}
	}
	if len(rolled) > 1 {
		t.Fatalf("the upgrade made %d new ReplicaSets (pod-template-hash %v): the scheduler rolled more than once", len(rolled), rolled)
	}
	t.Logf("the scheduler's Deployment: generation %d → %d, %d new ReplicaSet(s)", before.generation, after.generation, len(rolled))

	// Simulators: still Available, each Pod replaced once (it lacked the
	// managed-by label), its Service and NetworkPolicy kept and labelled (or
	// the NetworkPolicy created, when the release made none).
	for _, name := range upgradeSimulators {
		if after.simulatorPods[name] == before.simulatorPods[name] {
			t.Errorf("Simulator %s kept its Pod of release %s, which lacks the managed-by label: docs/simulator.md says it is replaced once", name, r.short())
		}
		for _, kind := range []string{"Service", "NetworkPolicy"} {
			key := kind + "/" + name
			was, is := before.simulatorObjects[key], after.simulatorObjects[key]
			switch {
			case kind == "NetworkPolicy" && r.noSimulatorNetworkPolicy:
				if was != "" || is == "" {
					t.Errorf("Simulator %s: release %s made no NetworkPolicy, the upgrade must: UID %q before, %q after", name, r.short(), was, is)
				}
			case was == "" || is != was:
				t.Errorf("Simulator %s: %s was %q before and is %q after (UIDs): it was replaced or lost", name, kind, was, is)
			}
		}
	}
	if err := u.simulatorObjectsLabelled(ctx, ns); err != nil {
		t.Error(err)
	}

	// Status fields of this build appeared, conditions of earlier names went.
	for _, field := range r.newStatus {
		if _, ok := after.status[field]; !ok {
			t.Errorf("status.%s is missing after the upgrade: %v", field, after.status)
		}
	}
	ss, err := u.getCR(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, former := range staticresources.FormerConditionTypes {
		if cond := condition(ss.Status.Conditions, former); cond != nil {
			t.Errorf("the condition %s of earlier releases is left: %+v", former, *cond)
		}
	}
	if u.openShift {
		u.waitClusterOperatorVersion(t)
	}

	// Settled: a while later nothing has moved.
	time.Sleep(5 * time.Second)
	settled := u.upgradeState(t, ns)
	if settled.generation != after.generation || !maps.Equal(settled.simulatorPods, after.simulatorPods) {
		t.Fatalf("after converging, the Deployment went to generation %d (was %d) or Simulator Pods changed: %v → %v",
			settled.generation, after.generation, after.simulatorPods, settled.simulatorPods)
	}
	if !t.Failed() {
		t.Logf("FAULT upgrade from %s to this build: passed, %s in all (its build %s)", r.short(), time.Since(began).Round(time.Second), built.Round(time.Second))
	}
}

// waitUpgraded waits until this build has taken over from release r:
// reconciled (which r's own Deployment can pass for, its template carrying the
// same config hash), the Deployment mounting the content-named ConfigMap of
// the status's configuration, and r's former objects gone.
func (u *cluster) waitUpgraded(t *testing.T, r release) {
	t.Helper()
	ctx := context.Background()
	framework.WaitForWithin(ctx, t, reconcileTimeout, "this build to take over from "+r.short(), func() (bool, error) {
		d, err := u.reconciled(ctx)
		if err != nil {
			return false, err
		}
		ss, err := u.getCR(ctx)
		if err != nil {
			return false, err
		}
		want := names.ConfigMapNameFor(ss.Status.ConfigHash)
		if mounted := mountedConfigMapNames(d.Spec.Template.Spec); !slices.Equal(mounted, []string{want}) {
			return false, fmt.Errorf("the Deployment mounts the config ConfigMaps %v, want exactly %s", mounted, want)
		}
		if err := u.formerObjectsErr(ctx, r, false); err != nil {
			return false, err
		}
		return true, nil
	})
}
