package trial

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// devicePods is a cluster using devices and native gangs, as the live
// objects: in namespace ml, a pending pod of ours in a gang with a named
// claim (pending-claim, which some earlier attempt left allocated), a pod
// of ours bound recently with a claim made from a template (recent-gpu), and
// the claim the scheduler made for its extended resources (recent-ext);
// another scheduler's pod bound with its own claim (theirs-claim) and one
// it shares with the recent pod (shared).
func devicePods() []runtime.Object {
	claimed := func(p corev1.Pod, claims ...corev1.PodResourceClaim) *corev1.Pod {
		p.Spec.ResourceClaims = claims
		p.Spec.Containers = []corev1.Container{{Name: "c", Image: "app:1", Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: claims[0].Name}}}}}
		return &p
	}
	named := func(name, claim string) corev1.PodResourceClaim {
		return corev1.PodResourceClaim{Name: name, ResourceClaimName: ptr.To(claim)}
	}
	pending := claimed(pendingPods("ml", 1)[0], named("gpu", "pending-claim"))
	pending.Name = "worker-0"
	pending.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("training")}
	recent := claimed(boundPod("ml", "recent", 5), corev1.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: ptr.To("gpu")}, named("shared", "shared"))
	recent.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("recent-gpu")}}
	theirs := claimed(boundPod("ml", "theirs", 5), named("gpu", "theirs-claim"), named("shared", "shared"))
	theirs.Spec.SchedulerName = "default-scheduler"
	claim := func(name string, status resourcev1.ResourceClaimStatus, owner string) *resourcev1.ResourceClaim {
		c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: name},
			Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{gpuRequest}}}, Status: status}
		if owner != "" {
			c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: owner, UID: types.UID("live-" + owner), Controller: ptr.To(true)}}
		}
		return c
	}
	shared := allocated("theirs")
	shared.ReservedFor = append(shared.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: "recent", UID: "live-recent"})
	ext := claim("recent-ext", allocated("recent"), "recent")
	ext.Annotations = map[string]string{extendedResourceClaimAnnotation: "true"}
	return []runtime.Object{pending, recent, theirs,
		claim("pending-claim", allocated("worker-0"), ""), claim("recent-gpu", allocated("recent"), "recent"), ext,
		claim("theirs-claim", allocated("theirs"), ""), claim("shared", shared, ""),
		&resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "gpu"}},
		&resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}},
		&resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "node-1-gpu"}, Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: ptr.To("n")}},
	}
}

// deviceGangs are the gangs of devicePods' cluster: the group worker-0 is
// in (training) and another, both scheduled, and training's Workload.
func deviceGangs() []unstructured.Unstructured {
	scheduled := func(g unstructured.Unstructured) unstructured.Unstructured {
		g.Object["status"] = map[string]interface{}{"conditions": []interface{}{map[string]interface{}{"type": "PodGroupScheduled",
			"status": "True", "reason": "Scheduled", "message": "all placed", "lastTransitionTime": "1970-01-01T00:16:40Z"}}}
		return g
	}
	return []unstructured.Unstructured{gangObject("Workload", "ml", "training"),
		scheduled(gangObject("PodGroup", "ml", "training")), scheduled(gangObject("PodGroup", "ml", "done"))}
}

// deviceCluster is devicePods' cluster, serving Kubernetes' own gangs.
func deviceCluster() Source {
	kube, dyn := gangCluster(devicePods(), deviceGangs()...)
	return Source{Kube: kube, Dynamic: dyn}
}

