package render

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// ToYAML prints a rendered object as a manifest: apiVersion and kind set, and
// without the noise typed objects carry (null fields, empty creationTimestamp,
// status and Namespace spec), none of which an apply would send.
func ToYAML(obj runtime.Object) ([]byte, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("convert %T: %w", obj, err)
	}
	dropNulls(u)
	unstructured.RemoveNestedField(u, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u, "spec", "template", "metadata", "creationTimestamp")
	for _, field := range []string{"status", "spec"} {
		if m, ok := u[field].(map[string]interface{}); ok && isEmpty(m) {
			delete(u, field)
		}
	}
	return yaml.Marshal(u)
}

func dropNulls(v interface{}) {
	switch v := v.(type) {
	case map[string]interface{}:
		for k, x := range v {
			if x == nil {
				delete(v, k)
				continue
			}
			dropNulls(x)
		}
	case []interface{}:
		for _, x := range v {
			dropNulls(x)
		}
	}
}

// isEmpty: only empty objects inside, like a Service's status.loadBalancer.
func isEmpty(m map[string]interface{}) bool {
	for _, v := range m {
		sub, ok := v.(map[string]interface{})
		if !ok || !isEmpty(sub) {
			return false
		}
	}
	return true
}
