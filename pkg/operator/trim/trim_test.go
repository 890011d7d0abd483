package trim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/podhealth"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

var managedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply,
	FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}

// meta is metadata with every field the operator reads set, and managedFields.
func meta() metav1.ObjectMeta {
	deleted := metav1.NewTime(time.Unix(2000, 0))
	return metav1.ObjectMeta{
		Name: "x", Namespace: "ns", UID: "uid", ResourceVersion: "42", Generation: 3,
		CreationTimestamp: metav1.NewTime(time.Unix(1000, 0)), DeletionTimestamp: &deleted,
		Labels:          map[string]string{"l": "v"},
		Annotations:     map[string]string{"a": "v"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "K", Name: "owner", UID: "o", Controller: ptr.To(true)}},
		Finalizers:      []string{"f"},
		ManagedFields:   managedFields,
	}
}

func withoutManagedFields(m metav1.ObjectMeta) metav1.ObjectMeta {
	m.ManagedFields = nil
	return m
}

func transform(t *testing.T, fn func(any) (any, error), obj any) any {
	t.Helper()
	out, err := fn(obj)
	if err != nil {
		t.Fatal(err)
	}
	again, err := fn(out)
	if err != nil || !reflect.DeepEqual(again, out) {
		t.Errorf("not idempotent: %v", err)
	}
	return out
}

func TestObjectsKeepsTheSecondarySchedulerWhole(t *testing.T) {
	ss := &secondaryschedulerv1.SecondaryScheduler{ObjectMeta: meta(),
		Spec: secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: "c", OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}}}
	want := ss.DeepCopy()
	if got := transform(t, Objects, ss); !reflect.DeepEqual(got, want) {
		t.Errorf("the SecondaryScheduler changed: got %+v", got)
	}
}

func TestObjectsDropOnlyManagedFields(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: meta(), Data: map[string]string{"config.yaml": "k: v"}}
	svc := &corev1.Service{ObjectMeta: meta(), Spec: corev1.ServiceSpec{ClusterIP: "10.0.0.1", Ports: []corev1.ServicePort{{Port: 80}}}}
	for _, obj := range []runtime.Object{cm, svc} {
		want := obj.DeepCopyObject()
		want.(metav1.Object).SetManagedFields(nil)
		if got := transform(t, Objects, obj.DeepCopyObject()); !reflect.DeepEqual(got, want) {
			t.Errorf("%T: got %+v, want it unchanged but for managedFields", got, got)
		}
	}
}

// identity is meta() as Metadata keeps it with no label or annotation named.
func identity() metav1.ObjectMeta {
	m := meta()
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion, Generation: m.Generation,
		CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp, OwnerReferences: m.OwnerReferences}
}

// A Simulator's user writes its metadata: the cache keeps what identifies it,
// its spec and its status.
func TestObjectsKeepTheSpecAndStatusOfASimulator(t *testing.T) {
	sim := &simv1alpha1.Simulator{ObjectMeta: meta(),
		Spec:   simv1alpha1.SimulatorSpec{Image: "img", PodTemplate: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "v"}}}},
		Status: simv1alpha1.SimulatorStatus{Phase: simv1alpha1.SimulatorAvailable, KubeAPIServerURL: "http://x"}}
	sim.Annotations["big"] = strings.Repeat("x", 250<<10)
	sim.OwnerReferences = append(sim.OwnerReferences, metav1.OwnerReference{Kind: "Other", Name: "o", UID: "o2"})
	want := sim.DeepCopy()
	want.ObjectMeta = identity()
	if got := transform(t, Objects, sim); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// A spec over simulatorrender.MaxSpecBytes is not cached, only its size: a
