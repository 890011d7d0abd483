package trial

// A snapshot written to a file, for a trial where the cluster cannot be
// reached (a CI job with no credentials): a JSON document of kind
// TrialSnapshot, gzip-compressed, read back by ReadSnapshotFile. Its objects
// pass through the trimming functions both ways, so a file holds what a
// sandbox would get and a sandbox gets what a trimmed snapshot holds, however
// the file was edited.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	// SnapshotAPIVersion and SnapshotKind name the file format; a file of
	// another version is refused, not guessed at.
	SnapshotAPIVersion = "trial.secondary-scheduler.openshift.io/v1alpha1"
	SnapshotKind       = "TrialSnapshot"
	// MaxSnapshotFileBytes bounds a snapshot file's JSON, decompressed: the
	// objects are held to MaxSnapshotBytes as a trial counts them, and their
	// JSON is under twice their protobuf (1.8 times for ordinary pods), so
	// this is room to spare that still stops a file (or a gzip bomb) that no
	// trial could have written.
	MaxSnapshotFileBytes = 4 * MaxSnapshotBytes
)

// SnapshotFile is a snapshot and what it was taken for.
type SnapshotFile struct {
	TakenAt metav1.Time
	// SchedulerNames are the profiles whose pods make the replay set, and
	// Replay the bounds it was sampled within.
	SchedulerNames []string
	Replay         ReplayBounds
	// Current is the scheduler that served, with its configuration; it is
	// written without a binary (a path on the machine that took it).
	Current Arm
	// Cluster is what the caller read of the cluster besides, in its own
	// format (the command renders the candidate with it); kept as it is.
	Cluster  json.RawMessage
	Snapshot *Snapshot
}

// fileHead is the file's fields before its object lists.
type fileHead struct {
	metav1.TypeMeta `json:",inline"`
	TakenAt         metav1.Time       `json:"takenAt"`
	SchedulerNames  []string          `json:"schedulerNames"`
	ReplayBounds    ReplayBounds      `json:"replayBounds"`
	Sampled         []NamespaceSample `json:"sampled,omitempty"`
	LiveNodes       map[string]string `json:"liveNodes,omitempty"`
	GangVersion     string            `json:"gangVersion,omitempty"`
	Current         Arm               `json:"current"`
	CurrentConfig   string            `json:"currentConfig"`
	Cluster         json.RawMessage   `json:"cluster,omitempty"`
}

// fileLists are the object lists of the file, in its order: each writes the
// snapshot's objects of one kind and reads them back, trimmed and counted.
func fileLists(s *Snapshot, size *snapshotSize) []fileList {
	return []fileList{
		typedList("namespaces", &s.Namespaces, size, TrimNamespace),
		typedList("nodes", &s.Nodes, size, TrimNode),
		typedList("persistentVolumes", &s.PVs, size, TrimPV),
		typedList("persistentVolumeClaims", &s.PVCs, size, TrimPVC),
		typedList("services", &s.Services, size, TrimService),
		typedList("storageClasses", &s.StorageClasses, size, TrimStorageClass),
		typedList("csiNodes", &s.CSINodes, size, TrimCSINode),
		typedList("priorityClasses", &s.PriorityClasses, size, TrimPriorityClass),
		typedList("runtimeClasses", &s.RuntimeClasses, size, TrimRuntimeClass),
		typedList("deviceClasses", &s.DeviceClasses, size, TrimDeviceClass),
		typedList("resourceSlices", &s.ResourceSlices, size, TrimResourceSlice),
		typedList("resourceClaimTemplates", &s.ResourceClaimTemplates, size, TrimResourceClaimTemplate),
		typedList("resourceClaims", &s.ResourceClaims, size, TrimResourceClaim),
		customList("workloads", &s.Workloads, size, TrimWorkload),
		customList("podGroups", &s.PodGroups, size, TrimPodGroup),
		customList("customResourceDefinitions", &s.CRDs, size, TrimCRD),
		customList("schedulingObjects", &s.Custom, size, TrimCustom),
		{key: "boundPods", n: s.Pods.Len, at: func(i int) (any, error) { return s.Pods.At(i) }, read: func(d *json.Decoder) error {
			var p corev1.Pod
			if err := d.Decode(&p); err != nil {
				return err
			}
			n, err := s.Pods.Add(TrimPod(&p))
			if err == nil {
				err = size.addSized("boundPods", p.Namespace, n)
			}
			return err
		}},
		typedList("replay", &s.Replay, size, replayed),
	}
}

