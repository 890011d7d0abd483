// Package reportpage opens the trial report's HTML page (trial.Report.WriteHTML)
// in a headless Chromium: the DOM a browser builds from it must hold the
// figures of the JSON report, and its screenshot is the one docs/trial.md shows.
package reportpage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const (
	// optionalEnv lets a machine without Chromium skip the browser checks; CI never does.
	optionalEnv = "CHROMIUM_OPTIONAL"
	// updateEnv writes the screenshot to screenshotPath.
	updateEnv      = "UPDATE_SCREENSHOT"
	screenshotPath = "../../docs/images/trial-report.png"
	// maxScreenshot keeps the committed PNG small.
	maxScreenshot = 200_000
	// The window the screenshot is taken in: as wide as the page's layout,
	// as tall as the fixture's page.
	windowSize = "1100,1660"
)

// TestReportPageInChromium renders a blocked trial's report, loads it in
// Chromium and reads back what the browser shows.
func TestReportPageInChromium(t *testing.T) {
	r := blockedReport()
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	chromium := findChromium(t)
	dom := runChromium(t, chromium, dir, "--dump-dom", "file://"+page)
	checkFigures(t, r, dom)
	checkUnits(t, r, dom)
	checkChart(t, r, dom)
	if refs := externalRefs(dom); len(refs) > 0 {
		t.Errorf("the page as loaded refers to the network: %q", refs)
	}

	shot := filepath.Join(dir, "report.png")
	runChromium(t, chromium, dir, "--hide-scrollbars", "--window-size="+windowSize, "--screenshot="+shot, "file://"+page)
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("chromium --screenshot wrote nothing: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b = smallPNG(t, img)
	t.Logf("screenshot: %dx%d, %d bytes", img.Bounds().Dx(), img.Bounds().Dy(), len(b))
	if len(b) > maxScreenshot {
		t.Errorf("the screenshot is %d bytes, more than the %d docs/trial.md may carry", len(b), maxScreenshot)
	}
	if os.Getenv(updateEnv) != "" {
		if err := os.WriteFile(screenshotPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", screenshotPath)
	}
}

// smallPNG is img in its 256 most frequent colours, compressed for size: the
// page has few colours besides the shades of its text's edges.
func smallPNG(t *testing.T, img image.Image) []byte {
	freq := map[color.RGBA]int{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			freq[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colors := make([]color.RGBA, 0, len(freq))
	for c := range freq {
		colors = append(colors, c)
	}
	sort.Slice(colors, func(i, j int) bool {
		if freq[colors[i]] != freq[colors[j]] {
			return freq[colors[i]] > freq[colors[j]]
		}
		return fmt.Sprint(colors[i]) < fmt.Sprint(colors[j])
	})
	var pal color.Palette
	for _, c := range colors[:min(256, len(colors))] {
		pal = append(pal, c)
	}
	paletted := image.NewPaletted(bounds, pal)
	draw.Draw(paletted, bounds, img, bounds.Min, draw.Src)
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, paletted); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// findChromium is $CHROMIUM, else chromium on $PATH. Missing, the test
// fails (hack/prereqs.sh --install installs it), unless CHROMIUM_OPTIONAL
// says this machine may go without, outside CI.
func findChromium(t *testing.T) string {
	name := os.Getenv("CHROMIUM")
	if name == "" {
		name = "chromium"
	}
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	msg := fmt.Sprintf("%s not found (%v): install the Debian package chromium (hack/prereqs.sh --install does, as root) or name the binary in $CHROMIUM", name, err)
	if os.Getenv(optionalEnv) != "" && !framework.InCI() {
		t.Skipf("%s; skipped because %s is set", msg, optionalEnv)
	}
	if !framework.InCI() {
		msg += fmt.Sprintf("; %s=1 skips this test on a machine without it", optionalEnv)
	}
	t.Fatal(msg)
	return ""
}

// runChromium runs a headless Chromium with its own profile in dir and
// returns what it printed.
func runChromium(t *testing.T, chromium, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-dev-shm-usage", "--user-data-dir=" + filepath.Join(dir, "profile")}
	if os.Geteuid() == 0 {
		base = append(base, "--no-sandbox") // Chromium refuses to run its sandbox as root
	}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", chromium, strings.Join(args, " "), err, tail(stderr.String(), 2000))
	}
	return stdout.String()
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

var figureRE = regexp.MustCompile(`data-figure="([^"]+)"[^>]*>(?:<[^>]*>)*([^<]*)<`)

// figures are the page's data-figure elements by name (their JSON path).
func figures(dom string) map[string][]string {
	out := map[string][]string{}
	for _, m := range figureRE.FindAllStringSubmatch(dom, -1) {
		out[m[1]] = append(out[m[1]], strings.TrimSpace(html.UnescapeString(m[2])))
	}
	return out
}

// checkFigures: every count the JSON report holds is on the page, with the
// verdict, its message and reasons, and the gate.
func checkFigures(t *testing.T, r *trial.Report, dom string) {
	var js map[string]any
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	got := figures(dom)
	want := map[string]string{"verdict": "blocked", "verdict.message": r.Verdict.Message}
	for _, group := range []string{"counts", "snapshot", "current", "candidate", "rerun", "gate"} {
		for k, v := range js[group].(map[string]any) {
			if n, ok := v.(float64); ok && !strings.HasSuffix(k, "Nanos") {
				want[group+"."+k] = fmt.Sprint(n)
			}
		}
	}
	if len(want) < 20 {
		t.Fatalf("only %d figures in the JSON report: %v", len(want), want)
	}
	for name, w := range want {
		if g := got[name]; len(g) != 1 || g[0] != w {
			t.Errorf("figure %s: the page shows %q, the JSON report %q", name, g, w)
		}
	}
	if g := got["verdict.reasons"]; fmt.Sprint(g) != fmt.Sprint(r.Verdict.Reasons) || len(g) == 0 {
		t.Errorf("the page gives the reasons %q, the report %q", g, r.Verdict.Reasons)
	}
}

var unitRE = regexp.MustCompile(`<tr data-unit="([^"]+)"`)

// checkUnits: the page lists exactly the units that changed.
func checkUnits(t *testing.T, r *trial.Report, dom string) {
	var listed, want []string
	for _, m := range unitRE.FindAllStringSubmatch(dom, -1) {
		listed = append(listed, html.UnescapeString(m[1]))
	}
	for _, u := range r.Units {
		if u.Change != trial.Same {
			want = append(want, u.Name)
			if !strings.Contains(dom, html.EscapeString(u.Name)+"</td>") {
				t.Errorf("unit %s is not shown by name", u.Name)
			}
		}
	}
	if fmt.Sprint(listed) != fmt.Sprint(want) || len(want) < 5 {
		t.Errorf("the page lists the units %q, want the changed ones %q", listed, want)
	}
}

var nodeRE = regexp.MustCompile(`<g data-node="([^"]+)" data-current="(\d+)" data-candidate="(\d+)"`)

// checkChart: a group of two bars per node of the report's spread.
func checkChart(t *testing.T, r *trial.Report, dom string) {
	var got, want []string
	for _, m := range nodeRE.FindAllStringSubmatch(dom, -1) {
		got = append(got, m[1]+" "+m[2]+" "+m[3])
	}
	for _, s := range r.Spread {
		want = append(want, fmt.Sprintf("%s %d %d", s.Node, s.Current, s.Candidate))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
		t.Errorf("the chart shows %q, the report's spread is %q", got, want)
	}
	if n := strings.Count(dom, "<rect "); n != 2*len(want) {
		t.Errorf("the chart has %d bars, want 2 per node for %d nodes", n, len(want))
	}
}

// externalRefs are the src, href and url() values of a page that point off it.
func externalRefs(dom string) []string {
	return externalRE.FindAllString(dom, -1)
}

var externalRE = regexp.MustCompile(`(?i)(?:\b(?:src|href|action|srcset)\s*=\s*["']?\s*|url\(\s*["']?\s*|@import\s+["']?)(?:[a-z][a-z0-9+.-]*:)?//[^"' )>]*`)

// TestExternalRefs: the check above finds each way a page can fetch.
func TestExternalRefs(t *testing.T) {
	for _, s := range []string{`<img src="http://x/a.png">`, `<link href='https://cdn/x.css'>`, `<script src=//cdn/x.js>`,
		`<div style="background: url( 'https://x/y.png')">`, `@import "http://x/y.css";`, `<form action="https://x">`} {
		if len(externalRefs(s)) != 1 {
			t.Errorf("no external reference found in %s", s)
		}
	}
	for _, s := range []string{`<a href="#units">`, `<p>see https://example.org</p>`, `<td>url(x)</td>`} {
		if refs := externalRefs(s); len(refs) != 0 {
			t.Errorf("%s: found %q, which fetches nothing", s, refs)
		}
	}
}

// TestReportPageGolden: the page of the blocked trial, as a reviewer reads
// it (UPDATE_GOLDEN=1 go test ./test/reportpage/ rewrites testdata/trial-report.html).
// It holds no script and nothing a browser would fetch.
func TestReportPageGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := blockedReport().WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"<script", "<link", "<img", "<iframe", "<object", "<embed"} {
		if strings.Contains(buf.String(), tag) {
			t.Errorf("the page holds %s", tag)
		}
	}
	if refs := externalRefs(buf.String()); len(refs) > 0 {
		t.Errorf("the page refers to the network: %q", refs)
	}
	golden := filepath.Join("testdata", "trial-report.html")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 writes it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the page differs from %s; look at the difference and rewrite it with UPDATE_GOLDEN=1", golden)
	}
}
