package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// operatorProcess is the operator binary running as a host process (its PID
// and the https address of its --listen), read as an administrator.
type operatorProcess struct {
	url    string
	pid    int
	client *http.Client
}

// newOperatorProcess reads the operator's endpoints with admin's client
// certificate: the operator serves a certificate of its own making.
func newOperatorProcess(admin *rest.Config, url string, pid int) (*operatorProcess, error) {
	cfg := rest.CopyConfig(admin)
	cfg.TLSClientConfig = rest.TLSClientConfig{Insecure: true, CertFile: admin.CertFile, KeyFile: admin.KeyFile,
		CertData: admin.CertData, KeyData: admin.KeyData}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	client.Timeout = 30 * time.Second
	return &operatorProcess{url: strings.TrimSuffix(url, "/"), pid: pid, client: client}, nil
}

func (p *operatorProcess) get(path string) ([]byte, error) {
	resp, err := p.client.Get(p.url + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %.200s", path, resp.Status, body)
	}
	return body, nil
}

// profileDuring saves into dir the operator's /metrics and allocation
// profile, now and when the returned func is called, and a CPU profile of
// the first seconds in between (seconds under the client's 30 s timeout):
// what a slow reaction spent. It does nothing when dir is "".
func (p *operatorProcess) profileDuring(b *testing.B, dir string, seconds int) (done func()) {
	if dir == "" {
		return func() {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	save := func(name, path string) {
		body, err := p.get(path)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), body, 0o644)
		}
		if err != nil {
			b.Logf("saving the operator's %s: %v", name, err)
		}
	}
	save("metrics.before", "/metrics")
	save("allocs.before", "/debug/pprof/allocs")
	var wg sync.WaitGroup
	wg.Go(func() { save("cpu.pprof", fmt.Sprintf("/debug/pprof/profile?seconds=%d", seconds)) })
	return func() {
		save("metrics.after", "/metrics")
		save("allocs.after", "/debug/pprof/allocs")
		wg.Wait()
	}
}

// heapAfterGC is the operator's HeapAlloc right after a garbage collection:
// its profiling endpoint collects first when asked with gc=1, and the text
// profile ends with the runtime's MemStats.
func (p *operatorProcess) heapAfterGC() (uint64, []byte, error) {
	body, err := p.get("/debug/pprof/heap?gc=1&debug=1")
	if err != nil {
		return 0, nil, err
	}
	h, err := heapAllocOf(body)
	return h, body, err
}

// heapTarget is the heap no section may take the operator over (the
// heap-max-MiB targets of hack/bench-hostile.sh).
const heapTarget = 64 << 20

// keepHeapOverTarget saves, into HOSTILE_PROFILE_DIR, the heap profile of
// a sample over heapTarget and the operator's goroutines right after it:
// what held the heap then, which a later run may not show again.
func (p *operatorProcess) keepHeapOverTarget(b *testing.B, sample int, profile []byte) {
	dir := os.Getenv("HOSTILE_PROFILE_DIR")
	if dir == "" {
		b.Logf("heap sample %d is over %d MiB; set HOSTILE_PROFILE_DIR to keep its profile", sample, heapTarget>>20)
		return
	}
	prefix := filepath.Join(dir, strings.NewReplacer("/", "_", "=", "-", ",", "_").Replace(b.Name())+fmt.Sprintf(".%d.", sample))
	// The sections before the first profile (idle, the load) find no directory yet.
	err := os.MkdirAll(dir, 0o755)
	var goroutines []byte
	if err == nil {
		goroutines, err = p.get("/debug/pprof/goroutine?debug=2")
	}
	if err == nil {
		err = os.WriteFile(prefix+"goroutines.txt", goroutines, 0o644)
	}
	if err == nil {
		err = os.WriteFile(prefix+"heap.txt", profile, 0o644)
	}
	if err != nil {
		b.Logf("keeping heap sample %d over %d MiB: %v", sample, heapTarget>>20, err)
	}
}

// heapAllocOf reads "# HeapAlloc = N" from a text heap profile.
func heapAllocOf(profile []byte) (uint64, error) {
	s := bufio.NewScanner(bytes.NewReader(profile))
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "# HeapAlloc = "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("no HeapAlloc in the heap profile (%d bytes)", len(profile))
}

// metrics returns the operator's /metrics by family name.
func (p *operatorProcess) metrics() (map[string]*dto.MetricFamily, error) {
	body, err := p.get("/metrics")
	if err != nil {
		return nil, err
	}
	return parseMetrics(body)
}

func parseMetrics(text []byte) (map[string]*dto.MetricFamily, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(bytes.NewReader(text))
}

// sum adds up every series of metric name (any labels) in families, and
// counts them.
func sum(families map[string]*dto.MetricFamily, name string) (total float64, series int) {
	return sumWhere(families, name, "", "")
}

