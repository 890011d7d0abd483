package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

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
//     gone); measured 14-17 from 0a53fe0 and 8-13 from 897c0a4 over five
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
