package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
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

// upgradeSnapshot is what an upgrade test compares before and after.
type upgradeSnapshot struct {
	generation int64
	// replicaSets holds the pod-template-hash of each ReplicaSet of the Deployment.
	replicaSets map[string]bool
	// simulatorPods maps each Simulator to the UID of its live Pod, and
	// simulatorObjects "kind/name" of its Service and NetworkPolicy to UIDs.
	simulatorPods, simulatorObjects map[string]string
	// status is the SecondaryScheduler's status as JSON fields.
	status     map[string]json.RawMessage
	configHash string
	user       *corev1.ConfigMap
}

// waitUpgradeBaseline waits until the release under test has rolled out the
// scheduler, made the Simulators of ns Available, and sent no request
// beyond lease renewals and watches for 5 s, and returns the state then.
// Only what every release writes is checked: the Deployment and the
// Simulators' phase.
func (u *cluster) waitUpgradeBaseline(t *testing.T, ns string) *upgradeSnapshot {
	t.Helper()
	ctx := context.Background()
	since := time.Now()
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the release's scheduler Deployment to roll out", func() (bool, error) {
		d, err := u.admin.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if err := rolledOut(d); err != nil {
			return false, err
		}
		return true, nil
	})
	for _, name := range upgradeSimulators {
		u.waitSimulatorSays(t, ns, name, "")
	}
	u.waitOperatorQuiet(t, since, 5*time.Second)
	s := u.upgradeState(t, ns)
	ss, err := u.getCR(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.user, err = u.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, ss.Spec.SchedulerConfig, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the user's ConfigMap %q: %v", ss.Spec.SchedulerConfig, err)
	}
	return s
}

// rolledOut fails while a Deployment has not rolled out its generation.
func rolledOut(d *appsv1.Deployment) error {
	s, replicas := d.Status, ptr.Deref(d.Spec.Replicas, 1)
	if s.ObservedGeneration < d.Generation || s.UpdatedReplicas != replicas || s.Replicas != replicas || s.AvailableReplicas != replicas {
		return fmt.Errorf("generation %d observed %d, %d replicas, %d updated, %d available, want %d",
			d.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.AvailableReplicas, replicas)
	}
	return nil
}

// upgradeState reads the snapshot's fields (user apart).
func (u *cluster) upgradeState(t *testing.T, ns string) *upgradeSnapshot {
	t.Helper()
	ctx := context.Background()
	kube := u.admin.Kube
	s := &upgradeSnapshot{replicaSets: map[string]bool{}, simulatorPods: map[string]string{}, simulatorObjects: map[string]string{}}
	d, err := kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.generation = d.Generation
	rss, err := kube.AppsV1().ReplicaSets(names.OperandNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range rss.Items {
		if ref := metav1.GetControllerOf(&rs); ref != nil && ref.UID == d.UID {
			s.replicaSets[rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]] = true
		}
	}
	for _, name := range upgradeSimulators {
		pod, err := u.onlySimulatorPod(ctx, ns, name)
		if err != nil {
			t.Fatal(err)
		}
		s.simulatorPods[name] = string(pod.UID)
		if svc, err := kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{}); err == nil {
			s.simulatorObjects["Service/"+name] = string(svc.UID)
		}
		if np, err := kube.NetworkingV1().NetworkPolicies(ns).Get(ctx, name, metav1.GetOptions{}); err == nil {
			s.simulatorObjects["NetworkPolicy/"+name] = string(np.UID)
		}
	}
	raw, err := u.kubectl("get", "secondaryscheduler", crName, "-o", "jsonpath={.status}")
	if err != nil {
		t.Fatalf("the SecondaryScheduler's status: %v\n%s", err, raw)
	}
	if err := json.Unmarshal([]byte(raw), &s.status); err != nil {
		t.Fatalf("the SecondaryScheduler's status %q: %v", raw, err)
	}
	_ = json.Unmarshal(s.status["configHash"], &s.configHash)
	return s
}

