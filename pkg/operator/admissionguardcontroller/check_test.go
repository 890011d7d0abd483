package admissionguardcontroller

import (
	"errors"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// stored is the shipped guard as the API server stores it: with its defaults.
func stored() Observed {
	policy, binding := Shipped.Policy.DeepCopy(), Shipped.Binding.DeepCopy()
	policy.Spec = *withDefaults(&policy.Spec)
	policy.ResourceVersion, binding.ResourceVersion = "7", "8"
	return Observed{Served: true, Policy: policy, Binding: binding}
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name      string
		change    func(*Observed)
		reason    string // "" means intact
		fragments []string
	}{
		{"as shipped, as stored", func(*Observed) {}, "", nil},
		{"as shipped, without the defaults", func(o *Observed) { o.Policy.Spec = Shipped.Policy.Spec }, "", nil},
		{"audit annotations decide nothing", func(o *Observed) {
			o.Policy.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "k", ValueExpression: "'v'"}}
		}, "", nil},
		{"a binding's matchResources that leave nothing out", func(o *Observed) {
			o.Binding.Spec.MatchResources = matchDefaults(&admissionregistrationv1.MatchResources{})
		}, "", nil},
		{"API not served", func(o *Observed) { *o = Observed{} }, ReasonAPINotServed, []string{"Kubernetes 1.30", "OpenShift 4.17"}},
		{"policy missing", func(o *Observed) { o.Policy = nil }, ReasonPolicyMissing, []string{Shipped.Policy.Name, "apply manifests/"}},
		{"policy being deleted", func(o *Observed) { o.Policy.DeletionTimestamp = &metav1.Time{} }, ReasonPolicyMissing, nil},
		{"binding missing", func(o *Observed) { o.Binding = nil }, ReasonBindingMissing, []string{"ValidatingAdmissionPolicyBinding " + Shipped.Binding.Name}},
		{"failurePolicy Ignore", func(o *Observed) { o.Policy.Spec.FailurePolicy = ptr.To(admissionregistrationv1.Ignore) },
			ReasonPolicyAltered, []string{"failurePolicy is Ignore, not Fail"}},
		{"a validation changed", func(o *Observed) { o.Policy.Spec.Validations[0].Expression = "true" },
			ReasonPolicyAltered, []string{"its validations differ"}},
		{"a validation removed", func(o *Observed) { o.Policy.Spec.Validations = o.Policy.Spec.Validations[1:] },
			ReasonPolicyAltered, []string{"its validations differ"}},
		{"a variable changed", func(o *Observed) { o.Policy.Spec.Variables[0].Expression = "'registry.example.com/any'" },
			ReasonPolicyAltered, []string{"its variables differ"}},
		{"a match condition added", func(o *Observed) {
			o.Policy.Spec.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "not-me", Expression: "request.userInfo.username != 'me'"}}
		}, ReasonPolicyAltered, []string{"its matchConditions differ"}},
		{"UPDATE no longer matched", func(o *Observed) {
			o.Policy.Spec.MatchConstraints.ResourceRules[0].Operations = []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
		}, ReasonPolicyAltered, []string{"its matchConstraints differ"}},
		{"a namespace selector on the policy", func(o *Observed) {
			o.Policy.Spec.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
		}, ReasonPolicyAltered, []string{"its matchConstraints differ"}},
		{"a paramKind", func(o *Observed) {
			o.Policy.Spec.ParamKind = &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
		}, ReasonPolicyAltered, []string{"its paramKind differ"}},
		{"Warn instead of Deny", func(o *Observed) {
			o.Binding.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}
		}, ReasonBindingAltered, []string{"validationActions is [Warn], not [Deny]"}},
		{"Deny and Audit", func(o *Observed) {
			o.Binding.Spec.ValidationActions = append(o.Binding.Spec.ValidationActions, admissionregistrationv1.Audit)
		}, ReasonBindingAltered, []string{"validationActions is [Deny Audit]"}},
		{"another policy bound", func(o *Observed) { o.Binding.Spec.PolicyName = "other" }, ReasonBindingAltered, []string{`it binds policy "other"`}},
		{"a namespace selector on the binding", func(o *Observed) {
			o.Binding.Spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"team-a"}}},
			}}
		}, ReasonBindingAltered, []string{"matchResources leave out"}},
		{"resources excluded by the binding", func(o *Observed) {
			o.Binding.Spec.MatchResources = &admissionregistrationv1.MatchResources{ExcludeResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{ResourceNames: []string{"x"}}}}
		}, ReasonBindingAltered, []string{"matchResources leave out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			observed := stored()
			tc.change(&observed)
			v := Check(Shipped, observed)
			if v.Intact != (tc.reason == "") || (tc.reason != "" && v.Reason != tc.reason) {
				t.Fatalf("got %+v, want reason %q", v, tc.reason)
			}
			for _, f := range tc.fragments {
				if !strings.Contains(v.Message, f) {
					t.Errorf("message %q lacks %q", v.Message, f)
				}
			}
		})
	}
}

