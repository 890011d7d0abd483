package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// fidelityPods is how many pods with a volume the live cluster holds bound.
const fidelityPods = 3

const (
	// fidelityClass is the StorageClass of their volumes.
	fidelityClass = "e2e-fidelity-manual"
	// fidelityRole labels the anchor and the spread pods.
	fidelityRole = "e2e.fidelity/role"
)

// TestTrialFidelity measures a trial's copy against the live cluster, with
// the real kube-scheduler in local sandboxes. Pods of ours are bound as a
// scheduler would have: fidelityPods to one node, each with a claim of a
// StorageClass bound (by the live PV controller) to a volume only that node
// reaches; one with a required affinity to an anchor pod on another node;
// two under a DoNotSchedule topology spread by hostname, on two nodes.
//
//   - The snapshot as taken: the current arm places every recently bound pod
//     (placedPercent 100), each of ours where the constraints that bound it
//     allow: the volume's node, the anchor's node, the spread kept.
//   - The same snapshot without its PersistentVolumeClaims (the test's
//     switch: the kind removed from the snapshot, as a kind a trial did not
//     copy would be): the current arm cannot place them, and a change that
//     changes nothing is Inconclusive, naming each of them with the
//     scheduler's reason, under the default floor of 95%.
func TestTrialFidelity(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	ns := c.createNamespace(t, "e2e-fidelity")
	nodes, err := c.admin.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) < 2 {
		t.Fatalf("the stack's nodes: %v", err)
	}
	node := nodes.Items[0].Name
	c.createStorageClass(t, fidelityClass)
	var ours []string
	for i := range fidelityPods {
		ours = append(ours, c.createPodWithLocalVolume(t, ns, fmt.Sprintf("with-volume-%d", i), node))
	}
	anchorNode := nodes.Items[1].Name
	c.createConstrainedPod(t, ns, "anchor", anchorNode, "default-scheduler", map[string]string{fidelityRole: "anchor"}, nil)
	c.createConstrainedPod(t, ns, "with-affinity", anchorNode, "secondary-scheduler", nil, &corev1.PodSpec{Affinity: &corev1.Affinity{
		PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{fidelityRole: "anchor"}}, TopologyKey: corev1.LabelHostname}}}}})
	spread := &corev1.PodSpec{TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelHostname,
		WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{fidelityRole: "spread"}}}}}
	for i, n := range []string{nodes.Items[1].Name, nodes.Items[2%len(nodes.Items)].Name} {
		c.createConstrainedPod(t, ns, fmt.Sprintf("spread-%d", i), n, "secondary-scheduler", map[string]string{fidelityRole: "spread"}, spread)
	}
	snap, err := trial.Take(ctx, trial.Source{Kube: c.admin.Kube, Dynamic: c.admin.Dynamic}, []string{"secondary-scheduler"},
		trial.ReplayBounds{Bound: 100})
	if err != nil {
		t.Fatalf("the snapshot: %v", err)
	}
	for _, p := range ours {
		if snap.LiveNodes[p] != node {
			t.Fatalf("the snapshot's live nodes %v: want %s on %s", snap.LiveNodes, p, node)
		}
	}

	t.Run("the copy places every recently bound pod", func(t *testing.T) {
		r := runSameConfiguration(t, snap)
		f := r.Fidelity
		if f.PlacedPercent == nil || *f.PlacedPercent != 100 || r.Verdict.Inconclusive || !r.Verdict.Allowed {
			t.Fatalf("fidelity %+v, verdict %+v: want every one of the %d bound pods placed and the trial allowed", f, r.Verdict, len(snap.LiveNodes))
		}
		// Each of ours only where what bound it allows.
		placed := map[string]string{}
		for _, p := range r.Pods {
			if strings.HasPrefix(p.Pod, ns+"/") {
				placed[strings.TrimPrefix(p.Pod, ns+"/")] = p.Current.Node
			}
		}
		for _, p := range ours {
			if got := placed[strings.TrimPrefix(p, ns+"/")]; got != node {
				t.Errorf("pod %s placed on %q, want %s, the only node its volume reaches", p, got, node)
			}
		}
		if got := placed["with-affinity"]; got != anchorNode {
			t.Errorf("the pod with a required affinity to the anchor placed on %q, want the anchor's node %s", got, anchorNode)
		}
		if a, b := placed["spread-0"], placed["spread-1"]; a == "" || a == b {
			t.Errorf("the spread pods placed on %q and %q: want two nodes (maxSkew 1 by hostname)", a, b)
		}
		t.Logf("fidelity: %s; ours placed %v", r.Verdict.Message, placed)
	})

	t.Run("without its claims the copy places none of them: inconclusive", func(t *testing.T) {
		noClaims := *snap
		noClaims.PVCs = nil // the switch
		r := runSameConfiguration(t, &noClaims)
		f := r.Fidelity
		if !r.Verdict.Inconclusive || r.Verdict.Allowed || f.Placed > f.Bound-fidelityPods {
			t.Fatalf("fidelity %+v, verdict %+v: want inconclusive, %d bound pods not placed", f, r.Verdict, fidelityPods)
		}
		for _, p := range ours {
			if !strings.Contains(r.Verdict.Message, p+" (live on "+node+"): ") {
				t.Errorf("the verdict does not name %s: %s", p, r.Verdict.Message)
			}
		}
		if !strings.Contains(r.Verdict.Message, `persistentvolumeclaim "`) || !strings.Contains(r.Verdict.Message, "at least 95% required") {
			t.Errorf("the verdict does not give the scheduler's reason and the floor: %s", r.Verdict.Message)
		}
		t.Logf("without claims: %s", r.Verdict.Message)
	})
}