// formerObjectsErr checks the objects release r made that this build
// replaces: with present, that they are there (the bindings to the system
// scheduler roles, and with r.formerConfigMap the operator's mutable
// secondary-scheduler-config); otherwise, that they are gone.
func (u *cluster) formerObjectsErr(ctx context.Context, r release, present bool) error {
	var problems []string
	check := func(what string, err error) {
		switch {
		case err != nil && !apierrors.IsNotFound(err):
			problems = append(problems, fmt.Sprintf("%s: %v", what, err))
		case present && err != nil:
			problems = append(problems, what+" is missing")
		case !present && err == nil:
			problems = append(problems, what+" is left")
		}
	}
	for _, name := range names.FormerOperandBindingNames {
		_, err := u.admin.Kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{})
		check("ClusterRoleBinding "+name, err)
	}
	if r.formerConfigMap || !present {
		_, err := u.admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, names.ConfigMapName, metav1.GetOptions{})
		check("ConfigMap "+names.ConfigMapName, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// renderedOwned names, as ownedObjects does, what this build renders for the
// SecondaryScheduler as it is now with the operator's label, in the operand
// namespace or cluster-wide (ownedObjects looks nowhere else).
func (u *cluster) renderedOwned(t *testing.T) []string {
	t.Helper()
	_, want, err := u.render(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var owned []string
	for _, obj := range want.All() {
		switch o := obj.(type) {
		case *corev1.Namespace, *corev1.ConfigMap:
		case metav1.Object:
			if ns := o.GetNamespace(); ns != "" && ns != names.OperandNamespace {
				continue
			}
			if o.GetLabels()[names.ManagedByLabel] == names.ManagedByValue {
				owned = append(owned, obj.GetObjectKind().GroupVersionKind().Kind+"/"+o.GetName())
			}
		}
	}
	sort.Strings(owned)
	return owned
}

// mountedConfigMapNames are the config ConfigMaps (by name) a pod spec mounts.
func mountedConfigMapNames(spec corev1.PodSpec) []string {
	var mounted []string
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil && names.IsConfigMapName(v.ConfigMap.Name) {
			mounted = append(mounted, v.ConfigMap.Name)
		}
	}
	return mounted
}

// simulatorObjectsLabelled fails unless every Pod, Service and NetworkPolicy
// of ns carries the operator's managed-by label.
func (u *cluster) simulatorObjectsLabelled(ctx context.Context, ns string) error {
	kube := u.admin.Kube
	var missing []string
	check := func(kind string, o metav1.Object) {
		if o.GetDeletionTimestamp() == nil && o.GetLabels()[names.ManagedByLabel] != names.ManagedByValue {
			missing = append(missing, kind+"/"+o.GetName())
		}
	}
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range pods.Items {
		check("Pod", &pods.Items[i])
	}
	svcs, err := kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range svcs.Items {
		check("Service", &svcs.Items[i])
	}
	nps, err := kube.NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range nps.Items {
		check("NetworkPolicy", &nps.Items[i])
	}
	if len(missing) > 0 {
		return fmt.Errorf("Simulator objects without %s=%s after the upgrade: %v", names.ManagedByLabel, names.ManagedByValue, missing)
	}
	return nil
}

// Bounds on what the upgraded operator writes, leases and events apart (a
// storm is writes that do not stop or repeat without a change; that the
// operator falls quiet for 10 s is checked before this count):
//   - an object (not its status) is written at most twice: the one write the
//     upgrade needs, and one more after a conflict (a create that finds an
//     object of the earlier release, then the update that labels it);
//   - the SecondaryScheduler's status at most 24 times: seven controllers
//     each write their own fields (conditions, fields new to this build) once
//     or twice, and the operand status follows the scheduler's one rollout
//     step by step (new ReplicaSet, its pod scheduled and ready, the old pod
//     gone); measured 14-17 from 0a53fe0 and 8-12 from 897c0a4 over four
//     runs, and a loaded machine shows more intermediate states;
//   - the ClusterOperator's status at most 16 times: library-go's status
//     controller rewrites it when a roll-up of those conditions moves, and
//     retries a conflict with its own earlier write; measured 5-11;
//   - a Simulator's status at most 3 times: its Pod replaced (Creating),
//     then Available.
const (
	maxObjectWrites                   = 2
	maxSecondarySchedulerStatusWrites = 24
	maxClusterOperatorStatusWrites    = 16
	maxSimulatorStatusWrites          = 3
)

// checkUpgradeWrites holds the upgraded operator's writes to the bounds above.
func (u *cluster) checkUpgradeWrites(t *testing.T, writes []auditv1.Event) {
	t.Helper()
	perObject := map[string]int{}
	for _, ev := range writes {
		if ev.ObjectRef == nil || ev.ObjectRef.Resource == "events" {
			continue
		}
		key := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			key += "/" + ev.ObjectRef.Subresource
		}
		perObject[key+" "+ev.ObjectRef.Namespace+"/"+ev.ObjectRef.Name]++
	}
	var over []string
	for key, n := range perObject {
		limit := maxObjectWrites
		switch resource, _, _ := strings.Cut(key, " "); resource {
		case "secondaryschedulers/status":
			limit = maxSecondarySchedulerStatusWrites
		case "clusteroperators/status":
			limit = maxClusterOperatorStatusWrites
		case "simulators/status":
			limit = maxSimulatorStatusWrites
		}
		if n > limit {
			over = append(over, fmt.Sprintf("%s: %d (at most %d)", key, n, limit))
		}
	}
	sort.Strings(over)
	if len(over) > 0 {
		t.Fatalf("the upgraded operator wrote more than the upgrade needs: %v", over)
	}
	t.Logf("the upgraded operator wrote %d objects: %v", len(perObject), perObject)
}