// podTemplate's annotations are no check's business but the operator's. A
// user's own annotation of that name is dropped with the others.
func TestObjectsKeepOnlyTheSizeOfAnOversizedSimulatorSpec(t *testing.T) {
	withTemplateAnnotation := func(value string) *simv1alpha1.Simulator {
		sim := &simv1alpha1.Simulator{ObjectMeta: meta(), Spec: simv1alpha1.SimulatorSpec{Image: "img", // as the CRD defaults it
			PodTemplate: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"n": value}}}}}
		sim.Annotations[simulatorrender.SpecBytesAnnotation] = "1"
		return sim
	}
	empty, err := json.Marshal(withTemplateAnnotation("").Spec)
	if err != nil {
		t.Fatal(err)
	}
	fits := withTemplateAnnotation(strings.Repeat("x", simulatorrender.MaxSpecBytes-len(empty)))
	want := fits.DeepCopy()
	want.ObjectMeta = identity()
	if got := transform(t, Objects, fits); !reflect.DeepEqual(got, want) {
		t.Errorf("a spec of MaxSpecBytes: got %+v, want %+v", got, want)
	}

	over := withTemplateAnnotation(strings.Repeat("x", 250<<10))
	got := transform(t, Objects, over).(*simv1alpha1.Simulator)
	wantMeta := identity()
	wantMeta.Annotations = map[string]string{simulatorrender.SpecBytesAnnotation: fmt.Sprint(len(empty) + 250<<10)}
	if !reflect.DeepEqual(got.ObjectMeta, wantMeta) || !reflect.DeepEqual(got.Spec, simv1alpha1.SimulatorSpec{}) {
		t.Errorf("an oversized spec: got %+v and spec %+v, want %+v and no spec", got.ObjectMeta, got.Spec, wantMeta)
	}
}

func TestObjectsDropsSecretData(t *testing.T) {
	secret := &corev1.Secret{ObjectMeta: meta(), Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.key": []byte("k")}, StringData: map[string]string{"tls.crt": "c"}}
	got := transform(t, Objects, secret).(*corev1.Secret)
	if got.Data != nil || got.StringData != nil || got.ManagedFields != nil {
		t.Errorf("data or managedFields kept: %+v", got)
	}
	if !reflect.DeepEqual(got.ObjectMeta, withoutManagedFields(meta())) || got.Type != corev1.SecretTypeTLS {
		t.Errorf("metadata or type lost: %+v", got)
	}
}

// pod is a Pod with what the operator reads, and what it does not.
func pod() *corev1.Pod {
	started := metav1.NewTime(time.Unix(1500, 0))
	terminated := &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", Message: "bad config", FinishedAt: metav1.NewTime(time.Unix(1600, 0))}
	m := meta()
	m.DeletionTimestamp = nil // podhealth reports nothing of a pod being deleted
	return &corev1.Pod{
		ObjectMeta: m,
		Spec: corev1.PodSpec{
			NodeName: "node", SchedulerName: "sched", ServiceAccountName: "sa",
			InitContainers: []corev1.Container{{Name: "init", Image: "init-img", Command: []string{"sh"}}},
			Containers: []corev1.Container{{Name: "app", Image: "app-img", Args: []string{"--v=2"},
				Env:       []corev1.EnvVar{{Name: "E", Value: "v"}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, Reason: "r", Message: "m", StartTime: &started,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse},
				{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: "no node"}},
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "init", State: corev1.ContainerState{Terminated: terminated}}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 4,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "not found"}},
				LastTerminationState: corev1.ContainerState{Terminated: terminated}}},
			HostIP: "10.0.0.1", PodIP: "10.1.0.1", PodIPs: []corev1.PodIP{{IP: "10.1.0.1"}}, QOSClass: corev1.PodQOSBurstable,
		},
	}
}

func TestObjectsDropsOnlyManagedFieldsOfAPod(t *testing.T) {
	want := pod()
	want.ManagedFields = nil
	if got := transform(t, Objects, pod()); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want the Pod but for managedFields", got)
	}
}

