package render

import (
	"errors"
	"fmt"

	yamlv3 "go.yaml.in/yaml/v3"
)

const (
	// maxLayerBytes: a ConfigMap holds at most 1 MiB, and a real scheduler
	// configuration is a few KiB.
	maxLayerBytes = 1 << 20
	// maxLayerValues bounds a layer's values once YAML aliases are expanded:
	// a few hundred aliases nested a few deep expand to billions of values
	// (the "billion laughs"), which would cost the operator gigabytes on every
	// sync. Fifty profiles with every plugin configured stay far below this.
	maxLayerValues = 100000
)

var errTooManyValues = errors.New("too many values")

// checkBounds refuses, before any decoding that expands aliases, a layer that
// is too big or expands to too many values. It parses into yaml.v3's node
// tree, which keeps an alias as a reference, and counts each anchored value
// once, so it costs time and memory in proportion to the text.
func checkBounds(source string, data []byte, errs *problems) bool {
	if len(data) > maxLayerBytes {
		errs.addf(source, "", "is %d bytes; at most %d are read", len(data), maxLayerBytes)
		return false
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil {
		return true // the strict decode that follows reports it with its line
	}
	c := valueCounter{expanded: map[*yamlv3.Node]int{}, visiting: map[*yamlv3.Node]bool{}}
	if _, err := c.count(&doc); err != nil {
		errs.addf(source, "", "expands to more than %d values through YAML aliases (*name); write the configuration out without aliases", maxLayerValues)
		return false
	}
	return true
}

type valueCounter struct {
	expanded map[*yamlv3.Node]int
	visiting map[*yamlv3.Node]bool
}

func (c *valueCounter) count(n *yamlv3.Node) (int, error) {
	if v, ok := c.expanded[n]; ok {
		return v, nil
	}
	if c.visiting[n] {
		return 0, fmt.Errorf("alias cycle: %w", errTooManyValues)
	}
	c.visiting[n] = true
	defer delete(c.visiting, n)
	total := 1
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		v, err := c.count(n.Alias)
		if err != nil {
			return 0, err
		}
		total = v
	}
	for _, child := range n.Content {
		v, err := c.count(child)
		if err != nil {
			return 0, err
		}
		if total += v; total > maxLayerValues {
			return 0, errTooManyValues
		}
	}
	c.expanded[n] = total
	return total, nil
}