// runSameConfiguration runs a trial of snap whose candidate is the current
// configuration (the default plugins), with the default fidelity floor.
func runSameConfiguration(t *testing.T, snap *trial.Snapshot) *trial.Report {
	t.Helper()
	bin := framework.Binary(t, "kube-scheduler")
	arm := trial.Arm{Name: "current", Binary: bin, Config: defaultProfile("")}
	candidate := arm
	candidate.Name = "candidate"
	start := time.Now()
	r, err := trial.Run(context.Background(), trial.Options{Snapshot: snap, Runtime: local.New(filepath.Dir(bin), t.TempDir()),
		Current: arm, Candidate: candidate, Timeout: time.Minute, Gate: trial.Gate{MinFidelityPercent: 95}})
	if err != nil {
		t.Fatalf("the trial: %v", err)
	}
	t.Logf("trial after %s: %s", time.Since(start).Round(100*time.Millisecond), r.Verdict.Message)
	return r
}

// createPodWithLocalVolume creates a pod of ours bound to node (as if our
// scheduler had bound it) with a claim that the live PV controller binds to a
// local volume reachable from node alone, and returns "namespace/name".
func (c *cluster) createPodWithLocalVolume(t *testing.T, ns, name, node string) string {
	t.Helper()
	ctx := context.Background()
	core := c.admin.Kube.CoreV1()
	class, pvName := fidelityClass, ns+"-"+name
	size := corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: pvName}, Spec: corev1.PersistentVolumeSpec{
		Capacity: size, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: class,
		PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
		PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/" + name}},
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			// As local volume provisioners write it: a node's hostname label.
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}},
	}}
	if _, err := core.PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = core.PersistentVolumes().Delete(context.Background(), pvName, metav1.DeleteOptions{}) })
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: pv.Spec.AccessModes, StorageClassName: &class, VolumeName: pvName, Resources: corev1.VolumeResourceRequirements{Requests: size}}}
	if _, err := core.PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := core.PersistentVolumeClaims(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && got.Status.Phase == corev1.ClaimBound, err
	})
	if err != nil {
		t.Fatalf("claim %s/%s not bound to %s by the PV controller: %v", ns, name, pvName, err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.PodSpec{
		SchedulerName: "secondary-scheduler", NodeName: node,
		Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
			VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
		Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}},
	}}
	if _, err := core.Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return ns + "/" + name
}

// createStorageClass creates a StorageClass of statically provisioned
// volumes bound at first use, as local volumes are.
func (c *cluster) createStorageClass(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "kubernetes.io/no-provisioner",
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)}
	if _, err := c.admin.Kube.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.admin.Kube.StorageV1().StorageClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

// createConstrainedPod creates a pod bound to node, as schedulerName would
// have bound it, with labels and the affinity and spread constraints of spec.
func (c *cluster) createConstrainedPod(t *testing.T, ns, name, node, schedulerName string, labels map[string]string, spec *corev1.PodSpec) {
	t.Helper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Spec: corev1.PodSpec{
		SchedulerName: schedulerName, NodeName: node,
		Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}}},
	}}
	if spec != nil {
		pod.Spec.Affinity, pod.Spec.TopologySpreadConstraints = spec.Affinity, spec.TopologySpreadConstraints
	}
	if _, err := c.admin.Kube.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