// fileList is one list of objects in the file.
type fileList struct {
	key  string
	n    func() int
	at   func(i int) (any, error)
	read func(d *json.Decoder) error
}

func typedList[T any, P interface {
	*T
	Size() int
	metav1.Object
}](key string, list *[]T, size *snapshotSize, trim func(P) T) fileList {
	return fileList{key: key, n: func() int { return len(*list) }, at: func(i int) (any, error) { return &(*list)[i], nil },
		read: func(d *json.Decoder) error {
			var obj T
			if err := d.Decode(&obj); err != nil {
				return err
			}
			kept := trim(&obj)
			*list = append(*list, kept)
			return size.addSized(key, P(&kept).GetNamespace(), P(&kept).Size())
		}}
}

func customList(key string, list *[]unstructured.Unstructured, size *snapshotSize, trim func(*unstructured.Unstructured) unstructured.Unstructured) fileList {
	return fileList{key: key, n: func() int { return len(*list) }, at: func(i int) (any, error) { return &(*list)[i], nil },
		read: func(d *json.Decoder) error {
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return err
			}
			var obj unstructured.Unstructured
			if err := obj.UnmarshalJSON(raw); err != nil {
				return err
			}
			kept := trim(&obj)
			*list = append(*list, kept)
			return size.addSized(key, kept.GetNamespace(), len(raw))
		}}
}

// WriteSnapshotFile writes f to w, gzip-compressed, one object a line.
func WriteSnapshotFile(w io.Writer, f *SnapshotFile) error {
	head := fileHead{TypeMeta: metav1.TypeMeta{APIVersion: SnapshotAPIVersion, Kind: SnapshotKind}, TakenAt: f.TakenAt,
		SchedulerNames: f.SchedulerNames, ReplayBounds: f.Replay, Sampled: f.Snapshot.Sampled, LiveNodes: f.Snapshot.LiveNodes, GangVersion: f.Snapshot.GangVersion, Current: f.Current, CurrentConfig: string(f.Current.Config), Cluster: f.Cluster}
	head.Current.Binary = ""
	data, err := json.Marshal(&head)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(w)
	bw := bufio.NewWriter(zw)
	bw.Write(data[:len(data)-1]) // the fields above, the object left open for the lists
	for _, l := range fileLists(f.Snapshot, nil) {
		fmt.Fprintf(bw, ",\n%q: [", l.key)
		for i := range l.n() {
			obj, err := l.at(i)
			if err != nil {
				return err
			}
			line, err := json.Marshal(obj)
			if err != nil {
				return fmt.Errorf("writing %s: %w", l.key, err)
			}
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString("\n")
			bw.Write(line)
		}
		bw.WriteString("]")
	}
	bw.WriteString("\n}\n")
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// ReadSnapshotFile reads a file WriteSnapshotFile wrote (gzip-compressed or
// not), held to the bounds of a snapshot taken from a cluster.
func ReadSnapshotFile(r io.Reader) (*SnapshotFile, error) {
	return readSnapshotFile(r, MaxSnapshotFileBytes, MaxSnapshotBytes)
}

// readSnapshotFile is ReadSnapshotFile with its bounds: fileLimit on the
// JSON, objectLimit on the objects as Take counts them.
func readSnapshotFile(r io.Reader, fileLimit int64, objectLimit int) (*SnapshotFile, error) {
	br := bufio.NewReader(r)
	var in io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, notSnapshot(err)
		}
		in = zr
	}
	limited := &io.LimitedReader{R: in, N: fileLimit + 1}
	f, err := readSnapshotJSON(json.NewDecoder(limited), objectLimit)
	if limited.N <= 0 {
		return nil, fmt.Errorf("over the %s a snapshot file may hold (decompressed): no trial writes one so large", mebibytes(int(fileLimit)))
	}
	return f, err
}

func notSnapshot(err error) error {
	return fmt.Errorf("not a trial snapshot (a JSON document of kind %s, apiVersion %s, gzip-compressed or not): %w",
		SnapshotKind, SnapshotAPIVersion, err)
}

