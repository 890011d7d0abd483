package schedulermetrics

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const (
	ruleManifest = "manifests/optional/0000_90_secondary-scheduler-operator_03_prometheusrule.yaml"
	// The group whose rules use kube-scheduler's own metrics.
	sloGroup = "secondary-scheduler-slo"
)

// targetLabels are the labels Prometheus sets from the scrape target (the
// ServiceMonitor's Service, endpoint and pod): kube-scheduler does not serve
// them, and one it served would be renamed exported_<name>.
var targetLabels = map[string]bool{
	"job": true, "namespace": true, "instance": true, "pod": true,
	"service": true, "endpoint": true, "container": true,
}

type matcher struct{ label, op, value string }

func (m matcher) String() string { return m.label + m.op + strconv.Quote(m.value) }

func (m matcher) matches(v string) bool {
	switch m.op {
	case "=":
		return v == m.value
	case "!=":
		return v != m.value
	case "=~":
		return regexp.MustCompile("^(?:" + m.value + ")$").MatchString(v)
	default: // "!~"
		return !regexp.MustCompile("^(?:" + m.value + ")$").MatchString(v)
	}
}

// selector is one vector selector of a rule's expression, with the labels
// the expression groups or matches by (by, without, on, ignoring,
// group_left, group_right). Those are taken to apply to every selector of the
// expression: true of the rules this reads, each of which aggregates one
// metric. target labels are left out of both.
type selector struct {
	rule     string
	metric   string
	matchers []matcher
	grouping []string
}

func (s selector) String() string {
	var m []string
	for _, x := range s.matchers {
		m = append(m, x.String())
	}
	return fmt.Sprintf("%s{%s} by %v (rule %s)", s.metric, strings.Join(m, ", "), s.grouping, s.rule)
}

// labels are the labels a served series must have for s to select it.
func (s selector) labels() []string {
	names := slices.Clone(s.grouping)
	for _, m := range s.matchers {
		names = append(names, m.label)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

var (
	selectorRE = regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{((?:[^{}"]|"(?:[^"\\]|\\.)*")*)\}`)
	matcherRE  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*")`)
	groupingRE = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^()]*)\)`)
	// What is left once selectors and grouping clauses are out: ranges and
	// durations, numbers, then identifiers (a function when a parenthesis follows).
	rangeRE  = regexp.MustCompile(`\[[^\]]*\]`)
	numberRE = regexp.MustCompile(`\b[0-9][0-9a-zA-Z.]*(?:[+-][0-9]+)?`)
	identRE  = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	keywords = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true, "Inf": true, "NaN": true}
)

// parseExpr returns the vector selectors of a PromQL expression. It knows the
// subset of PromQL the rules use, and errs on anything it cannot account for
// (a selector without braces, a string or brace outside a selector) rather
// than miss a metric.
func parseExpr(rule, expr string) ([]selector, error) {
	var grouping []string
	for _, g := range groupingRE.FindAllStringSubmatch(expr, -1) {
		for _, l := range strings.Split(g[1], ",") {
			if l = strings.TrimSpace(l); l != "" && !targetLabels[l] {
				grouping = append(grouping, l)
			}
		}
	}
	slices.Sort(grouping)
	grouping = slices.Compact(grouping)

	var sels []selector
	for _, m := range selectorRE.FindAllStringSubmatch(expr, -1) {
		s := selector{rule: rule, metric: m[1], grouping: grouping}
		if rest := strings.Trim(matcherRE.ReplaceAllString(m[2], ""), ", \t\n"); rest != "" {
			return nil, fmt.Errorf("rule %s: cannot read the matchers of %s: %q left", rule, m[0], rest)
		}
		for _, x := range matcherRE.FindAllStringSubmatch(m[2], -1) {
			value, err := strconv.Unquote(x[3])
			if err != nil {
				return nil, fmt.Errorf("rule %s: %s: %w", rule, x[0], err)
			}
			if x[1] == "__name__" {
				return nil, fmt.Errorf("rule %s: %s: a metric name in a matcher is not supported here", rule, m[0])
			}
			if !targetLabels[x[1]] {
				s.matchers = append(s.matchers, matcher{label: x[1], op: x[2], value: value})
			}
		}
		sels = append(sels, s)
	}
	if len(sels) == 0 {
		return nil, fmt.Errorf("rule %s selects no metric with label matchers: %s", rule, expr)
	}

	rest := selectorRE.ReplaceAllString(expr, " ")
	rest = groupingRE.ReplaceAllString(rest, " ")
	rest = rangeRE.ReplaceAllString(rest, " ")
	rest = numberRE.ReplaceAllString(rest, " ")
	if i := strings.IndexAny(rest, "{}\"'`#"); i >= 0 {
		return nil, fmt.Errorf("rule %s: cannot account for %q in %s", rule, rest[i:], expr)
	}
	for _, id := range identRE.FindAllStringSubmatch(rest, -1) {
		if id[1] == "" && !keywords[id[0]] {
			return nil, fmt.Errorf("rule %s: %q is a selector without label matchers, or PromQL this test does not know: %s", rule, id[0], expr)
		}
	}
	return sels, nil
}

// sloSelectors returns every vector selector of the rules of group sloGroup
// in the PrometheusRule of manifests/optional.
func sloSelectors(t *testing.T) []selector {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, ruleManifest))
	if err != nil {
		t.Fatal(err)
	}
	var rule struct {
		Spec struct {
			Groups []struct {
				Name  string `json:"name"`
				Rules []struct {
					Alert  string `json:"alert"`
					Record string `json:"record"`
					Expr   string `json:"expr"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &rule); err != nil {
		t.Fatalf("%s: %v", ruleManifest, err)
	}
	var sels []selector
	for _, g := range rule.Spec.Groups {
		if g.Name != sloGroup {
			continue
		}
		for _, r := range g.Rules {
			s, err := parseExpr(r.Alert+r.Record, r.Expr)
			if err != nil {
				t.Fatalf("%s: %v", ruleManifest, err)
			}
			sels = append(sels, s...)
		}
	}
	if len(sels) == 0 {
		t.Fatalf("%s: no rule in group %s", ruleManifest, sloGroup)
	}
	return sels
}

// TestParseExpr: what parseExpr reads of an expression, and that it refuses
// what it cannot read instead of missing a metric.
func TestParseExpr(t *testing.T) {
	sels, err := parseExpr("A", `histogram_quantile(0.99, sum by (namespace, profile, le) (rate(m_bucket{job="j", namespace="n", a!="x,}y"}[10m]))) > 5
		and on (namespace, profile) sum by (namespace, profile) (increase(c_total{namespace="n", b=~"p|q"}[30m])) >= 3e1`)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(sels)
	want := `[m_bucket{a!="x,}y"} by [le profile] (rule A) c_total{b=~"p|q"} by [le profile] (rule A)]`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for _, expr := range []string{
		`sum(m) > 0`,                           // no braces
		`m{job="j"} + bare_metric`,             // a bare selector beside one with braces
		`m{job="j"} unless on(x) n{a="b"} # c`, // a comment
		`m{job=j}`,                             // an unquoted value
		`vector(1)`,                            // no metric at all
	} {
		if _, err := parseExpr("B", expr); err == nil {
			t.Errorf("parseExpr(%q) took it; it must refuse what it cannot account for", expr)
		}
	}
}
