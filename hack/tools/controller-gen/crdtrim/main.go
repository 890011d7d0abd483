// Command crdtrim drops the field descriptions that controller-gen copies from
// embedded Kubernetes types (containers, volumes, affinity, pod templates ...)
// out of a CRD, keeping the descriptions of the project's own fields.
//
// Without it the Simulator CRD is ~600 KB, and `kubectl apply` (client side)
// cannot store it in its last-applied annotation (256 KB limit). The embedded
// types are documented by `kubectl explain pod.spec.containers` anyway.
//
// Usage: crdtrim FILE ROOT_PATH... where ROOT_PATH is a dotted path from the
// version's openAPIV3Schema to an embedded type (spec.sidecars, spec.podTemplate);
// "[]" steps into list items. Descriptions below each root are dropped; the
// root's own description is kept.
//
// ROOT_PATH=N instead bounds the list (maxItems) or map (maxProperties) at
// that path: embedded Kubernetes types carry no bounds of their own, and the
// API server checks these before anything else, at no cost.
package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: crdtrim FILE ROOT_PATH...")
		os.Exit(2)
	}
	if err := trim(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "crdtrim:", err)
		os.Exit(1)
	}
}

func trim(file string, roots []string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	crd := map[string]interface{}{}
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	versions, _ := dig(crd, "spec", "versions").([]interface{})
	for _, v := range versions {
		schema, _ := dig(v, "schema", "openAPIV3Schema").(map[string]interface{})
		for _, root := range roots {
			root, bound, bounded := strings.Cut(root, "=")
			node := schema
			for _, step := range strings.Split(root, ".") {
				if node == nil {
					break
				}
				if step == "[]" {
					node, _ = node["items"].(map[string]interface{})
					continue
				}
				node, _ = dig(node, "properties", step).(map[string]interface{})
			}
			if node == nil {
				return fmt.Errorf("%s: no schema at %q", file, root)
			}
			if bounded {
				if err := setBound(node, bound); err != nil {
					return fmt.Errorf("%s: %s: %w", file, root, err)
				}
				continue
			}
			dropDescriptions(node, true)
		}
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		return err
	}
	return os.WriteFile(file, append([]byte("---\n"), out...), 0o644)
}

// setBound sets maxItems on a list's schema, maxProperties on a map's.
func setBound(node map[string]interface{}, bound string) error {
	n, err := strconv.Atoi(bound)
	if err != nil || n < 0 {
		return fmt.Errorf("bound %q is not a count", bound)
	}
	switch node["type"] {
	case "array":
		node["maxItems"] = n
	case "object":
		node["maxProperties"] = n
	default:
		return fmt.Errorf("a bound needs a list or a map, not %v", node["type"])
	}
	return nil
}

func dropDescriptions(node interface{}, keepOwn bool) {
	switch n := node.(type) {
	case map[string]interface{}:
		if !keepOwn {
			delete(n, "description")
		}
		for key, child := range n {
			// Under "properties" the keys are field names: a field may be called "description".
			if key == "properties" {
				for _, prop := range child.(map[string]interface{}) {
					dropDescriptions(prop, false)
				}
				continue
			}
			dropDescriptions(child, false)
		}
	case []interface{}:
		for _, child := range n {
			dropDescriptions(child, false)
		}
	}
}

func dig(node interface{}, path ...string) interface{} {
	for _, key := range path {
		m, ok := node.(map[string]interface{})
		if !ok {
			return nil
		}
		node = m[key]
	}
	return node
}