// sumWhere is sum over the series of name whose label key is value (any
// series for key "").
func sumWhere(families map[string]*dto.MetricFamily, name, key, value string) (total float64, series int) {
	for _, m := range families[name].GetMetric() {
		if key != "" && labelOf(m, key) != value {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.Counter.GetValue()
		case m.Gauge != nil:
			total += m.Gauge.GetValue()
		case m.Untyped != nil:
			total += m.Untyped.GetValue()
		default:
			continue
		}
		series++
	}
	return total, series
}

func labelOf(m *dto.Metric, key string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == key {
			return l.GetValue()
		}
	}
	return ""
}

// metric is the sum of metric name's series on /metrics, failing b when it has none.
func (p *operatorProcess) metric(b *testing.B, name string) float64 {
	b.Helper()
	samples, err := p.metrics()
	if err != nil {
		b.Fatal(err)
	}
	v, n := sum(samples, name)
	if n == 0 {
		b.Fatalf("the operator's /metrics has no %s", name)
	}
	return v
}

// status reads VmRSS and VmHWM (the peak RSS) of the process, in MiB; an
// error when it is gone or a zombie.
func (p *operatorProcess) status() (rss, peak float64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
	if err != nil {
		return 0, 0, fmt.Errorf("the operator (pid %d) is gone: %w", p.pid, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kib, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "State:":
			if f[1] == "Z" || f[1] == "X" {
				return 0, 0, fmt.Errorf("the operator (pid %d) exited", p.pid)
			}
		case "VmRSS:":
			rss = kib / 1024
		case "VmHWM:":
			peak = kib / 1024
		}
	}
	return rss, peak, nil
}

// cpuMillis is the CPU time the process has used (user and system), in ms.
func (p *operatorProcess) cpuMillis() float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses: utime
	// and stime are the 12th and 13th, in clock ticks of 10 ms.
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) * 10
}

// report prints the operator's heap after a GC, samples times a second apart
// (min, median, max), its RSS now and at its peak, and fails b if the process
// is gone.
func (p *operatorProcess) report(b *testing.B, samples int) {
	b.Helper()
	var heaps []float64
	for i := range samples {
		if i > 0 {
			time.Sleep(time.Second)
		}
		h, profile, err := p.heapAfterGC()
		if err != nil {
			b.Fatal(err)
		}
		if h > heapTarget {
			p.keepHeapOverTarget(b, i, profile)
		}
		heaps = append(heaps, mib(h))
	}
	reportSpread(b, "heap", "MiB", heaps)
	rss, peak, err := p.status()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(rss, "rss-MiB")
	b.ReportMetric(peak, "rss-peak-MiB")
}

// reportSpread reports the min, median and max of values, and how many there are.
func reportSpread(b *testing.B, name, unit string, values []float64) {
	v := slices.Clone(values)
	slices.Sort(v)
	b.ReportMetric(v[0], name+"-min-"+unit)
	b.ReportMetric(v[len(v)/2], name+"-median-"+unit)
	b.ReportMetric(v[len(v)-1], name+"-max-"+unit)
	b.ReportMetric(float64(len(v)), name+"-samples")
}

// waitUntil polls cond every second for up to timeout.
func waitUntil(b *testing.B, timeout time.Duration, what string, cond func() (bool, string)) {
	b.Helper()
	waitUntilEvery(b, timeout, time.Second, what, cond)
}

// waitUntilEvery is waitUntil, trying cond every poll.
func waitUntilEvery(b *testing.B, timeout, poll time.Duration, what string, cond func() (bool, string)) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		ok, state := cond()
		if ok {
			return
		}
		select {
		case <-ctx.Done():
			b.Fatalf("%s: not within %s (%s)", what, timeout, state)
		case <-time.After(poll):
		}
	}
}

// syncsMetric counts each controller's syncs.
const syncsMetric = "secondary_scheduler_operator_controller_syncs_total"

// syncs is how many times controller ("" for every controller) has synced.
func (p *operatorProcess) syncs(b *testing.B, controller string) float64 {
	b.Helper()
	samples, err := p.metrics()
	if err != nil {
		b.Fatal(err)
	}
	key := ""
	if controller != "" {
		key = "controller"
	}
	v, _ := sumWhere(samples, syncsMetric, key, controller)
	return v
}

// syncDurationMetric is the operator's histogram of each controller's syncs;
// queueWaitMetric is client-go's of how long a queued key waited for a sync.
const (
	syncDurationMetric = "secondary_scheduler_operator_controller_sync_duration_seconds"
	queueWaitMetric    = "workqueue_queue_duration_seconds"
)

// syncBuckets is the cumulative count of controller's syncs by bucket upper
// bound (le, in seconds; +Inf as math.Inf).
func (p *operatorProcess) syncBuckets(b *testing.B, controller string) map[float64]float64 {
	return p.buckets(b, syncDurationMetric, "controller", controller)
}