// runCommand runs a command and returns its combined output.
func runCommand(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// freshCluster starts a control plane of its own (hack/controlplane/start.sh,
// one kwok node) in the run's directory under name, stopped when the test
// ends, and returns it described as the suite's cluster is, with no operator
// running yet: its address, kubeconfig (the operator's ServiceAccount's
// token, once manifests are installed), log and pid file are set.
func (c *cluster) freshCluster(t *testing.T, name string) *cluster {
	t.Helper()
	dir := filepath.Join(c.dir, name)
	out, err := runCommand(repoPath(t, "hack", "controlplane", "start.sh"), filepath.Join(dir, "cluster"), "--nodes", "1")
	if err != nil {
		t.Fatalf("starting a control plane for %s: %v\n%s", name, err, out)
	}
	t.Logf("%s", lastLine(out))
	t.Cleanup(func() {
		if out, err := runCommand(repoPath(t, "hack", "controlplane", "stop.sh"), filepath.Join(dir, "cluster")); err != nil {
			t.Logf("stopping the control plane of %s: %v\n%s", name, err, out)
		}
	})
	env := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, "cluster", "env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok {
			env[k] = strings.Trim(v, `'"`)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	address := l.Addr().String()
	l.Close()
	u := &cluster{
		kubeconfig:      env["KUBECONFIG"],
		bin:             c.bin,
		adminCert:       filepath.Join(dir, "cluster", "pki", "admin.crt"),
		adminKey:        filepath.Join(dir, "cluster", "pki", "admin.key"),
		operatorAddress: address,
		openShift:       c.openShift,
		dir:             dir,
		auditLog:        env["CONTROLPLANE_AUDIT_LOG"],
		controlPlaneDir: env["CONTROLPLANE_DIR"],
		operator: operatorProcess{
			kubeconfig: filepath.Join(dir, "operator.kubeconfig"),
			log:        filepath.Join(dir, "operator.log"),
			pidFile:    filepath.Join(dir, "operator.pid"),
		},
	}
	if u.config, err = clientcmd.BuildConfigFromFlags("", u.kubeconfig); err != nil {
		t.Fatal(err)
	}
	u.config.QPS, u.config.Burst = 50, 100
	if u.admin, err = framework.NewClients(u.config); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := os.Stat(u.operator.pidFile); err == nil && u.operatorAlive(t) {
			u.killOperator(t)
		}
	})
	return u
}

