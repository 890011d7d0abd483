package schedulerconfig

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// MaxDocumentBytes bounds every YAML or JSON document the operator reads: a
// ConfigMap holds at most 1 MiB, and a real scheduler configuration is a few KiB.
const MaxDocumentBytes = 1 << 20

// MaxIndicators bounds the characters that can begin a YAML entry or value
// (',' ':' '-' '?' '[' '{'), counted wherever they stand, in strings and
// comments too. Every node of a parsed document but the document and its
// root is introduced by one of them, and none introduces more than three,
// so a document under the bound parses to at most 3*MaxIndicators+2 nodes,
// about 10 MB of yaml.v3's tree, however short its values. Within
// MaxDocumentBytes alone, a megabyte of one-character values parses to half
// a million nodes and over 100 MB. A scheduler configuration has a few hundred.
const MaxIndicators = 16 << 10

// CheckDocument refuses, before anything decodes it, a document that is too
// big, holds more than MaxIndicators entries, or uses YAML anchors and
// aliases (&name, *name, <<: *name). An alias is the one way a document
// expands past its own size (a few hundred aliases nested a few deep are
// billions of values, the "billion laughs"); no scheduler configuration or
// manifest needs one. The check counts the entries without parsing, then
// parses into yaml.v3's node tree, which keeps an alias as a reference, so it
// costs time and memory in proportion to the text and its entries, and less
// for an anchor near the top (earlyAnchor). A document that does not parse is
// left to the decoder that follows, which reports it with its line.
func CheckDocument(data []byte) error {
	_, err := CheckedTree(data)
	return err
}

// CheckedTree is CheckDocument, and the node tree it parsed when the document
// passes (nil when it does not parse): what a caller can look into without
// parsing the text again.
func CheckedTree(data []byte) (*yamlv3.Node, error) {
	return CheckedTreeHead(data, nil)
}

// CheckedTreeHead is CheckedTree, which, for a document within the bounds
// it counts and larger than earlyAnchorBytes, first gives refuse the tree
// of the document's first earlyAnchorBytes (nil when they do not parse
// alone), and returns its error without parsing the rest. Every node that
// tree holds, the document holds, at the same line, as earlyAnchor reasons;
// its last scalar may be cut short (a block scalar's value being then the
// first bytes of the document's), and its last collections may lack later
// entries. A caller that can refuse the
// document from what its first lines hold saves the parse of the rest: a
// megabyte string is scanned byte by byte.
func CheckedTreeHead(data []byte, refuse func(head *yamlv3.Node) error) (*yamlv3.Node, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("is %d bytes; at most %d are read", len(data), MaxDocumentBytes)
	}
	if line := indicatorOverflow(data); line > 0 {
		return nil, fmt.Errorf("line %d: more than %d of the characters that begin YAML entries and values "+
			"(, : - ? [ {), counted in strings and comments too, where a scheduler configuration and its manifests "+
			"need a few hundred; remove the entries that are not needed", line, MaxIndicators)
	}
	if n := earlyAnchor(data); n != nil {
		return nil, anchorError(n)
	}
	if refuse != nil && len(data) > earlyAnchorBytes {
		if err := refuse(head(data)); err != nil {
			return nil, err
		}
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil {
		return nil, nil
	}
	if n := firstAnchor(&doc); n != nil {
		return nil, anchorError(n)
	}
	return &doc, nil
}

// isIndicator marks the bytes MaxIndicators counts.
var isIndicator = [256]bool{',': true, ':': true, '-': true, '?': true, '[': true, '{': true}

// indicatorOverflow is the line of the indicator that takes data past
// MaxIndicators, or 0 when data holds no more than that.
func indicatorOverflow(data []byte) int {
	count := 0
	for i, c := range data {
		if isIndicator[c] {
			if count++; count > MaxIndicators {
				return 1 + bytes.Count(data[:i], []byte{'\n'})
			}
		}
	}
	return 0
}

func anchorError(n *yamlv3.Node) error {
	return fmt.Errorf("line %d: YAML anchors and aliases (&name, *name) are not accepted, so a document cannot "+
		"expand past its own size; write the values out in full", n.Line)
}

// earlyAnchorBytes bounds where earlyAnchor looks, so that it costs a small
// parse at most, whatever it finds.
const earlyAnchorBytes = 64 << 10

// earlyAnchor finds an anchor or alias in the first earlyAnchorBytes of data
// without parsing the rest: an anchor comes before the node it names, so a
// document that aliases a large value has its anchor ahead of it, and
// parsing the value (a megabyte scanned byte by byte) would be wasted. YAML
// is read from left to right, so what a byte means depends only on what
// comes before it: the text up to the first '&' or '*' and the name after
// it, parsed alone, holds an anchor or alias exactly where data does. When it
// holds none (the byte was in a string, a comment, a tag) or does not parse
// (a quoted string or flow collection left open, an alias whose anchor is
// elsewhere), it proves nothing, and nil sends data to the whole parse.
func earlyAnchor(data []byte) *yamlv3.Node {
	head := data[:min(len(data), earlyAnchorBytes)]
	at := bytes.IndexAny(head, "&*")
	if at < 0 {
		return nil
	}
	end := len(head) // after the name, which ends at a space or a flow indicator
	if n := bytes.IndexAny(head[at+1:], " \t\r\n,[]{}"); n >= 0 {
		end = at + 1 + n
	}
	prefix := append(head[:end:end], '\n') // a copy: data is not the prefix's to change
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(prefix, &doc); err != nil {
		return nil
	}
	return firstAnchor(&doc)
}

// head is the node tree of data's first earlyAnchorBytes, cut at a
// character's start, or nil when they do not parse alone.
func head(data []byte) *yamlv3.Node {
	end := min(len(data), earlyAnchorBytes)
	for end > 0 && end < len(data) && !utf8.RuneStart(data[end]) {
		end--
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data[:end], &doc); err != nil {
		return nil
	}
	return &doc
}

// firstAnchor returns the first node that defines an anchor or is an alias.
// Without aliases the tree is no deeper than the text, so recursion is bounded.
func firstAnchor(n *yamlv3.Node) *yamlv3.Node {
	if n.Anchor != "" || n.Kind == yamlv3.AliasNode {
		return n
	}
	for _, child := range n.Content {
		if found := firstAnchor(child); found != nil {
			return found
		}
	}
	return nil
}

// checkBounds records CheckDocument's refusal of a layer as a problem of source.
func checkBounds(source string, data []byte, errs *problem.List) bool {
	if err := CheckDocument(data); err != nil {
		errs.Addf(source, "", "%v", err)
		return false
	}
	return true
}