// queueWaitBuckets is syncBuckets for the waits of controller's queue.
func (p *operatorProcess) queueWaitBuckets(b *testing.B, controller string) map[float64]float64 {
	return p.buckets(b, queueWaitMetric, "name", controller)
}

// targetConfigShare reads the target-config controller's syncs and queue
// waits, and returns what reports them since: the operator's own share of a
// reaction (a slow sync, or a change waiting in the queue for one).
func (p *operatorProcess) targetConfigShare(b *testing.B) func() {
	syncs, waits := p.syncBuckets(b, "TargetConfigController"), p.queueWaitBuckets(b, "TargetConfigController")
	return func() {
		reportSyncs(b, "target-config-sync", syncs, p.syncBuckets(b, "TargetConfigController"))
		reportSyncs(b, "target-config-queue-wait", waits, p.queueWaitBuckets(b, "TargetConfigController"))
	}
}

// buckets is the cumulative count by bucket upper bound of the histogram
// metric's series whose label key is value.
func (p *operatorProcess) buckets(b *testing.B, metric, key, value string) map[float64]float64 {
	b.Helper()
	families, err := p.metrics()
	if err != nil {
		b.Fatal(err)
	}
	out := bucketsOf(families, metric, map[string]string{key: value})
	if len(out) == 0 {
		b.Fatalf("the operator's /metrics has no histogram %s with %s=%q", metric, key, value)
	}
	return out
}

// bucketsOf sums the cumulative counts by bucket upper bound of the
// histogram metric's series that carry every label of labels ("" matches a
// label that is empty or absent).
func bucketsOf(families map[string]*dto.MetricFamily, metric string, labels map[string]string) map[float64]float64 {
	out := map[float64]float64{}
	for _, m := range families[metric].GetMetric() {
		h := m.GetHistogram()
		if h == nil || !hasLabels(m, labels) {
			continue
		}
		for _, bucket := range h.GetBucket() {
			if !math.IsInf(bucket.GetUpperBound(), 1) { // the sample count is the +Inf bucket's, with or without the line
				out[bucket.GetUpperBound()] += float64(bucket.GetCumulativeCount())
			}
		}
		out[math.Inf(1)] += float64(h.GetSampleCount())
	}
	return out
}

func hasLabels(m *dto.Metric, labels map[string]string) bool {
	for k, v := range labels {
		if labelOf(m, k) != v {
			return false
		}
	}
	return true
}

// apiServerLatency is the API server's histogram of the time it took to
// handle verb requests on resource and subresource ("" for the object
// itself), cumulative by bucket: set beside a reaction, how much of it was
// the API server's. A server-side apply is counted as verb APPLY.
func apiServerLatency(b *testing.B, admin *framework.Clients, verb, resource, subresource string) map[float64]float64 {
	b.Helper()
	body, err := admin.Kube.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		b.Fatalf("the API server's /metrics: %v", err)
	}
	families, err := parseMetrics(body)
	if err != nil {
		b.Fatalf("the API server's /metrics: %v", err)
	}
	return bucketsOf(families, "apiserver_request_duration_seconds", map[string]string{"verb": verb, "resource": resource, "subresource": subresource})
}

// apiServerShare reads apiServerLatency, and returns what reports, as name,
// the requests it counted since.
func apiServerShare(b *testing.B, admin *framework.Clients, name, verb, resource, subresource string) func() {
	before := apiServerLatency(b, admin, verb, resource, subresource)
	return func() { reportSyncs(b, name, before, apiServerLatency(b, admin, verb, resource, subresource)) }
}

// reportSyncs reports the syncs between two readings of syncBuckets: how
// many, how many took over 100 ms, and the upper bounds of the buckets that
// hold the median and the 99th percentile. Set beside a reaction time, it
// tells the operator's own share of the reaction from the API server's and
// the machine's.
func reportSyncs(b *testing.B, name string, before, after map[float64]float64) {
	bounds := make([]float64, 0, len(after))
	for le := range after {
		bounds = append(bounds, le)
	}
	slices.Sort(bounds)
	total := after[math.Inf(1)] - before[math.Inf(1)]
	b.ReportMetric(total, name+"s")
	b.ReportMetric(total-(after[0.1]-before[0.1]), name+"s-over-100ms")
	if total == 0 {
		return
	}
	for _, q := range []struct {
		share float64
		name  string
	}{{0.5, "-p50-at-most-ms"}, {0.99, "-p99-at-most-ms"}} {
		for _, le := range bounds {
			if after[le]-before[le] >= q.share*total {
				if !math.IsInf(le, 1) { // beyond the last bound: the count over 100 ms says it
					b.ReportMetric(le*1000, name+q.name)
				}
				break
			}
		}
	}
}