func readSnapshotJSON(d *json.Decoder, objectLimit int) (*SnapshotFile, error) {
	f, head := &SnapshotFile{Snapshot: &Snapshot{}}, &fileHead{}
	size := &snapshotSize{limit: objectLimit, byNamespace: map[string]int{}}
	lists := map[string]fileList{}
	for _, l := range fileLists(f.Snapshot, size) {
		lists[l.key] = l
	}
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, notSnapshot(fmt.Errorf("it does not start with a JSON object (%v)", err))
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, notSnapshot(err)
		}
		key, _ := tok.(string)
		if err := readField(d, head, key, lists[key]); err != nil {
			return nil, err
		}
	}
	if head.Kind != SnapshotKind || head.APIVersion == "" {
		return nil, notSnapshot(errors.New("it has no kind or apiVersion"))
	}
	f.TakenAt, f.SchedulerNames, f.Replay, f.Current, f.Cluster = head.TakenAt, head.SchedulerNames, head.ReplayBounds, head.Current, head.Cluster
	f.Snapshot.Sampled, f.Snapshot.LiveNodes, f.Snapshot.GangVersion = head.Sampled, head.LiveNodes, head.GangVersion
	if err := f.Snapshot.checkGangVersion(); err != nil {
		return nil, err
	}
	f.Current.Binary, f.Current.Config = "", []byte(head.CurrentConfig)
	b := f.Replay
	if b.Pending < 0 || b.Bound < 0 || b.Pending > MaxReplayPending || b.Bound > MaxReplayBound || len(f.Snapshot.Replay) > b.Pending+b.Bound {
		return nil, fmt.Errorf("it replays %d pods with replayBounds of %d pending and %d bound; a trial replays at most %d pending and %d bound",
			len(f.Snapshot.Replay), b.Pending, b.Bound, MaxReplayPending, MaxReplayBound)
	}
	if len(f.Snapshot.LiveNodes) > b.Bound {
		return nil, fmt.Errorf("it names the live nodes of %d pods with replayBounds of %d bound: a trial replays at most that many bound pods",
			len(f.Snapshot.LiveNodes), b.Bound)
	}
	return f, nil
}

// readField reads the value of key: a field of the head, or one of
// lists, whose objects are decoded one at a time.
func readField(d *json.Decoder, f *fileHead, key string, list fileList) error {
	var err error
	switch key {
	case "apiVersion":
		if err = d.Decode(&f.APIVersion); err == nil {
			err = checkVersion(f.APIVersion)
		}
	case "kind":
		if err = d.Decode(&f.Kind); err == nil && f.Kind != SnapshotKind {
			return notSnapshot(fmt.Errorf("its kind is %q", f.Kind))
		}
	case "takenAt":
		err = d.Decode(&f.TakenAt)
	case "schedulerNames":
		err = d.Decode(&f.SchedulerNames)
	case "replayBounds":
		err = d.Decode(&f.ReplayBounds)
	case "sampled":
		err = d.Decode(&f.Sampled)
	case "liveNodes":
		err = d.Decode(&f.LiveNodes)
	case "gangVersion":
		err = d.Decode(&f.GangVersion)
	case "current":
		err = d.Decode(&f.Current)
	case "currentConfig":
		err = d.Decode(&f.CurrentConfig)
	case "cluster":
		err = d.Decode(&f.Cluster)
	default:
		if list.read == nil {
			return notSnapshot(fmt.Errorf("unknown field %q", key))
		}
		return readList(d, list)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// checkVersion refuses a version this build does not read, saying what to do.
func checkVersion(apiVersion string) error {
	group, _, _ := strings.Cut(SnapshotAPIVersion, "/")
	switch {
	case apiVersion == SnapshotAPIVersion:
		return nil
	case strings.HasPrefix(apiVersion, group+"/"):
		return fmt.Errorf("a snapshot of apiVersion %s, which this build does not read (it reads %s): "+
			"take the snapshot with the same version of secondary-scheduler-ctl as runs the trial", apiVersion, SnapshotAPIVersion)
	default:
		return notSnapshot(fmt.Errorf("its apiVersion is %q", apiVersion))
	}
}

func readList(d *json.Decoder, l fileList) error {
	if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
		return notSnapshot(fmt.Errorf("%s is not a list (%v)", l.key, err))
	}
	for i := 0; d.More(); i++ {
		if err := l.read(d); err != nil {
			return fmt.Errorf("%s[%d]: %w", l.key, i, err)
		}
	}
	_, err := d.Token()
	return err
}
