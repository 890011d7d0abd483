package schedulerconfig

import (
	"fmt"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// MaxDocumentBytes bounds every YAML or JSON document the operator reads: a
// ConfigMap holds at most 1 MiB, and a real scheduler configuration is a few KiB.
const MaxDocumentBytes = 1 << 20

// CheckDocument refuses, before anything decodes it, a document that is too
// big or uses YAML anchors and aliases (&name, *name, <<: *name). An alias is
// the one way a document expands past its own size (a few hundred aliases
// nested a few deep are billions of values, the "billion laughs"); no
// scheduler configuration or manifest needs one. The check parses into
// yaml.v3's node tree, which keeps an alias as a reference, so it costs time
// and memory in proportion to the text. A document that does not parse is
// left to the decoder that follows, which reports it with its line.
func CheckDocument(data []byte) error {
	_, err := CheckedTree(data)
	return err
}

// CheckedTree is CheckDocument, and the node tree it parsed when the document
// passes (nil when it does not parse): what a caller can look into without
// parsing the text again.
func CheckedTree(data []byte) (*yamlv3.Node, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("is %d bytes; at most %d are read", len(data), MaxDocumentBytes)
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil {
		return nil, nil
	}
	if n := firstAnchor(&doc); n != nil {
		return nil, fmt.Errorf("line %d: YAML anchors and aliases (&name, *name) are not accepted, so a document cannot "+
			"expand past its own size; write the values out in full", n.Line)
	}
	return &doc, nil
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
