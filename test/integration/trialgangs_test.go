package integration

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const gangScheduler = "trial-gangs"

var (
	gangWorkloads = schema.GroupVersionResource{Group: trial.GangGroup, Version: "v1beta1", Resource: "workloads"}
	gangPodGroups = schema.GroupVersionResource{Group: trial.GangGroup, Version: "v1beta1", Resource: "podgroups"}
)

// TestTrialJudgesNativeGangsAndDevices runs a trial against a live cluster
// of Kubernetes 1.37 that serves its own gangs (scheduling.k8s.io/v1beta1,
// the GenericWorkload gate) and Dynamic Resource Allocation, with the real
// kube-scheduler 1.37 in every arm. The live cluster has three nodes of 4
// CPUs, the last of them with the only GPU a ResourceSlice advertises; a
// native gang of three pods of 3 CPUs each (minCount 3) and a pod claiming
// the GPU are pending. The current configuration places all four. The
// candidate keeps the GPU's node out (NodeAffinity's addedAffinity): the gang
// no longer fits and is one unit newly unschedulable, not three, and the GPU
// pod is newly unschedulable for DynamicResources on the other nodes. Both
// ways of seeding a sandbox, through its API and into its storage, serve the
// gangs as the live cluster does. The candidate's scheduler retries the
// gang from backoff without end; the arm ends when its outcome has held
// through two of its longest backoffs.
func TestTrialJudgesNativeGangsAndDevices(t *testing.T) {
	bin := framework.Binary(t, "kube-scheduler")
	env := framework.StartForTest(t, framework.Options{WithoutOpenShiftCRDs: true, ExtraAPIServerArgs: map[string][]string{
		"runtime-config": {trial.GangGroup + "/v1beta1=true"}, "feature-gates": {"GenericWorkload=true"}}})
	ctx := context.Background()
	const ns = "ml"
	if _, err := env.Admin.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"n1", "n2", "gpu-node"} {
		capacity := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}
		node, err := env.Admin.Kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{corev1.LabelHostname: name}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		node.Status = corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}
		if node, err = env.Admin.Kube.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		// Ready, as a node lifecycle controller would leave it: admission
		// made it not-ready on create.
		node.Spec.Taints = nil
		if _, err := env.Admin.Kube.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	makeGang(t, env, ns, "train", 3)
	makeGPUPod(t, env, ns, "gpu-node")

	snap, err := trial.Take(ctx, trial.Source{Kube: env.Admin.Kube, Dynamic: env.Admin.Dynamic}, []string{gangScheduler}, trial.ReplayBounds{Pending: 10})
	if err != nil {
		t.Fatal(err)
	}
	if snap.GangVersion != "v1beta1" || len(snap.Workloads) != 1 || len(snap.PodGroups) != 1 || len(snap.Replay) != 4 {
		t.Fatalf("the snapshot holds gangs at %q, %d Workloads, %d PodGroups and replays %d pods; want v1beta1, 1, 1 and 4",
			snap.GangVersion, len(snap.Workloads), len(snap.PodGroups), len(snap.Replay))
	}
	checkGangsServed(t, env, snap)

	keepOut := `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: ` + gangScheduler + `
  pluginConfig:
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms:
          - matchExpressions:
            - {key: kubernetes.io/hostname, operator: NotIn, values: [gpu-node]}
`
	args := []string{"--feature-gates=GenericWorkload=true"}
	r, err := trial.Run(ctx, trial.Options{Snapshot: snap, Runtime: local.New(filepath.Dir(bin), t.TempDir()), Timeout: 90 * time.Second,
		Current:   trial.Arm{Name: "current", Binary: bin, Args: args, Config: framework.ScoringConfig(gangScheduler, "LeastAllocated")},
		Candidate: trial.Arm{Name: "candidate", Binary: bin, Args: args, Config: []byte(keepOut)}})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", text.String())
	for _, a := range []trial.ArmReport{r.Current, r.Rerun} {
		if a.Bound != 4 {
			t.Errorf("the %s arm bound %d pods, want all 4: the gang across the three nodes, the GPU pod on gpu-node", a.Name, a.Bound)
		}
	}
	if r.Candidate.Bound != 0 || r.Candidate.Unschedulable != 4 {
		t.Errorf("the candidate bound %d and found %d unschedulable, want 0 and 4", r.Candidate.Bound, r.Candidate.Unschedulable)
	}
	// Kubernetes 1.37 retries the gang that cannot fit from backoff without
	// end: the candidate ends on its outcome holding through the retry
	// window, well before the timeout.
	if want := "done when its pods' outcome had held for 20s"; !strings.HasPrefix(r.Candidate.Settled, want) {
		t.Errorf("the candidate arm ended %q, want %q...", r.Candidate.Settled, want)
	}
	units := map[string]trial.Unit{}
	for _, u := range r.Units {
		units[u.Name] = u
	}
	if gang := units[ns+"/train"]; !gang.Gang || gang.Pods != 3 || gang.Change != trial.NewlyUnschedulable || !strings.Contains(gang.Plugins, "GangScheduling") {
		t.Errorf("the gang's unit is %+v, want one unit of 3 pods, newly unschedulable, naming GangScheduling", gang)
	}
	if gpu := units[ns+"/gpu-job"]; gpu.Change != trial.NewlyUnschedulable || !strings.Contains(gpu.Plugins, "DynamicResources") {
		t.Errorf("the GPU pod's unit is %+v, want newly unschedulable, naming DynamicResources", gpu)
	}
	if r.Counts.Units != 2 || r.Counts.NewlyUnschedulable != 2 || r.Verdict.Allowed {
		t.Errorf("%d units, %d newly unschedulable, allowed %t; want 2 units (the gang is one), both newly unschedulable, blocked",
			r.Counts.Units, r.Counts.NewlyUnschedulable, r.Verdict.Allowed)
	}
}