// A cluster that serves Dynamic Resource Allocation and native gangs: the
// pods with claims and in a gang are replayed with them; the claims only
// replayed pods use are copied unallocated, so that each arm allocates
// them, those of bound pods keep their devices, and the gang whose pods are
// replayed loses its conditions.
func TestTakeCopiesClaimsAndGangs(t *testing.T) {
	s, err := take(context.Background(), deviceCluster(), []string{"ours"}, ReplayBounds{Pending: 10, Bound: 10}, MaxSnapshotBytes)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(podKeys(s.Replay), ","); got != "ml/recent,ml/worker-0" {
		t.Fatalf("replayed %s, want ml/recent,ml/worker-0: pods with claims and in a gang are replayed", got)
	}
	for _, p := range s.Replay {
		if len(p.Spec.ResourceClaims) == 0 || len(p.Spec.Containers[0].Resources.Claims) == 0 {
			t.Errorf("replayed pod %s lost its claims: %+v", p.Name, p.Spec)
		}
	}
	if names := podClaimNames(&s.Replay[0]); strings.Join(names, ",") != "recent-gpu,shared" {
		t.Errorf("the recent pod's claims resolve to %v, want recent-gpu (from its status) and shared", names)
	}
	if podGroupName(&s.Replay[1]) != "training" {
		t.Errorf("worker-0 lost its scheduling group: %+v", s.Replay[1].Spec.SchedulingGroup)
	}
	bound := decodeAll(t, s.Pods)
	if len(bound) != 1 || bound[0].Name != "theirs" || len(bound[0].Spec.ResourceClaims) != 2 {
		t.Errorf("bound pods %+v, want theirs with its 2 claims", bound)
	}

	claims := map[string]resourcev1.ResourceClaim{}
	for _, c := range s.ResourceClaims {
		claims[c.Name] = c
	}
	for name, want := range map[string]struct {
		allocated   bool
		reservedFor string
	}{
		"pending-claim": {false, ""},      // a replayed pod's: allocated again by each arm
		"recent-gpu":    {false, ""},      // made from a template for a replayed pod, likewise
		"theirs-claim":  {true, "theirs"}, // a bound pod's: its devices stay in use
		"shared":        {true, "theirs"}, // a bound pod's too, without the replayed pod's reservation
	} {
		c, ok := claims[name]
		if !ok {
			t.Errorf("claim %s not copied", name)
			continue
		}
		var reserved []string
		for _, r := range c.Status.ReservedFor {
			reserved = append(reserved, r.Name)
		}
		if (c.Status.Allocation != nil) != want.allocated || strings.Join(reserved, ",") != want.reservedFor {
			t.Errorf("claim %s: allocated %t, reserved for %v; want %t, %q", name, c.Status.Allocation != nil, reserved, want.allocated, want.reservedFor)
		}
	}
	if _, ok := claims["recent-ext"]; ok || len(claims) != 4 {
		t.Errorf("%d claims, recent-ext among them: %t; want the one made for a replayed pod's extended resources dropped (each arm makes its own)",
			len(claims), ok)
	}
	if len(s.DeviceClasses) != 1 || len(s.ResourceSlices) != 1 || len(s.ResourceClaimTemplates) != 1 || len(s.Workloads) != 1 || len(s.PodGroups) != 2 {
		t.Errorf("copied %d DeviceClasses, %d ResourceSlices, %d templates, %d Workloads, %d PodGroups; want 1, 1, 1, 1, 2",
			len(s.DeviceClasses), len(s.ResourceSlices), len(s.ResourceClaimTemplates), len(s.Workloads), len(s.PodGroups))
	}
	for _, g := range s.PodGroups {
		conditions, _, _ := unstructured.NestedSlice(g.Object, "status", "conditions")
		if replayed := g.GetName() == "training"; replayed != (len(conditions) == 0) {
			t.Errorf("PodGroup %s has conditions %v; want them cleared only for the group whose pods are replayed", g.GetName(), conditions)
		}
		if g.GetAPIVersion() != "scheduling.k8s.io/v1beta1" || s.GangVersion != "v1beta1" {
			t.Errorf("PodGroup %s copied at %s (gangVersion %q), want the version the cluster serves, v1beta1", g.GetName(), g.GetAPIVersion(), s.GangVersion)
		}
	}
	for _, g := range s.PodGroups {
		if c, _, _ := unstructured.NestedSlice(g.Object, "status", "conditions"); g.GetName() == "done" && (len(c) != 1 || c[0].(map[string]interface{})["message"] != nil) {
			t.Errorf("PodGroup done keeps conditions %v; want its one condition without its message", c)
		}
	}
	if len(s.Sampled) != 1 || s.Sampled[0].LeftOut != 0 {
		t.Errorf("sampled %+v, want nothing left out", s.Sampled)
	}
}

