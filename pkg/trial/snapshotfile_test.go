package trial

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
)

// fileSnapshot takes a snapshot of a cluster whose pods hold every value and
// reference a trial must not copy (leaky), one bound by another scheduler,
// two bound by ours and one pending, with a node, volumes and a Service.
func fileSnapshot(t *testing.T) *SnapshotFile {
	t.Helper()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", Labels: map[string]string{"zone": "a"},
		Annotations: map[string]string{"note": "LEAK-node"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}}}
	objects := []runtime.Object{node,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns", Labels: map[string]string{"team": "x"}}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "svc", Namespace: "ns"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "a"},
			Ports: []corev1.ServicePort{{Port: 80}}}},
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "csi.example",
			Parameters: map[string]string{"csi.storage.k8s.io/provisioner-secret-name": "LEAK-sc"}},
	}
	for i, sched := range []string{"default-scheduler", "ours", "ours", "ours"} {
		p := leaky()
		p.Name, p.Spec.SchedulerName = fmt.Sprint("p-", i), sched
		p.CreationTimestamp = metav1.NewTime(time.Unix(int64(1000+i), 0))
		if i == 3 {
			p.Spec.NodeName = ""
		}
		objects = append(objects, p)
	}
	snap, err := Take(context.Background(), Source{Kube: fake.NewClientset(objects...)}, []string{"ours"}, ReplayBounds{Pending: 10, Bound: 1})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Pods.Len() != 2 || len(snap.Replay) != 2 {
		t.Fatalf("the snapshot has %d bound and %d replayed pods, want 2 and 2", snap.Pods.Len(), len(snap.Replay))
	}
	// The last bound of ours is replayed with its node cleared, and its live node kept aside.
	if b := snap.Replay[0]; len(snap.LiveNodes) != 1 || b.Name != "p-2" || b.Spec.NodeName != "" || snap.LiveNodes[b.Namespace+"/p-2"] != leaky().Spec.NodeName {
		t.Fatalf("live nodes %v of replay %s: want the node of the bound pod replayed, %s", snap.LiveNodes, b.Name, leaky().Spec.NodeName)
	}
	return &SnapshotFile{TakenAt: metav1.NewTime(time.Unix(2000, 0).UTC()), SchedulerNames: []string{"ours"}, Replay: ReplayBounds{Pending: 10, Bound: 1},
		Current: Arm{Name: "current", Binary: "/home/me/bin/kube-scheduler", Image: "registry.k8s.io/kube-scheduler:v1.37.2",
			Args: []string{"--feature-gates=A=true"}, Config: []byte("profiles:\n- schedulerName: ours\n")},
		Cluster: json.RawMessage(`{"podSecurityEnforce":"restricted"}`), Snapshot: snap}
}

