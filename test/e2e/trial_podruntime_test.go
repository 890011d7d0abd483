package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	certutil "k8s.io/client-go/util/cert"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestTrialPodRuntime runs trial.Run with its Pod runtime against the stack,
// each arm a trial Pod the harness plays (the real etcd, kube-apiserver and
// kube-scheduler), the current arm twice: with two pods of ours bound on the
// first node and four pending, MostAllocated scoring packs the replayed pods
// on fewer nodes than LeastAllocated and the gate (maxNewlyUnschedulable 0)
// allows it. No object of either sandbox holds
// an env value or a Secret reference, although the snapshot copied a pod that
// has them. Once the trial is over no trial Pod is left, and the processes the
// harness ran for them have exited. Each Pod's scheduler serves its metrics
// to the sandbox's admin alone, and every arm ends on them; each Pod's etcd
// takes the seed from the sandbox's admin alone.
func TestTrialPodRuntime(t *testing.T) {
	c := needCluster(t)
	trialPodNS = c.createNamespace(t, "e2e-trial-pod")
	ctx := context.Background()
	if want := podruntime.AppNameLabel + "=" + podruntime.AppName; operandrunner.TrialSelector != want {
		t.Fatalf("the harness plays the Pods labelled %s, pkg/trial labels them %s", operandrunner.TrialSelector, want)
	}
	ns := c.createNamespace(t, "e2e-trial-pods")
	nodes, err := c.admin.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) < 2 {
		t.Fatalf("the stack's nodes: %v (%d)", err, len(nodes.Items))
	}
	c.createSecretHolder(t, ns, nodes.Items[0].Name)
	c.createReplaySet(t, ns, nodes.Items[0].Name)
	dyn, err := dynamic.NewForConfig(c.config)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := trial.Take(ctx, trial.Source{Kube: c.admin.Kube, Dynamic: dyn}, []string{"secondary-scheduler"}, trial.ReplayBounds{Pending: 1000, Bound: 2})
	if err != nil {
		t.Fatal(err)
	}
	owner := c.trialOwner(ctx, t)
	before := len(c.trials.startedList())
	leaks := &leakCheck{ns: ns}
	start := time.Now()
	r, err := trial.Run(ctx, trial.Options{
		Snapshot:  snap,
		Current:   trial.Arm{Name: "current", Image: trialKubeScheduler, Command: []string{"kube-scheduler"}, Config: framework.ScoringConfig("secondary-scheduler", "LeastAllocated")},
		Candidate: trial.Arm{Name: "candidate", Image: trialKubeScheduler, Command: []string{"kube-scheduler"}, Config: framework.ScoringConfig("secondary-scheduler", "MostAllocated")},
		Runtime: &podruntime.Runtime{Kube: c.admin.Kube, Namespace: trialPodNS, Owner: owner,
			TrialID: "e2e0trialpod", StartTimeout: 2 * time.Minute, Lifetime: 4 * time.Minute},
		Timeout: time.Minute,
		// The sandbox's address is the trial Pod's IP, which the harness forwards.
		Inspect: func(arm string, cfg *rest.Config) error {
			if err := metricsOnlyForTheAdmin(cfg); err != nil {
				return fmt.Errorf("%s: %w", arm, err)
			}
			if err := etcdOnlyForTheAdmin(cfg); err != nil {
				return fmt.Errorf("%s: %w", arm, err)
			}
			return leaks.inspect(arm, cfg)
		},
	})
	if err != nil {
		t.Fatalf("the trial with trial Pods (runner log %s): %v", c.trials.log, err)
	}
	t.Logf("trial with trial Pods: %s after %s (the slowest arm's start %s, seed %s, schedule %s)", r.Verdict.Message,
		time.Since(start).Round(100*time.Millisecond), r.Timings.Start.Round(time.Millisecond), r.Timings.Seed.Round(time.Millisecond),
		r.Timings.Schedule.Round(time.Millisecond))
	if n := leaks.count(); n != 3 {
		t.Errorf("%d sandboxes inspected, want 3 (current, candidate and the current's rerun): %s", n, leaks)
	}
	t.Logf("sandboxes inspected: %s", leaks)
	moved := 0
	for _, u := range unitsIn(r, ns) {
		if u.Change == trial.Moved {
			moved++
		}
	}
	if !r.Verdict.Allowed || moved == 0 || r.Counts.NewlyUnschedulable != 0 {
		t.Errorf("verdict %+v, %d of namespace %s moved, counts %+v: want allowed with moved pods and none newly unschedulable", r.Verdict, moved, ns, r.Counts)
	}
	checkPacked(t, r)
	checkSettled(t, r)
	started := c.trials.startedList()[before:]
	if len(started) != 3 {
		t.Errorf("the harness started %d trial schedulers, want 3 (current, candidate and the current's rerun)", len(started))
	}
	for _, s := range started {
		checkTrialPodGone(ctx, t, c, s, true)
	}
}