func TestJudgeProbe(t *testing.T) {
	gr := schema.GroupResource{Group: "simulation.kube-scheduler-simulator.x-k8s.io", Resource: "simulators"}
	denied := func(policy, binding string) error {
		return apierrors.NewForbidden(gr, probeSimulator, errors.New("ValidatingAdmissionPolicy '"+policy+"' with binding '"+binding+
			"' denied request: setting spec.image of a Simulator takes the right to create pods"))
	}
	name := Shipped.Policy.Name
	for _, tc := range []struct {
		name   string
		err    error
		reason string // "" means intact
	}{
		{"refused by the policy", denied(name, Shipped.Binding.Name), ""},
		{"admitted", nil, ReasonNotEnforced},
		{"refused by another policy", denied("image-allowlist", "image-allowlist"), ReasonProbeFailed},
		{"refused by RBAC", apierrors.NewForbidden(gr, probeSimulator, errors.New(`User "x" cannot create resource "simulators"`)), ReasonProbeFailed},
		{"API server error", apierrors.NewInternalError(errors.New("etcd timed out")), ReasonProbeFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := JudgeProbe(Shipped, tc.err)
			if v.Intact != (tc.reason == "") || v.Reason != map[bool]string{true: ReasonAsExpected, false: tc.reason}[tc.reason == ""] {
				t.Fatalf("got %+v, want reason %q", v, tc.reason)
			}
			if !v.Intact && (!strings.Contains(v.Message, ProbeUser) || len(v.Message) > MaxMessage) {
				t.Errorf("message %q: want the probe's identity, at most %d bytes", v.Message, MaxMessage)
			}
		})
	}
}

func TestParse(t *testing.T) {
	if Shipped.Policy.Name == "" || len(Shipped.Policy.Spec.Validations) == 0 || len(Shipped.Binding.Spec.ValidationActions) == 0 {
		t.Fatalf("the shipped guard parsed to %+v", Shipped)
	}
	policy := "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: p\n"
	binding := "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: b\nspec:\n  policyName: %s\n"
	for name, doc := range map[string]string{
		"no binding":            policy,
		"another policy bound":  policy + "---\n" + strings.Replace(binding, "%s", "q", 1),
		"an unknown field":      policy + "spec:\n  failurPolicy: Fail\n---\n" + strings.Replace(binding, "%s", "p", 1),
		"another kind":          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
		"not YAML":              "{",
		"an empty file":         "",
		"a policy and comments": "# comment\n---\n" + policy,
	} {
		if _, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := Parse([]byte(policy + "---\n" + strings.Replace(binding, "%s", "p", 1))); err != nil {
		t.Errorf("a policy and its binding: %v", err)
	}
}

func TestCapMessage(t *testing.T) {
	long := strings.Repeat("é", MaxMessage)
	got := capMessage(long)
	if len(got) > MaxMessage || !strings.HasSuffix(got, "...") || !strings.HasPrefix(got, "é") {
		t.Fatalf("%d bytes: %q", len(got), got)
	}
	if capMessage("short") != "short" {
		t.Error("a short message changed")
	}
}