// makeGang makes a native gang of pods pending for gangScheduler: a Workload
// with one PodGroup template (minCount pods), its PodGroup, and the pods,
// 3 CPUs each, naming the group in spec.schedulingGroup.
func makeGang(t *testing.T, env *framework.Env, ns, name string, pods int) {
	t.Helper()
	ctx := context.Background()
	gang := map[string]interface{}{"gang": map[string]interface{}{"minCount": int64(pods)}}
	workload := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": gangWorkloads.GroupVersion().String(), "kind": "Workload",
		"metadata": map[string]interface{}{"name": name},
		"spec":     map[string]interface{}{"podGroupTemplates": []interface{}{map[string]interface{}{"name": "workers", "schedulingPolicy": gang}}}}}
	if _, err := env.Admin.Dynamic.Resource(gangWorkloads).Namespace(ns).Create(ctx, workload, metav1.CreateOptions{}); err != nil {
		t.Fatalf("Workload %s: %v", name, err)
	}
	group := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": gangPodGroups.GroupVersion().String(), "kind": "PodGroup",
		"metadata": map[string]interface{}{"name": name},
		"spec": map[string]interface{}{"workloadRef": map[string]interface{}{"workloadName": name, "templateName": "workers"},
			"schedulingPolicy": gang}}}
	if _, err := env.Admin.Dynamic.Resource(gangPodGroups).Namespace(ns).Create(ctx, group, metav1.CreateOptions{}); err != nil {
		t.Fatalf("PodGroup %s: %v", name, err)
	}
	for i := range pods {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-" + string(rune('0'+i))}, Spec: corev1.PodSpec{SchedulerName: gangScheduler,
			SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: ptr.To(name)},
			Containers: []corev1.Container{{Name: "worker", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}}}}
		created, err := env.Admin.Kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if created.Spec.SchedulingGroup == nil {
			t.Fatal("the live cluster dropped the pod's spec.schedulingGroup: it does not serve native gangs")
		}
	}
}

// makeGPUPod makes a ResourceSlice advertising one GPU on node, its
// DeviceClass, and a pod pending for gangScheduler with a claim on it.
func makeGPUPod(t *testing.T, env *framework.Env, ns, node string) {
	t.Helper()
	ctx := context.Background()
	dra := env.Admin.Kube.ResourceV1()
	const driver = "gpu.example.com"
	if _, err := dra.DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "` + driver + `"`}}}}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dra.ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: node + "-gpu"},
		Spec: resourcev1.ResourceSliceSpec{Driver: driver, Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1}, NodeName: ptr.To(node),
			Devices: []resourcev1.Device{{Name: "gpu-0"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := dra.ResourceClaims(ns).Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "gpu-job"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu"}}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Admin.Kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "gpu-job"}, Spec: corev1.PodSpec{
		SchedulerName:  gangScheduler,
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("gpu-job")}},
		Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}, Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}}}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// checkGangsServed: a sandbox seeded into its storage and one seeded through
// its API serve the Workload and PodGroup as the live cluster's GET gives
// them, less what the snapshot trims.
func checkGangsServed(t *testing.T, env *framework.Env, snap *trial.Snapshot) {
	t.Helper()
	var objects []storedObject
	for _, o := range snap.Workloads {
		objects = append(objects, storedObject{gvr: gangWorkloads, namespace: o.GetNamespace(), name: o.GetName()})
	}
	for _, o := range snap.PodGroups {
		objects = append(objects, storedObject{gvr: gangPodGroups, namespace: o.GetNamespace(), name: o.GetName()})
	}
	gangsOnly := &trial.Snapshot{Namespaces: snap.Namespaces, Workloads: snap.Workloads, PodGroups: snap.PodGroups, GangVersion: snap.GangVersion}
	checkServedAsLive(t, env, gangsOnly, objects)
}
