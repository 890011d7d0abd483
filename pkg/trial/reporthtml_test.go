package trial

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A trial over more nodes than MaxSpreadNodes keeps those whose counts
// changed most, says how many it left out, and the page says it too.
func TestSpreadBound(t *testing.T) {
	var replay []corev1.Pod
	current, candidate := Outcome{}, Outcome{}
	const nodes = 5000
	for i := range nodes {
		p := replayPod(fmt.Sprintf("p-%d", i), "")
		replay = append(replay, p)
		current["ns/"+p.Name] = Placement{Node: fmt.Sprintf("n-%d", i)}
		candidate["ns/"+p.Name] = Placement{Node: fmt.Sprintf("n-%d", i)}
	}
	// n-7 loses 3 pods to n-9: the largest differences.
	for i := range 3 {
		p := replayPod(fmt.Sprintf("moved-%d", i), "")
		replay = append(replay, p)
		current["ns/"+p.Name], candidate["ns/"+p.Name] = Placement{Node: "n-7"}, Placement{Node: "n-9"}
	}
	c := Compare(replay, current, candidate, current)
	if len(c.Spread) != MaxSpreadNodes || c.SpreadLeftOut != nodes-MaxSpreadNodes {
		t.Fatalf("%d nodes in the spread, %d left out; want %d and %d", len(c.Spread), c.SpreadLeftOut, MaxSpreadNodes, nodes-MaxSpreadNodes)
	}
	if c.Spread[0] != (NodeSpread{"n-7", 4, 1, 4}) || c.Spread[1] != (NodeSpread{"n-9", 1, 4, 1}) {
		t.Errorf("the spread starts %+v, want the nodes that changed most first", c.Spread[:2])
	}
	var page bytes.Buffer
	if err := (&Report{Comparison: c, Verdict: Gate{}.Check(c)}).WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(page.String(), "<g data-node="); n != MaxSpreadNodes {
		t.Errorf("the chart has %d nodes, want %d", n, MaxSpreadNodes)
	}
	if want := fmt.Sprintf(`data-figure="spreadLeftOut">%d<`, nodes-MaxSpreadNodes); !strings.Contains(page.String(), want) {
		t.Errorf("the page does not say how many nodes it left out (%s)", want)
	}
}

// Names and messages come from the cluster: the page escapes them.
func TestReportPageEscapes(t *testing.T) {
	replay := []corev1.Pod{replayPod("<script>alert(1)</script>", "")}
	c := Compare(replay, Outcome{"ns/<script>alert(1)</script>": {Node: `"><img src=x>`}}, Outcome{"ns/<script>alert(1)</script>": {Reason: "<b>no</b>"}}, nil)
	var page bytes.Buffer
	if err := (&Report{Comparison: c, Verdict: Gate{}.Check(c)}).WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"<script>", "<img", "<b>no</b>"} {
		if strings.Contains(page.String(), raw) {
			t.Errorf("the page holds %s unescaped", raw)
		}
	}
	if !strings.Contains(page.String(), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the unit's name is not shown escaped")
	}
}
