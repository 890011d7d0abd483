package schedulerconfig

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
)

func TestDocumentBounds(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"too big", "# " + strings.Repeat("x", MaxDocumentBytes) + "\n", "bytes; at most 1048576 are read"},
		{"a merge key", "profiles:\n- schedulerName: a\n  plugins: &p {score: {disabled: [{name: ImageLocality}]}}\n- <<: {schedulerName: b}\n  plugins: *p\n",
			"line 3: YAML anchors and aliases"},
		{"an anchor nobody uses", "profiles:\n- &a schedulerName: a\n", "line 2: YAML anchors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, problems, err := mergeStrings(user(tc.config))
			if err != nil || len(problems) != 1 || !strings.Contains(problems[0], tc.want) {
				t.Fatalf("Merge: %q, %v; want %q", problems, err, tc.want)
			}
		})
	}
	// Plain values within MaxIndicators are fine; one more indicator is
	// refused, naming the line that crossed the bound.
	values := func(n int) string {
		// 10 indicators and n-1 commas, value i on line 4+i
		return "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: X\n    args: {v: [" + strings.TrimSuffix(strings.Repeat("1,\n", n), ",\n") + "]}\n"
	}
	atBound := values(MaxIndicators - 9)
	if got := strings.Count(atBound, ",") + strings.Count(atBound, ":") + strings.Count(atBound, "-") + strings.Count(atBound, "[") + strings.Count(atBound, "{"); got != MaxIndicators {
		t.Fatalf("the document at the bound holds %d indicators", got)
	}
	if _, problems, err := mergeStrings(user(atBound)); err != nil || len(problems) > 0 {
		t.Errorf("%d indicators: %q, %v", MaxIndicators, problems, err)
	}
	over := values(MaxIndicators - 8)
	want := fmt.Sprintf("line %d: more than %d of the characters that begin YAML entries", 4+MaxIndicators-9, MaxIndicators)
	if _, problems, err := mergeStrings(user(over)); err != nil || len(problems) != 1 || !strings.Contains(problems[0], want) {
		t.Errorf("%d indicators: %q, %v; want %q", MaxIndicators+1, problems, err, want)
	}
}

// An anchor near the top is refused from the text before it; a '&' or '*'
// that is not an anchor or alias there leaves the document to the whole
// parse, which refuses a later anchor and passes a document with none.
func TestEarlyAnchor(t *testing.T) {
	large := strings.Repeat("x", 900<<10)
	tests := []struct {
		name, config string
		early        bool // refused by earlyAnchor, without the whole parse
		line         int  // the line CheckDocument names, 0 for no refusal
	}{
		{"a large anchored value", "s: &s " + large + "\nl: [*s, *s]\n", true, 1},
		{"an anchor on a mapping", "a: 1\nb: &m\n  c: 2\nd: *m\n", true, 2},
		{"an anchor on a key", "&k key: v\n", true, 1},
		{"in a quoted string, then an anchor", "a: \"x & y\"\nb: &b 1\n", false, 2},
		{"in a plain scalar", "a: x&y *z\n", false, 0},
		{"in a continued plain scalar", "a: x\n  &y z\n", false, 0},
		{"in a block scalar", "a: |\n  &x\nb: &b 1\n", false, 3},
		{"in a comment", "# &x\na: 1\n", false, 0},
		{"in a tag", "a: !x&y 1\n", false, 0},
		{"an alias before its anchor", "a: *x\n", false, 0}, // does not parse: the decoder names it
		{"in a flow sequence", "a: [&x 1, *x]\n", false, 1},
		{"in a second document", "a: 1\n---\nb: &x 2\n", false, 0}, // the decoders read the first document
		{"past the early bytes", "a: " + large + "\nb: &b 1\n", false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if early := earlyAnchor([]byte(tc.config)) != nil; early != tc.early {
				t.Errorf("earlyAnchor found one: %v, want %v", early, tc.early)
			}
			err := CheckDocument([]byte(tc.config))
			if tc.line == 0 {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if want := fmt.Sprintf("line %d: YAML anchors and aliases", tc.line); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("CheckDocument: %v, want %q", err, want)
			}
		})
	}
}

