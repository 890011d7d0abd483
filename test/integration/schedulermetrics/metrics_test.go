// Package schedulermetrics checks the alerts of group secondary-scheduler-slo
// (the PrometheusRule in manifests/optional) against the real kube-scheduler,
// so that a kube-scheduler that renames a metric, a label or a value they use
// fails a test instead of silencing an alert. The metrics, labels and values
// come from the rule expressions themselves.
//
// It runs the kube-scheduler binary (hack/controlplane/build.sh builds it
// beside kube-apiserver and etcd) with the operator's merged configuration,
// leader election included, against the package's kube-apiserver, has it
// schedule a pod, fail one and hold a gated one, and scrapes its /metrics.
package schedulermetrics

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// Plain Kubernetes: the scheduler needs none of the OpenShift CRDs.
func TestMain(m *testing.M) {
	framework.RunMain(m, framework.Options{WithoutOpenShiftCRDs: true})
}

func TestKubeSchedulerServesWhatTheAlertsUse(t *testing.T) {
	env := framework.Shared(t)
	binary := framework.Binary(t, "kube-scheduler")
	sels := sloSelectors(t)
	ctx := context.Background()
	kube := env.Admin.Kube

	// The operator's merged configuration for a SecondaryScheduler with no
	// config of its own: its profile and its lease, in the operand namespace.
	objs, err := render.Render(render.Inputs{SecondaryScheduler: &secondaryschedulerv1.SecondaryScheduler{
		ObjectMeta: metav1.ObjectMeta{Name: secondaryschedulerv1.SingletonName},
		Spec:       secondaryschedulerv1.SecondarySchedulerSpec{SchedulerImage: "registry.k8s.io/kube-scheduler:v1.37.2"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs.SchedulerNames) != 1 {
		t.Fatalf("the default configuration has profiles %v, want one", objs.SchedulerNames)
	}
	profile := objs.SchedulerNames[0]
	if _, err := kube.CoreV1().Namespaces().Create(ctx, objs.Namespace, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal([]byte(objs.ConfigMap.Data[names.ConfigKey]), &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["clientConnection"].(map[string]any)["kubeconfig"] = framework.WriteKubeconfig(t, env.Config)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	data, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, data, 0o600); err != nil {
		t.Fatal(err)
	}

	port := freePort(t)
	start := time.Now()
	// As admin (system:masters): RBAC is not what this checks. /metrics
	// answers anyone, without the delegated authorization the operand has.
	runScheduler(t, binary, "--config="+config, "--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--authorization-always-allow-paths=/metrics,/healthz", "-v=2")

	// One node; a pod that fits, one no node matches, one held by a scheduling gate.
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	if node, err = kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	node.Status = corev1.NodeStatus{Capacity: capacity, Allocatable: capacity,
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}
	if node, err = kube.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// What the node lifecycle controller would do for a Ready node: take off
	// the not-ready taint the API server's admission put on at creation.
	node.Spec.Taints = nil
	if _, err := kube.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ns := env.CreateNamespace(t, "metrics")
	for name, spec := range map[string]corev1.PodSpec{
		"fits":    {},
		"nowhere": {NodeSelector: map[string]string{"example.com/no-such-label": "true"}},
		"gated":   {SchedulingGates: []corev1.PodSchedulingGate{{Name: "example.com/hold"}}},
	} {
		spec.SchedulerName = profile
		spec.Containers = []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}
		if _, err := kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	url := fmt.Sprintf("https://127.0.0.1:%d/metrics", port)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		// kube-scheduler serves a self-signed certificate here.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // a test's own scheduler on loopback
	}}
	framework.WaitFor(ctx, t, "kube-scheduler to serve what the rules of group "+sloGroup+" select", func() (bool, error) {
		served, err := scrape(client, url)
		if err != nil {
			return false, err
		}
		var problems []string
		for _, s := range sels {
			problems = append(problems, s.missingFrom(served)...)
		}
		if len(problems) > 0 {
			return false, errors.New(strings.Join(problems, "\n"))
		}
		return true, nil
	})
	t.Logf("kube-scheduler served the %d selectors of group %s %s after its start", len(sels), sloGroup, time.Since(start).Round(100*time.Millisecond))
}

// series is one line of the text exposition: a name and its labels.
type series struct {
	name   string
	labels map[string]string
}

func (s series) String() string {
	var l []string
	for k, v := range s.labels {
		l = append(l, k+"="+strconv.Quote(v))
	}
	slices.Sort(l)
	return s.name + "{" + strings.Join(l, ", ") + "}"
}

// missingFrom says why the served series do not satisfy s: none has its
// metric name; none has every label it matches or groups by, with values its
// matchers accept; or a value it excludes (!=, !~) is not served at all, so
// the exclusion would no longer exclude anything.
func (s selector) missingFrom(served []series) []string {
	var named []series
	for _, x := range served {
		if x.name == s.metric {
			named = append(named, x)
		}
	}
	if len(named) == 0 {
		return []string{fmt.Sprintf("kube-scheduler serves no %s, which %s selects", s.metric, s)}
	}
	var problems []string
	found := slices.ContainsFunc(named, func(x series) bool {
		for _, l := range s.labels() {
			if _, ok := x.labels[l]; !ok {
				return false
			}
		}
		for _, m := range s.matchers {
			if !m.matches(x.labels[m.label]) {
				return false
			}
		}
		return true
	})
	if !found {
		problems = append(problems, fmt.Sprintf("no series of kube-scheduler matches %s (with labels %v); served: %v",
			s, s.labels(), first(named, 8)))
	}
	for _, m := range s.matchers {
		positive := map[string]string{"!=": "=", "!~": "=~"}[m.op]
		if positive == "" {
			continue
		}
		excluded := matcher{label: m.label, op: positive, value: m.value}
		if !slices.ContainsFunc(named, func(x series) bool { v, ok := x.labels[m.label]; return ok && excluded.matches(v) }) {
			problems = append(problems, fmt.Sprintf("%s excludes %s, which no series of kube-scheduler has; served: %v", s, m, first(named, 8)))
		}
	}
	return problems
}

func first(s []series, n int) []series { return s[:min(n, len(s))] }

// scrape returns the series of the text exposition at url, histograms and
// summaries as Prometheus stores them (_bucket with le, _sum, _count).
func scrape(client *http.Client, url string) ([]series, error) {
	resp, err := client.Get(url)
	if err != nil {
		return nil, fmt.Errorf("scraping kube-scheduler: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scraping kube-scheduler: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("parsing kube-scheduler's /metrics: %w", err)
	}
	var out []series
	for name, f := range families {
		for _, m := range f.GetMetric() {
			add := func(suffix string, extra ...string) {
				s := series{name: name + suffix, labels: map[string]string{}}
				for _, l := range m.GetLabel() {
					s.labels[l.GetName()] = l.GetValue()
				}
				for i := 0; i+1 < len(extra); i += 2 {
					s.labels[extra[i]] = extra[i+1]
				}
				out = append(out, s)
			}
			switch f.GetType() {
			case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
				for _, b := range m.GetHistogram().GetBucket() {
					add("_bucket", "le", model.FloatString(b.GetUpperBound()).String())
				}
				add("_sum")
				add("_count")
			case dto.MetricType_SUMMARY:
				for _, q := range m.GetSummary().GetQuantile() {
					add("", "quantile", model.FloatString(q.GetQuantile()).String())
				}
				add("_sum")
				add("_count")
			default:
				add("")
			}
		}
	}
	return out, nil
}

// runScheduler starts kube-scheduler until the test ends, and logs the end of
// its output if the test fails. The kernel kills it should the test binary
// die first.
func runScheduler(t *testing.T, binary string, args ...string) {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "kube-scheduler.log")
	out, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			logs, _ := os.ReadFile(logFile)
			t.Logf("kube-scheduler's log (the end):\n%s", tail(string(logs), 40))
		}
	})
}

// freePort returns a loopback TCP port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