func TestOwnedKeepsWhatTheControllerReadsOfAPod(t *testing.T) {
	full := pod()
	full.Labels["kept"], full.Annotations["kept"] = "l", "a"
	got := transform(t, Owned([]string{"kept", "absent"}, []string{"kept"}), full.DeepCopy()).(*corev1.Pod)

	wantMeta := identity()
	wantMeta.DeletionTimestamp = nil
	wantMeta.Labels, wantMeta.Annotations = map[string]string{"kept": "l"}, map[string]string{"kept": "a"}
	if !reflect.DeepEqual(got.ObjectMeta, wantMeta) {
		t.Errorf("metadata: got %+v, want %+v", got.ObjectMeta, wantMeta)
	}
	wantSpec := corev1.PodSpec{NodeName: "node", SchedulerName: "sched",
		InitContainers: []corev1.Container{{Name: "init", Image: "init-img"}},
		Containers:     []corev1.Container{{Name: "app", Image: "app-img"}}}
	if !reflect.DeepEqual(got.Spec, wantSpec) {
		t.Errorf("spec: got %+v, want %+v", got.Spec, wantSpec)
	}
	wantStatus := full.Status
	wantStatus.HostIP, wantStatus.PodIP, wantStatus.PodIPs, wantStatus.QOSClass = "", "", nil, ""
	if !reflect.DeepEqual(got.Status, wantStatus) {
		t.Errorf("status: got %+v, want %+v", got.Status, wantStatus)
	}
	if a, b := podhealth.Problems(full), podhealth.Problems(got); !reflect.DeepEqual(a, b) || len(a) != 2 {
		t.Errorf("problems of the full pod %v, of the trimmed one %v", a, b)
	}
}

func TestOwnedKeepsTheOwnedPartsOfAServiceAndAPolicy(t *testing.T) {
	ports := []corev1.ServicePort{{Name: "p", Port: 80}}
	svc := &corev1.Service{ObjectMeta: meta(), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.1",
		ClusterIPs: []string{"10.0.0.1"}, Selector: map[string]string{"s": "v"}, Ports: ports},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}}}}
	got := transform(t, Owned(nil, nil), svc).(*corev1.Service)
	want := &corev1.Service{ObjectMeta: identity(), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: map[string]string{"s": "v"}, Ports: ports}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("service: got %+v, want %+v", got, want)
	}
	spec := networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}
	policy := &networkingv1.NetworkPolicy{ObjectMeta: meta(), Spec: spec}
	if got := transform(t, Owned(nil, nil), policy).(*networkingv1.NetworkPolicy); !reflect.DeepEqual(got.ObjectMeta, identity()) || !reflect.DeepEqual(got.Spec, spec) {
		t.Errorf("policy: got %+v", got)
	}
}

func TestPendingPodsKeepsNameAndScheduling(t *testing.T) {
	full := pod()
	full.Status.Phase = corev1.PodPending
	full.DeletionTimestamp = meta().DeletionTimestamp
	got := transform(t, PendingPods, full.DeepCopy()).(*corev1.Pod)
	want := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ns", UID: "uid", ResourceVersion: "42",
			CreationTimestamp: full.CreationTimestamp, DeletionTimestamp: full.DeletionTimestamp},
		Spec:   corev1.PodSpec{NodeName: "node", SchedulerName: "sched"},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestTransformsPassOtherObjectsThrough(t *testing.T) {
	tombstone := cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: pod()}
	for name, fn := range map[string]func(any) (any, error){"Objects": Objects, "Owned": Owned([]string{"l"}, nil), "PendingPods": PendingPods} {
		if got, err := fn(tombstone); err != nil || !reflect.DeepEqual(got, tombstone) {
			t.Errorf("%s changed a tombstone: %+v, %v", name, got, err)
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: meta(), Data: map[string]string{"k": "v"}}
	if got := transform(t, PendingPods, cm.DeepCopy()); !reflect.DeepEqual(got, cm) {
		t.Errorf("PendingPods changed a ConfigMap: %+v", got)
	}
}
