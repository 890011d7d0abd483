package manifests

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
)

// TestOperatorReachesItsTrialPods holds the operator's NetworkPolicies to its
// trial Pods' one: every port a trial Pod admits the operator on (the
// sandbox's API server, its scheduler's metrics), the operator's policies
// must let it dial, to a pod with the trial Pods' labels in the operand
// namespace. Under a network plugin that enforces policy, a port missing
// here fails every trial; the e2e stack enforces none and cannot see it.
func TestOperatorReachesItsTrialPods(t *testing.T) {
	var trialPolicy networkingv1.NetworkPolicy
	if err := yaml.UnmarshalStrict(bindata.MustAsset("assets/trial/networkpolicy.yaml"), &trialPolicy); err != nil {
		t.Fatal(err)
	}
	trialPod := labels.Set(podruntime.Labels("candidate", "0123456789ab"))
	operandNamespace := labels.Set{"kubernetes.io/metadata.name": names.OperandNamespace}
	operatorPod := labels.Set{"app.kubernetes.io/name": operatorServiceAccount}

	var egress []networkingv1.NetworkPolicyEgressRule
	for _, obj := range manifestObjects(t) {
		if obj["kind"] != "NetworkPolicy" {
			continue
		}
		var p networkingv1.NetworkPolicy
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, &p); err != nil {
			t.Fatal(err)
		}
		if p.Namespace != operatorNamespace || !selects(t, &p.Spec.PodSelector, operatorPod) {
			continue
		}
		egress = append(egress, p.Spec.Egress...)
	}
	if len(egress) == 0 {
		t.Fatal("no NetworkPolicy of the operator's namespace with egress rules selects its pod")
	}
	admitted := 0
	for _, rule := range trialPolicy.Spec.Ingress {
		for _, from := range rule.From {
			if from.NamespaceSelector == nil || !selects(t, from.NamespaceSelector, labels.Set{"kubernetes.io/metadata.name": operatorNamespace}) ||
				from.PodSelector == nil || !selects(t, from.PodSelector, operatorPod) {
				t.Errorf("the trial Pod's policy admits %+v, which is not the operator's pod alone", from)
			}
		}
		for _, port := range rule.Ports {
			admitted++
			if !allowsEgress(t, egress, *port.Port, operandNamespace, trialPod) {
				t.Errorf("the trial Pod admits the operator on TCP %s, which the operator's NetworkPolicies do not let it dial in namespace %s", port.Port, names.OperandNamespace)
			}
		}
	}
	if admitted < 2 {
		t.Errorf("the trial Pod admits the operator on %d ports, want its API server's and its scheduler's metrics", admitted)
	}
}

// allowsEgress: a rule lets a pod dial port on a pod of labels pod in a
// namespace of labels ns.
func allowsEgress(t *testing.T, rules []networkingv1.NetworkPolicyEgressRule, port intstr.IntOrString, ns, pod labels.Set) bool {
	for _, r := range rules {
		portOK := len(r.Ports) == 0
		for _, p := range r.Ports {
			portOK = portOK || (p.Port != nil && *p.Port == port)
		}
		if !portOK {
			continue
		}
		if len(r.To) == 0 {
			return true
		}
		for _, to := range r.To {
			if to.IPBlock == nil && to.NamespaceSelector != nil && selects(t, to.NamespaceSelector, ns) &&
				(to.PodSelector == nil || selects(t, to.PodSelector, pod)) {
				return true
			}
		}
	}
	return false
}

func selects(t *testing.T, s *metav1.LabelSelector, set labels.Set) bool {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return sel.Matches(set)
}
