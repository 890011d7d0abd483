package admissionguardcontroller

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/openshift/secondary-scheduler-operator/manifests"
)

// Reasons of a guard that is not intact, on the condition and in Verdict.
const (
	ReasonAsExpected     = "AsExpected"
	ReasonAPINotServed   = "APINotServed"
	ReasonCannotRead     = "CannotRead"
	ReasonPolicyMissing  = "PolicyMissing"
	ReasonPolicyAltered  = "PolicyAltered"
	ReasonBindingMissing = "BindingMissing"
	ReasonBindingAltered = "BindingAltered"
	ReasonNotEnforced    = "NotEnforced"
	ReasonProbeFailed    = "ProbeFailed"
)

// MaxMessage caps a verdict's message: it is repeated on the
// SecondaryScheduler, the ClusterOperator and every Simulator it holds back.
const MaxMessage = 640

// Verdict says whether the guard is intact and, when it is not, why and what
// an administrator should do.
type Verdict struct {
	Intact  bool
	Reason  string
	Message string
}

// Observed is what the controller read of the guard in the cluster.
type Observed struct {
	// Served: the API server serves validatingadmissionpolicies and their
	// bindings in admissionregistration.k8s.io/v1.
	Served bool
	// Policy and Binding are nil when absent.
	Policy  *admissionregistrationv1.ValidatingAdmissionPolicy
	Binding *admissionregistrationv1.ValidatingAdmissionPolicyBinding
}

// restore is what an administrator does for every altered or missing object.
var restore = "apply " + manifests.SimulatorAdmissionFile + " again (on OpenShift the cluster-version operator does)"

// Check compares what the cluster holds with the expected guard. It does not
// tell whether the API server enforces it: the probe does.
func Check(want Expected, got Observed) Verdict {
	policyName, bindingName := want.Policy.Name, want.Binding.Name
	switch {
	case !got.Served:
		return notIntact(ReasonAPINotServed, "the API server does not serve admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies, "+
			"which hold Simulators' pod fields back from users who may not create pods: run Kubernetes 1.30 or later (OpenShift 4.17 or later)")
	case got.Policy == nil || got.Policy.DeletionTimestamp != nil:
		return notIntact(ReasonPolicyMissing, fmt.Sprintf("ValidatingAdmissionPolicy %s is missing: %s", policyName, restore))
	case got.Binding == nil || got.Binding.DeletionTimestamp != nil:
		return notIntact(ReasonBindingMissing, fmt.Sprintf("ValidatingAdmissionPolicyBinding %s is missing: %s", bindingName, restore))
	}
	if diffs := policyDiffs(want.Policy, got.Policy); len(diffs) > 0 {
		return notIntact(ReasonPolicyAltered, fmt.Sprintf("ValidatingAdmissionPolicy %s differs from the shipped one (%s): %s",
			policyName, strings.Join(diffs, "; "), restore))
	}
	if diffs := bindingDiffs(want.Binding, got.Binding); len(diffs) > 0 {
		return notIntact(ReasonBindingAltered, fmt.Sprintf("ValidatingAdmissionPolicyBinding %s differs from the shipped one (%s): %s",
			bindingName, strings.Join(diffs, "; "), restore))
	}
	return Verdict{Intact: true, Reason: ReasonAsExpected}
}

// policyDiffs names what of got's spec decides differently from want's.
// auditAnnotations are left out: they decide nothing.
func policyDiffs(want, got *admissionregistrationv1.ValidatingAdmissionPolicy) []string {
	w, g := withDefaults(&want.Spec), withDefaults(&got.Spec)
	var diffs []string
	if *g.FailurePolicy != *w.FailurePolicy {
		diffs = append(diffs, fmt.Sprintf("failurePolicy is %s, not %s", *g.FailurePolicy, *w.FailurePolicy))
	}
	for _, f := range []struct {
		name      string
		want, got any
	}{
		{"paramKind", w.ParamKind, g.ParamKind},
		{"matchConstraints", w.MatchConstraints, g.MatchConstraints},
		{"matchConditions", w.MatchConditions, g.MatchConditions},
		{"variables", w.Variables, g.Variables},
		{"validations", w.Validations, g.Validations},
	} {
		if !equality.Semantic.DeepEqual(f.want, f.got) {
			diffs = append(diffs, "its "+f.name+" differ")
		}
	}
	return diffs
}

// bindingDiffs names what makes got bind less than want: another policy,
// other validation actions, or matchResources that leave something out.
func bindingDiffs(want, got *admissionregistrationv1.ValidatingAdmissionPolicyBinding) []string {
	var diffs []string
	if got.Spec.PolicyName != want.Spec.PolicyName {
		diffs = append(diffs, fmt.Sprintf("it binds policy %q", got.Spec.PolicyName))
	}
	if !slices.Equal(got.Spec.ValidationActions, want.Spec.ValidationActions) {
		diffs = append(diffs, fmt.Sprintf("validationActions is %v, not %v", got.Spec.ValidationActions, want.Spec.ValidationActions))
	}
	if narrows(got.Spec.MatchResources) && !equality.Semantic.DeepEqual(matchDefaults(got.Spec.MatchResources), matchDefaults(want.Spec.MatchResources)) {
		diffs = append(diffs, "its matchResources leave out some namespaces or Simulators")
	}
	return diffs
}

func notIntact(reason, message string) Verdict {
	return Verdict{Reason: reason, Message: capMessage(message)}
}

// capMessage keeps the first MaxMessage bytes of msg, cut at a rune boundary.
func capMessage(msg string) string {
	if len(msg) <= MaxMessage {
		return msg
	}
	cut := MaxMessage - len("...")
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "..."
}
