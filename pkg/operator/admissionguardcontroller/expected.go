package admissionguardcontroller

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/manifests"
)

// Expected is the guard as manifests/ ship it: the objects the cluster's must
// match.
type Expected struct {
	Policy  *admissionregistrationv1.ValidatingAdmissionPolicy
	Binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// Shipped is the guard of the manifest compiled into the operator. The
// manifest is checked by the tests: a file that does not parse fails them, so
// this never panics in a released build.
var Shipped = mustParse(manifests.SimulatorAdmission)

func mustParse(data []byte) Expected {
	e, err := Parse(data)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", manifests.SimulatorAdmissionFile, err))
	}
	return e
}

// Parse reads the one ValidatingAdmissionPolicy and the one binding of a
// multi-document YAML, and checks that the binding binds that policy.
func Parse(data []byte) (Expected, error) {
	var e Expected
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return e, err
		}
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return e, err
		}
		switch meta.Kind {
		case "ValidatingAdmissionPolicy":
			e.Policy = &admissionregistrationv1.ValidatingAdmissionPolicy{}
			err = yaml.UnmarshalStrict(doc, e.Policy)
		case "ValidatingAdmissionPolicyBinding":
			e.Binding = &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			err = yaml.UnmarshalStrict(doc, e.Binding)
		case "":
			continue // an empty document
		default:
			err = fmt.Errorf("unexpected kind %s", meta.Kind)
		}
		if err != nil {
			return e, err
		}
	}
	switch {
	case e.Policy == nil || e.Binding == nil:
		return e, errors.New("want one ValidatingAdmissionPolicy and one ValidatingAdmissionPolicyBinding")
	case e.Binding.Spec.PolicyName != e.Policy.Name:
		return e, fmt.Errorf("the binding binds %q, not the policy %q", e.Binding.Spec.PolicyName, e.Policy.Name)
	}
	return e, nil
}

// withDefaults returns a copy of a policy spec with the defaults the API
// server applies on create (failurePolicy, and those of its matchConstraints),
// so that the manifest compares equal to what the API server stored from it.
func withDefaults(in *admissionregistrationv1.ValidatingAdmissionPolicySpec) *admissionregistrationv1.ValidatingAdmissionPolicySpec {
	spec := in.DeepCopy()
	if spec.FailurePolicy == nil {
		fail := admissionregistrationv1.Fail
		spec.FailurePolicy = &fail
	}
	spec.MatchConstraints = matchDefaults(spec.MatchConstraints)
	return spec
}

// matchDefaults returns a copy of m with the API server's defaults: empty
// selectors, matchPolicy Equivalent, and scope "*" on every rule. nil stays
// nil.
func matchDefaults(in *admissionregistrationv1.MatchResources) *admissionregistrationv1.MatchResources {
	if in == nil {
		return nil
	}
	m := in.DeepCopy()
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	if m.MatchPolicy == nil {
		equivalent := admissionregistrationv1.Equivalent
		m.MatchPolicy = &equivalent
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				all := admissionregistrationv1.AllScopes
				rules[i].Scope = &all
			}
		}
	}
	return m
}

// narrows says whether a binding's matchResources leaves out anything the
// policy matches: any selector that is not empty, any rule (resource rules
// only narrow within the policy's own), any exclusion. matchPolicy alone
// does not narrow.
func narrows(m *admissionregistrationv1.MatchResources) bool {
	if m == nil {
		return false
	}
	empty := func(s *metav1.LabelSelector) bool {
		return s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0)
	}
	return !empty(m.NamespaceSelector) || !empty(m.ObjectSelector) || len(m.ResourceRules) > 0 || len(m.ExcludeResourceRules) > 0
}