// metricsOnlyForTheAdmin: a trial Pod's scheduler serves its metrics, on the
// Pod's IP, to the sandbox's admin (sandbox, its client config), and refuses
// a client without a certificate.
func metricsOnlyForTheAdmin(sandbox *rest.Config) error {
	admin, err := podruntime.MetricsClient(sandbox)
	if err != nil {
		return err
	}
	ctx := context.Background()
	page, err := trial.ReadSchedulerMetrics(ctx, admin)
	if err != nil {
		return fmt.Errorf("the sandbox's admin could not read its scheduler's metrics: %w", err)
	}
	if _, err := trial.ParseQueue(page); err != nil {
		return err
	}
	stranger := &rest.Config{Host: admin.Host, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	if _, err := trial.ReadSchedulerMetrics(ctx, stranger); err == nil || !strings.Contains(err.Error(), "answered 40") {
		return fmt.Errorf("a client without a certificate read the scheduler's metrics (%v), want it refused", err)
	}
	return nil
}

// etcdOnlyForTheAdmin: the sandbox etcd's port on the Pod's IP, which the
// operator writes the seed into, answers the sandbox's admin and refuses a
// client without a certificate and one whose certificate another CA signed.
func etcdOnlyForTheAdmin(sandbox *rest.Config) error {
	u, err := url.Parse(sandbox.Host)
	if err != nil {
		return err
	}
	endpoint := "https://" + net.JoinHostPort(u.Hostname(), strconv.Itoa(podruntime.SandboxEtcdPort))
	admin, err := rest.TLSConfigFor(sandbox)
	if err != nil {
		return err
	}
	// The server's name is checked by the operator (podruntime's own test);
	// here only the client's certificate is at stake.
	admin.InsecureSkipVerify = true
	strangerCert, strangerKey, err := certutil.GenerateSelfSignedCertKey("stranger", nil, nil)
	if err != nil {
		return err
	}
	stranger, err := tls.X509KeyPair(strangerCert, strangerKey)
	if err != nil {
		return err
	}
	answers := func(tlsConfig *tls.Config) error {
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, TLS: tlsConfig, Logger: zap.NewNop()})
		if err != nil {
			return err
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = c.Status(ctx, endpoint)
		return err
	}
	if err := answers(admin); err != nil {
		return fmt.Errorf("the sandbox's etcd at %s did not answer its admin: %w", endpoint, err)
	}
	for who, tlsConfig := range map[string]*tls.Config{
		"a client without a certificate":               {InsecureSkipVerify: true},
		"a client whose certificate another CA signed": {InsecureSkipVerify: true, Certificates: []tls.Certificate{stranger}},
	} {
		if err := answers(tlsConfig); err == nil {
			return fmt.Errorf("the sandbox's etcd at %s answered %s", endpoint, who)
		}
	}
	return nil
}

// trialOwner is the owner reference of the trial's objects: the SecondaryScheduler.
func (c *cluster) trialOwner(ctx context.Context, t *testing.T) metav1.OwnerReference {
	t.Helper()
	cr, err := c.getCR(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return metav1.OwnerReference{APIVersion: "operator.openshift.io/v1", Kind: "SecondaryScheduler", Name: cr.Name, UID: cr.UID, Controller: ptr.To(true)}
}