// installManifests installs manifests as hack/lib/local.sh does: `kubectl
// apply -f` the directory; on OpenShift also the config CRDs and from its
// optional/ the ClusterOperator and, with createCR, the default
// SecondaryScheduler, which is create-only: an upgrade does not apply it
// again. The first install also writes the operator's kubeconfig.
func (u *cluster) installManifests(t *testing.T, manifests string, createCR bool) {
	t.Helper()
	u.mustKubectl(t, "apply", "-f", manifests+"/")
	if u.openShift {
		crds, err := os.ReadFile(repoPath(t, "hack", "openshift-crds.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(crds), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				u.mustKubectl(t, "apply", "-f", repoPath(t, "vendor", "github.com", "openshift", "api", "config", "v1", "zz_generated.crd-manifests", line))
			}
		}
		u.mustKubectl(t, "wait", "--for=condition=Established", "--timeout=60s", "crd/clusteroperators.config.openshift.io")
		u.mustKubectl(t, "apply", "-f", filepath.Join(manifests, "optional", "0000_50_secondary-scheduler-operator_09_clusteroperator.yaml"))
		if createCR {
			u.mustKubectl(t, "create", "-f", filepath.Join(manifests, "optional", "0000_50_secondary-scheduler-operator_10_secondaryscheduler.cr.yaml"))
		}
	}
	if _, err := os.Stat(u.operator.kubeconfig); err == nil {
		return
	}
	token := u.operatorToken(t)
	config := clientcmdapi.NewConfig()
	config.Clusters["local"] = &clientcmdapi.Cluster{Server: u.config.Host, CertificateAuthorityData: u.config.CAData, CertificateAuthority: u.config.CAFile}
	config.AuthInfos["operator"] = &clientcmdapi.AuthInfo{Token: token}
	config.Contexts["operator"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "operator"}
	config.CurrentContext = "operator"
	if err := clientcmd.WriteToFile(*config, u.operator.kubeconfig); err != nil {
		t.Fatal(err)
	}
}

func (u *cluster) mustKubectl(t *testing.T, args ...string) {
	t.Helper()
	if out, err := u.kubectl(args...); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// stopOperator stops the operator as a Deployment rollout does: SIGTERM,
// then it releases its lease and exits (SIGKILL after 60 s, and the test fails).
func (u *cluster) stopOperator(t *testing.T) {
	t.Helper()
	pid := u.operator.pid(t)
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM to the operator (pid %d): %v", pid, err)
	}
	deadline := time.Now().Add(time.Minute)
	for syscall.Kill(pid, 0) == nil && !isZombie(pid) {
		if time.Now().After(deadline) {
			killProcess(t, pid)
			t.Fatalf("the operator (pid %d) was still up a minute after SIGTERM", pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func isZombie(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	fields := strings.Fields(string(data))
	return err == nil && len(fields) > 2 && fields[2] == "Z"
}

// waitClusterOperatorVersion waits until the ClusterOperator reports the
// running operator's version.
func (c *cluster) waitClusterOperatorVersion(t *testing.T) {
	t.Helper()
	framework.WaitFor(context.Background(), t, "the ClusterOperator to report version "+c.operatorVersion, func() (bool, error) {
		out, err := c.kubectl("get", "clusteroperator", "secondary-scheduler", "-o", `jsonpath={.status.versions[?(@.name=="operator")].version}`)
		if err != nil || out != c.operatorVersion {
			return false, fmt.Errorf("%q (%v)", out, err)
		}
		return true, nil
	})
}