func writeFile(t *testing.T, f *SnapshotFile) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSnapshotFile(&buf, f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(t *testing.T, data []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the file is not gzip-compressed: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSnapshotFileRoundTrip: what is read back is what was written, object
// for object, bound pods, the replay set in its order, the current arm
// (without the binary: a path on the machine that took it) and the caller's
// cluster section.
func TestSnapshotFileRoundTrip(t *testing.T) {
	want := fileSnapshot(t)
	data := writeFile(t, want)
	got, err := ReadSnapshotFile(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	// A file decompressed by hand (zcat) reads the same.
	plain, err := ReadSnapshotFile(bytes.NewReader(gunzip(t, data)))
	if err != nil {
		t.Fatalf("reading back the decompressed file: %v", err)
	}
	for name, g := range map[string]*SnapshotFile{"gzip": got, "plain": plain} {
		w, s := want.Snapshot, g.Snapshot
		if !equality.Semantic.DeepEqual(decodeAll(t, w.Pods), decodeAll(t, s.Pods)) {
			t.Errorf("%s: bound pods differ:\n%+v\n%+v", name, decodeAll(t, w.Pods), decodeAll(t, s.Pods))
		}
		wo, so := *w, *s
		wo.Pods, so.Pods = BoundPods{}, BoundPods{}
		if !equality.Semantic.DeepEqual(wo, so) {
			t.Errorf("%s: objects differ:\nwrote %+v\nread  %+v", name, wo, so)
		}
		if string(g.Current.Config) != string(want.Current.Config) || g.Current.Image != want.Current.Image ||
			strings.Join(g.Current.Args, " ") != "--feature-gates=A=true" || g.Current.Binary != "" {
			t.Errorf("%s: the current arm reads back as %+v (config %q)", name, g.Current, g.Current.Config)
		}
		if g.Replay != (ReplayBounds{Pending: 10, Bound: 1}) || strings.Join(g.SchedulerNames, ",") != "ours" || !g.TakenAt.Equal(&want.TakenAt) ||
			string(g.Cluster) != string(want.Cluster) {
			t.Errorf("%s: the head reads back as %+v", name, g)
		}
	}
	// Written once more, the file is the same: nothing is lost or reordered.
	if again := writeFile(t, got); !bytes.Equal(gunzip(t, again), gunzip(t, data)) {
		t.Errorf("written again, the file differs")
	}
}

// TestSnapshotFileHoldsNoSecret: the file holds no env value, Secret or
// ConfigMap reference, command, argument or annotation of the pods, and a
// file edited to hold them is trimmed as it is read.
func TestSnapshotFileHoldsNoSecret(t *testing.T) {
	f := fileSnapshot(t)
	data := gunzip(t, writeFile(t, f))
	for _, bad := range []string{"LEAK", `"env"`, `"envFrom"`, `"secretName"`, `"secretRef"`, `"serviceAccountName"`, "/home/me"} {
		if bytes.Contains(data, []byte(bad)) {
			t.Errorf("the file holds %s", bad)
		}
	}
	if !bytes.Contains(data, []byte(`"name":"p-1"`)) || !bytes.Contains(data, []byte(`"nodeName":"node-1"`)) {
		t.Fatalf("the file does not hold the pods at all; the check proves nothing:\n%s", data)
	}

	// An edited file: a bound pod with everything put back.
	p, err := json.Marshal(leaky())
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"boundPods": [`), append([]byte(`"boundPods": [`+"\n"), append(p, ',')...), 1)
	got, err := ReadSnapshotFile(bytes.NewReader(edited))
	if err != nil {
		t.Fatalf("reading the edited file: %v", err)
	}
	if got.Snapshot.Pods.Len() != 3 {
		t.Fatalf("%d bound pods read from the edited file, want 3", got.Snapshot.Pods.Len())
	}
	if again := gunzip(t, writeFile(t, got)); bytes.Contains(again, []byte("LEAK")) {
		t.Errorf("a value put in the file by hand reaches the snapshot:\n%s", again)
	}
}

// TestSnapshotFileRefusals: what is not a snapshot, a version this build does
// not read, and a file over either bound are refused, saying which.
func TestSnapshotFileRefusals(t *testing.T) {
	good := gunzip(t, writeFile(t, fileSnapshot(t)))
	replace := func(old, new string) []byte { return bytes.Replace(good, []byte(old), []byte(new), 1) }
	var many bytes.Buffer
	many.WriteString(`{"apiVersion":"` + SnapshotAPIVersion + `","kind":"TrialSnapshot","replay":[`)
	for i := range MaxReplayPending + 2 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"metadata":{"name":"p-%d","namespace":"ns"}}`, i)
	}
	many.WriteString(`],"replayBounds":{"pending":5000,"bound":1}}`)
	for _, tc := range []struct {
		name string
		data []byte
		file int64
		objs int
		want string
	}{
		{"YAML", []byte("apiVersion: v1\nkind: List\nitems: []\n"), 0, 0, "not a trial snapshot (a JSON document of kind TrialSnapshot"},
		{"a List", []byte(`{"apiVersion":"v1","kind":"List","items":[]}`), 0, 0, `its apiVersion is "v1"`},
		{"another kind", replace(`"kind":"TrialSnapshot"`, `"kind":"Pod"`), 0, 0, `its kind is "Pod"`},
		{"no kind", replace(`"kind":"TrialSnapshot",`, ``), 0, 0, "it has no kind or apiVersion"},
		{"a newer version", replace(SnapshotAPIVersion, "trial.secondary-scheduler.openshift.io/v1beta1"), 0, 0,
			"apiVersion trial.secondary-scheduler.openshift.io/v1beta1, which this build does not read (it reads " + SnapshotAPIVersion + ")"},
		{"an unknown field", replace(`"replayBounds"`, `"extra":1,"replayBounds"`), 0, 0, `unknown field "extra"`},
		{"a broken gzip", []byte{0x1f, 0x8b, 0, 0}, 0, 0, "not a trial snapshot"},
		{"a truncated file", good[:len(good)/2], 0, 0, "unexpected EOF"},
		{"over the file bound", good, 1 << 10, 0, "over the 0.0 MiB a snapshot file may hold (decompressed)"},
		{"over the object bound", good, 0, 1 << 10, "over the 0.0 MiB a trial copies"},
		{"a replay set over the bound", many.Bytes(), 0, 0, fmt.Sprintf("it replays %d pods with replayBounds of 5000 pending and 1 bound",
			MaxReplayPending+2)},
	} {
		file, objs := cmp.Or(tc.file, MaxSnapshotFileBytes), cmp.Or(tc.objs, MaxSnapshotBytes)
		_, err := readSnapshotFile(bytes.NewReader(tc.data), file, objs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