// A cluster that does not serve resource.k8s.io or gangs (a 404 on the
// list, and no gangs in its discovery), or does not let the operator read
// one of their kinds (a 403): none of that API is copied, and the pods naming a claim or a
// gang are left out of the replay set, and kept bound without them.
func TestTakeWithoutClaimsOrGangs(t *testing.T) {
	dra := []string{"deviceclasses", "resourceslices", "resourceclaimtemplates", "resourceclaims"}
	gangs := []string{"workloads", "podgroups"}
	for _, tc := range []struct {
		name            string
		gangsDiscovered bool
		refuse          []string
		err             func(resource string) error
	}{
		{"not served", false, dra, func(r string) error {
			return apierrors.NewNotFound(schema.GroupResource{Resource: r}, "")
		}},
		{"discovered, but a 404 on the list", true, append(dra, gangs...), func(r string) error {
			return apierrors.NewNotFound(schema.GroupResource{Resource: r}, "")
		}},
		{"not allowed to read one kind of each", true, []string{"resourceclaims", "podgroups"}, func(r string) error {
			return apierrors.NewForbidden(schema.GroupResource{Resource: r}, "", fmt.Errorf("RBAC"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube, dyn := gangCluster(devicePods(), deviceGangs()...)
			if !tc.gangsDiscovered {
				kube.Resources = nil
			}
			for _, r := range tc.refuse {
				refuse := func(clienttesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err(r) }
				kube.PrependReactor("list", r, refuse)
				dyn.PrependReactor("list", r, refuse)
			}
			s, err := take(context.Background(), Source{Kube: kube, Dynamic: dyn}, []string{"ours"}, ReplayBounds{Pending: 10, Bound: 10}, MaxSnapshotBytes)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(s.DeviceClasses) + len(s.ResourceSlices) + len(s.ResourceClaimTemplates) + len(s.ResourceClaims) + len(s.Workloads) + len(s.PodGroups); n != 0 || s.GangVersion != "" {
				t.Errorf("%d objects of the APIs copied, gangVersion %q; want none", n, s.GangVersion)
			}
			if len(s.Replay) != 0 || len(s.Sampled) != 1 || s.Sampled[0].LeftOut != 2 {
				t.Errorf("replayed %v, sampled %+v; want none replayed, the 2 pods of ours left out", podKeys(s.Replay), s.Sampled)
			}
			for _, p := range decodeAll(t, s.Pods) {
				if len(p.Spec.ResourceClaims) != 0 || len(p.Spec.Containers[0].Resources.Claims) != 0 || p.Spec.SchedulingGroup != nil {
					t.Errorf("bound pod %s keeps what the snapshot lacks: %+v", p.Name, p.Spec)
				}
			}
		})
	}
}

// The objects of the new kinds count toward the snapshot's bound.
func TestTakeCountsResourceSlices(t *testing.T) {
	var objects []runtime.Object
	for i := range 20 {
		slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("slice-", i)}, Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com"}}
		for j := range 100 {
			slice.Spec.Devices = append(slice.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("gpu-%03d", j),
				Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"uuid": {StringValue: ptr.To(strings.Repeat("u", 36))}}})
		}
		objects = append(objects, slice)
	}
	_, err := take(context.Background(), Source{Kube: fake.NewClientset(objects...)}, []string{"ours"}, ReplayBounds{}, 64<<10)
	if err == nil || !strings.Contains(err.Error(), "reached while reading resourceslices") {
		t.Errorf("20 ResourceSlices of 100 devices under a 64 KiB bound: got %v, want the bound reached", err)
	}
}