// CheckedTreeHead gives its caller the first earlyAnchorBytes of a large
// document, a block scalar cut short among them (its value the first bytes
// of the document's), and returns the caller's
// refusal without the whole parse; a document within those bytes is parsed
// whole, with no head.
func TestCheckedTreeHead(t *testing.T) {
	large := "v: |\n  first line\n  " + strings.Repeat("x", 900<<10) + "\n"
	var heads []*yamlv3.Node
	refuse := errors.New("refused from the head")
	tree, err := CheckedTreeHead([]byte(large), func(head *yamlv3.Node) error {
		heads = append(heads, head)
		return refuse
	})
	if err != refuse || tree != nil || len(heads) != 1 {
		t.Fatalf("CheckedTreeHead: %v, %v, %d heads; want the caller's refusal from one head", tree, err, len(heads))
	}
	v := heads[0].Content[0].Content[1]
	if want := "first line\n" + strings.Repeat("x", earlyAnchorBytes-len("v: |\n  first line\n  ")); v.Value != want || v.Style != yamlv3.LiteralStyle {
		t.Errorf("the head's block scalar: %d bytes, style %v; want the document's first %d", len(v.Value), v.Style, len(want))
	}
	// Accepted by the caller: the whole parse, and the value whole.
	if tree, err := CheckedTreeHead([]byte(large), func(*yamlv3.Node) error { return nil }); err != nil || len(tree.Content[0].Content[1].Value) != len("first line\n")+900<<10+1 {
		t.Errorf("CheckedTreeHead, the head accepted: %v", err)
	}
	// A head cut inside a quoted string does not parse alone: nil.
	quoted := "v: \"" + strings.Repeat("x", earlyAnchorBytes) + "\"\n"
	heads = nil
	if _, err := CheckedTreeHead([]byte(quoted), func(head *yamlv3.Node) error { heads = append(heads, head); return nil }); err != nil || len(heads) != 1 || heads[0] != nil {
		t.Errorf("a head in an open quoted string: %v, %v", err, heads)
	}
	// Small: no head.
	if _, err := CheckedTreeHead([]byte("a: 1\n"), func(*yamlv3.Node) error { return refuse }); err != nil {
		t.Errorf("a document within the early bytes was given to refuse: %v", err)
	}
}

// FuzzCheckedTree holds CheckedTree, with its early look for an anchor, to
// the whole parse alone: for every document that parses, the same refusal
// naming the same line, or the same tree. One that does not parse may be
// refused early for the anchor it holds, or left to the decoder. One past
// MaxIndicators is refused for that, parsed or not.
//
//	go test ./pkg/operator/render/schedulerconfig/ -run '^$' -fuzz FuzzCheckedTree -fuzztime 60s
func FuzzCheckedTree(f *testing.F) {
	for _, seed := range []string{
		"a: &a 1\nb: *a\n", "a: \"&\"\nb: &b 1\n", "a: |\n  &x\n", "&k k: v\n", "a:\n  &m\n  b: 1\n",
		"a: [&x 1, *x]\n", "- &a\n- *a\n", "? &k a\n: b\n", "a: !t&x 1\n", "a: 'x\n  &y'\n", "a: x\n  *y\n",
		"%YAML 1.2\n---\n&a x\n", "a: 1\n---\nb: &x\n", "a: >\n  *x\n&b c: 1\n", "{&a a: *a}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, err := CheckedTree(data)
		if indicatorOverflow(data) > 0 { // counted before any parse
			if tree != nil || err == nil || !strings.Contains(err.Error(), "of the characters that begin YAML entries") {
				t.Fatalf("a document past MaxIndicators: %v", err)
			}
			return
		}
		var whole yamlv3.Node
		if yamlv3.Unmarshal(data, &whole) != nil {
			if tree != nil {
				t.Fatalf("a tree for a document that does not parse")
			}
			if err != nil && !strings.Contains(err.Error(), "YAML anchors") {
				t.Fatalf("refused for another reason: %v", err)
			}
			return
		}
		var want error
		if n := firstAnchor(&whole); n != nil {
			want = anchorError(n)
		}
		if fmt.Sprint(err) != fmt.Sprint(want) {
			t.Fatalf("CheckedTree: %v\nthe whole parse: %v", err, want)
		}
		if want == nil && tree == nil {
			t.Fatalf("no tree for a document that parses")
		}
	})
}

// FuzzIndicatorsBoundNodes holds MaxIndicators to what it promises: a
// document that parses has at most three nodes per indicator, and two more.
//
//	go test ./pkg/operator/render/schedulerconfig/ -run '^$' -fuzz FuzzIndicatorsBoundNodes -fuzztime 60s
func FuzzIndicatorsBoundNodes(f *testing.F) {
	for _, seed := range []string{
		"", "a", "{a}", "{a, b}", "[a]", "[a: b]", "[? ]", "{?}", "- a: b", "- - - a", "? - a", "a:\nb:\n",
		"[{a},{a}]", "- {a}\n- {b}\n", "? a\n? b\n", "a: [1, {b, c: [d]}]\n", "!!map {}", "[*a]", "{a: *b}",
		"a: |\n  - x\n", "%YAML 1.2\n---\n{a}\n", ": a\n", "- \n-\n", "[a, b, ]", "{a: [], b: {}}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var doc yamlv3.Node
		if yamlv3.Unmarshal(data, &doc) != nil {
			return
		}
		indicators := 0
		for _, c := range data {
			if isIndicator[c] {
				indicators++
			}
		}
		if nodes := countNodes(&doc); nodes > 3*indicators+2 {
			t.Fatalf("%d nodes from %d indicators", nodes, indicators)
		}
	})
}

// countNodes counts the nodes of a tree, an alias as one.
func countNodes(n *yamlv3.Node) int {
	count := 1
	if n.Kind == yamlv3.AliasNode {
		return count
	}
	for _, child := range n.Content {
		count += countNodes(child)
	}
	return count
}
