package trialbench

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// BenchmarkSandboxWrite measures the two ways a snapshot goes into a
// sandbox's etcd, at the sizes of BenchmarkTrial: in transactions before its
// kube-apiserver starts (trial.Store, the trial command's way), and one put
// per object while its kube-apiserver runs and watches (trial.StoreWatched,
// 64 at once as the operator writes into its trial Pods, and 1 at a time, as
// the replay set is written). It prints objects a second; the operator's
// writes also cross the network and TLS, which this does not.
//
//	go test ./test/bench/trialbench/ -run '^$' -bench BenchmarkSandboxWrite -benchtime 1x
func BenchmarkSandboxWrite(b *testing.B) {
	binDir := filepath.Dir(framework.Binary(b, "kube-apiserver"))
	for _, size := range sizes(b) {
		snap := Synthetic(size.nodes, size.pods, size.replay)
		objects := 0
		if err := snap.Storage(time.Now()).Objects()(func(string, []byte) error { objects++; return nil }); err != nil {
			b.Fatal(err)
		}
		for _, way := range []struct {
			name     string
			running  bool
			inFlight int
		}{{"transactions", false, 0}, {"watched-64", true, 64}, {"watched-1", true, 1}} {
			b.Run(fmt.Sprintf("pods=%d/%s", size.pods, way.name), func(b *testing.B) {
				for range b.N {
					took := writeInto(b, binDir, snap, way.running, way.inFlight)
					b.ReportMetric(float64(objects)/took.Seconds(), "objects/s")
					b.ReportMetric(took.Seconds(), "s-write")
				}
			})
		}
	}
}

// writeInto starts an etcd, and a kube-apiserver on it when running, and
// times the write of snap's objects into the etcd.
func writeInto(b *testing.B, binDir string, snap *trial.Snapshot, running bool, inFlight int) time.Duration {
	etcd := &envtest.Etcd{Path: filepath.Join(binDir, "etcd")}
	for _, f := range trial.EtcdFlags() {
		etcd.Configure().Set(f.Name, f.Value)
	}
	if err := etcd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = etcd.Stop() }()
	if running {
		apiserver := &envtest.APIServer{Path: filepath.Join(binDir, "kube-apiserver"), EtcdURL: etcd.URL}
		if err := apiserver.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = apiserver.Stop() }()
	}
	c, err := clientv3.New(trial.EtcdClientConfig(clientv3.Config{Endpoints: []string{etcd.URL.String()}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()}))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	objects := snap.Storage(time.Now()).Objects()
	start := time.Now()
	if running {
		err = trial.StoreWatched(context.Background(), c, objects, inFlight)
	} else {
		err = trial.Store(context.Background(), c, objects)
	}
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