// A sandbox that does not serve a kind the snapshot holds is refused, by
// the kind's name, rather than seeded without it.
func TestSeedRefusesKindsNotServed(t *testing.T) {
	claim := resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "c"}}
	group := gangObject("PodGroup", "ml", "g")
	inGroup := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ml", Name: "p"},
		Spec: corev1.PodSpec{SchedulingGroup: &corev1.PodSchedulingGroup{PodGroupName: ptr.To("g")}}}
	for _, tc := range []struct {
		name string
		snap *Snapshot
		want string
	}{
		{"claims", &Snapshot{ResourceClaims: []resourcev1.ResourceClaim{claim}}, "1 ResourceClaims, but the sandbox's API server does not serve resourceclaims.resource.k8s.io/v1"},
		{"PodGroups", &Snapshot{PodGroups: []unstructured.Unstructured{group}, GangVersion: "v1beta1"},
			"does not serve podgroups.scheduling.k8s.io/v1beta1 (its kube-apiserver needs --runtime-config=scheduling.k8s.io/v1beta1=true --feature-gates=GenericWorkload=true)"},
		{"replayed pods in a group", &Snapshot{Replay: []corev1.Pod{inGroup}, GangVersion: "v1beta1"}, "1 replayed pods in a PodGroup (scheduling.k8s.io)"},
		{"replayed pods in a group, no gang version", &Snapshot{Replay: []corev1.Pod{inGroup}}, "1 replayed pods in a PodGroup (scheduling.k8s.io) but no gangVersion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &seeder{kube: fake.NewClientset()}
			if err := s.seed(context.Background(), tc.snap, false); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// sandboxKube is a fake sandbox serving resource.k8s.io/v1 that gives each
// pod it creates a UID.
func sandboxKube() *fake.Clientset {
	kube := fake.NewClientset()
	kube.Resources = []*metav1.APIResourceList{{GroupVersion: "resource.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "deviceclasses"}, {Name: "resourceslices"}, {Name: "resourceclaimtemplates"}, {Name: "resourceclaims"}}}}
	kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		p := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		p.UID = types.UID("sandbox-" + p.Name)
		return false, nil, nil
	})
	return kube
}

// Seeded through the API, a claim made for a pod from a template names that
// pod's UID in the sandbox (the scheduler uses it for no other pod), the
// pod keeps the names of its claims, and a bound pod's claim its
// allocation.
func TestSeedClaimsFollowTheirPods(t *testing.T) {
	snap, err := take(context.Background(), deviceCluster(), []string{"ours"}, ReplayBounds{Pending: 10, Bound: 10}, MaxSnapshotBytes)
	if err != nil {
		t.Fatal(err)
	}
	snap.Workloads, snap.PodGroups = nil, nil // this sandbox serves no gangs
	for i := range snap.Replay {
		snap.Replay[i].Spec.SchedulingGroup = nil
	}
	kube := sandboxKube()
	if err := (&seeder{kube: kube}).seed(context.Background(), snap, false); err != nil {
		t.Fatal(err)
	}
	ctx, claims := context.Background(), kube.ResourceV1().ResourceClaims("ml")
	gpu, err := claims.Get(ctx, "recent-gpu", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(gpu); ref == nil || ref.Name != "recent" || ref.UID != "sandbox-recent" || gpu.Status.Allocation != nil {
		t.Errorf("recent-gpu: controller %+v, allocation %v; want the replayed pod recent's sandbox UID, unallocated", ref, gpu.Status.Allocation)
	}
	recent, err := kube.CoreV1().Pods("ml").Get(ctx, "recent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names := podClaimNames(recent); strings.Join(names, ",") != "recent-gpu,shared" {
		t.Errorf("the replayed pod's claims resolve to %v in the sandbox, want recent-gpu,shared", names)
	}
	for _, name := range []string{"theirs-claim", "shared"} {
		c, err := claims.Get(ctx, name, metav1.GetOptions{})
		if err != nil || c.Status.Allocation == nil || len(c.Status.ReservedFor) != 1 {
			t.Errorf("%s: %v, %+v; want it allocated, reserved for the bound pod", name, err, c.Status)
		}
	}
}

// A snapshot file holds the claims and gangs as the snapshot settled them.
func TestSnapshotFileKeepsClaimsAndGangs(t *testing.T) {
	snap, err := take(context.Background(), deviceCluster(), []string{"ours"}, ReplayBounds{Pending: 10, Bound: 10}, MaxSnapshotBytes)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSnapshotFile(&buf, &SnapshotFile{SchedulerNames: []string{"ours"}, Replay: ReplayBounds{Pending: 10, Bound: 10}, Snapshot: snap}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSnapshotFile(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w, g := *snap, *got.Snapshot
	w.Pods, g.Pods = BoundPods{}, BoundPods{}
	if !equality.Semantic.DeepEqual(w, g) {
		t.Errorf("read back differs:\nwrote %+v\nread  %+v", w, g)
	}
	if len(g.ResourceClaims) != 4 || len(g.PodGroups) != 2 || len(g.DeviceClasses) != 1 {
		t.Errorf("read back %d claims, %d PodGroups, %d DeviceClasses; want 4, 2, 1", len(g.ResourceClaims), len(g.PodGroups), len(g.DeviceClasses))
	}
}

// TestTakeCopiesTheClaimsThatCount: a tenant's unallocated claims and
// templates, however many, cost the snapshot nothing; the allocated claims
// (they hold devices) and the claims and templates the replay set uses are
// copied.
func TestTakeCopiesTheClaimsThatCount(t *testing.T) {
	spec := resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
		Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
			Expression: strings.Repeat("device.driver == 'gpu.example.com' && ", 40) + "true"}}}}}}}}
	claim := func(ns, name string) *resourcev1.ResourceClaim {
		return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	}
	var objects []runtime.Object
	for i := range 1000 {
		objects = append(objects, claim("tenant", fmt.Sprintf("junk-%d", i)),
			&resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant", Name: fmt.Sprintf("junk-%d", i)},
				Spec: resourcev1.ResourceClaimTemplateSpec{Spec: spec}})
	}
	allocated := claim("other", "in-use")
	allocated.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{
		Results: []resourcev1.DeviceRequestAllocationResult{{Request: "gpu", Driver: "gpu.example.com", Pool: "n", Device: "gpu-0"}}}}
	pod := pendingPods("work", 1)[0]
	pod.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "named", ResourceClaimName: ptrTo("wanted")},
		{Name: "made", ResourceClaimTemplateName: ptrTo("gpu")}}
	pod.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "made", ResourceClaimName: ptrTo("made-x7k2p")}}
	objects = append(objects, allocated, claim("work", "wanted"), claim("work", "made-x7k2p"), claim("work", "unused"), &pod,
		&resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "gpu"}, Spec: resourcev1.ResourceClaimTemplateSpec{Spec: spec}})

	s, err := take(context.Background(), Source{Kube: fake.NewClientset(objects...)}, []string{"ours"}, ReplayBounds{Pending: 10}, 256<<10)
	if err != nil {
		t.Fatalf("1,000 unused claims and templates of about 1.7 KiB each under a 256 KiB bound: %v", err)
	}
	var claims, templates []string
	for _, c := range s.ResourceClaims {
		claims = append(claims, c.Namespace+"/"+c.Name)
	}
	for _, c := range s.ResourceClaimTemplates {
		templates = append(templates, c.Namespace+"/"+c.Name)
	}
	if got, want := strings.Join(claims, " "), "other/in-use work/wanted work/made-x7k2p"; got != want {
		t.Errorf("claims copied: %s, want %s", got, want)
	}
	if got, want := strings.Join(templates, " "), "work/gpu"; got != want {
		t.Errorf("templates copied: %s, want %s", got, want)
	}
}
