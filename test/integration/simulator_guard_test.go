package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/manifests"
	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/admissionguardcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// guardTest is the whole operator, under the RBAC manifests/ ship, with a
// SecondaryScheduler, and a namespace whose member may write Simulators (the
// shipped edit role) but not create pods.
type guardTest struct {
	env    *framework.Env
	ns     string
	member *framework.Clients
}

func setupGuard(t *testing.T, env *framework.Env) *guardTest {
	t.Helper()
	framework.RunOperator(t, env.OperatorConfig(t)) // applies the policy, its binding and the probe's RBAC too
	env.CreateSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{})
	ns := env.CreateNamespace(t, "sim-guard")
	noPods := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reads-no-pods"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services", "configmaps", "events"}, Verbs: []string{"get", "list", "watch"}},
	}}
	if _, err := env.Admin.Kube.RbacV1().Roles(ns).Create(context.Background(), noPods, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	member := env.ServiceAccountConfig(t, ns, "member", framework.ClusterRoleIn(ns, simulatorsEditRole), framework.Role(ns, noPods.Name))
	// Whatever a test did to the guard, the next test finds it as shipped.
	t.Cleanup(func() { env.ApplyFiles(t, manifests.SimulatorAdmissionFile) })
	return &guardTest{env: env, ns: ns, member: framework.MustClients(t, member)}
}

// waitGuardCondition waits until the SecondaryScheduler's
// SimulatorAdmissionGuardDegraded has status and reason, and its union
// Degraded mentions it exactly when it is True.
func (g *guardTest) waitGuardCondition(t *testing.T, status operatorv1.ConditionStatus, reason, message string) {
	t.Helper()
	framework.WaitFor(context.Background(), t, fmt.Sprintf("%s=%s (%s)", admissionguardcontroller.ConditionType, status, reason), func() (bool, error) {
		ss, err := g.env.Admin.Operator.OperatorV1().SecondarySchedulers().Get(context.Background(), secondaryschedulerv1.SingletonName, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := v1helpers.FindOperatorCondition(ss.Status.Conditions, admissionguardcontroller.ConditionType)
		if c == nil || c.Status != status || c.Reason != reason || !strings.Contains(c.Message, message) {
			return false, fmt.Errorf("condition %+v", c)
		}
		union := v1helpers.FindOperatorCondition(ss.Status.Conditions, operatorv1.OperatorStatusTypeDegraded)
		if union == nil || strings.Contains(union.Message, admissionguardcontroller.ConditionType) != (status == operatorv1.ConditionTrue) {
			return false, fmt.Errorf("the union Degraded %+v", union)
		}
		return true, nil
	})
}

// createAsMember creates a Simulator as the member once the API server admits
// it: its policy cache follows a binding change a moment later.
func (g *guardTest) createAsMember(t *testing.T, name string, spec simv1alpha1.SimulatorSpec) {
	t.Helper()
	framework.WaitFor(context.Background(), t, "the member's Simulator "+name+" to be admitted", func() (bool, error) {
		_, err := g.member.Operator.SimulationV1alpha1().Simulators(g.ns).Create(context.Background(),
			&simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
		return err == nil, err
	})
}

// heldBack waits until Simulator name says the guard holds it back, and checks
// that it has no Pod.
func (g *guardTest) heldBack(t *testing.T, name, why string) {
	t.Helper()
	sim := simctlWaitStatus(t, g.env, g.ns, name, name+" held back", simctlPhase(simv1alpha1.SimulatorPending, true, why))
	if c := meta.FindStatusCondition(sim.Status.Conditions, simulatorcontroller.ConditionDegraded); c.Reason != simulatorcontroller.ReasonAdmissionGuardNotIntact {
		t.Errorf("Degraded %+v, want reason %s", c, simulatorcontroller.ReasonAdmissionGuardNotIntact)
	}
	if n := len(g.pods(t, name)); n != 0 {
		t.Errorf("a held-back Simulator has %d Pods", n)
	}
}

func (g *guardTest) pods(t *testing.T, simulator string) []corev1.Pod {
	t.Helper()
	pods, err := g.env.Admin.Kube.CoreV1().Pods(g.ns).List(context.Background(), metav1.ListOptions{LabelSelector: simulatorrender.SimulatorLabel + "=" + simulator})
	if err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

// withTemplate is a Simulator spec with a podTemplate (a pod field) that
// labels the Pod. (Not nodeName: without a kubelet, a bound Pod's deletion
// never ends.)
func withTemplate() simv1alpha1.SimulatorSpec {
	return simv1alpha1.SimulatorSpec{PodTemplate: &corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"variant": "1"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{}},
	}}
}

// selfAllowed asks the API server whether c may make the request a.
func selfAllowed(t *testing.T, c *framework.Clients, a access) bool {
	t.Helper()
	review, err := c.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(context.Background(), &authorizationv1.SelfSubjectAccessReview{
		Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Verb: a.verb, Group: a.group, Resource: a.resource, Subresource: a.subresource, Namespace: a.namespace, Name: a.name,
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return review.Status.Allowed
}

func TestSimulatorGuardBindingDeleted(t *testing.T) {
	g := setupGuard(t, framework.Shared(t))
	ctx := context.Background()
	g.waitGuardCondition(t, operatorv1.ConditionFalse, admissionguardcontroller.ReasonAsExpected, "")

	binding := admissionguardcontroller.Shipped.Binding.Name
	if err := g.env.Admin.Kube.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Delete(ctx, binding, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	g.waitGuardCondition(t, operatorv1.ConditionTrue, admissionguardcontroller.ReasonBindingMissing, "ValidatingAdmissionPolicyBinding "+binding+" is missing")
	g.createAsMember(t, "template", withTemplate())
	g.createAsMember(t, "plain", simv1alpha1.SimulatorSpec{})
	g.heldBack(t, "template", "ValidatingAdmissionPolicyBinding "+binding+" is missing")
	simctlWaitStatus(t, g.env, g.ns, "plain", "a default Simulator runs", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))

	g.env.ApplyFiles(t, manifests.SimulatorAdmissionFile)
	g.waitGuardCondition(t, operatorv1.ConditionFalse, admissionguardcontroller.ReasonAsExpected, "")
	// What was written meanwhile runs now (docs/security.md says to review it).
	simctlWaitStatus(t, g.env, g.ns, "template", "template runs", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))
	if pods := g.pods(t, "template"); len(pods) != 1 || pods[0].Labels["variant"] != "1" {
		t.Fatalf("Pods of template: %+v", pods)
	}
}

func TestSimulatorGuardBindingWarnsOnly(t *testing.T) {
	g := setupGuard(t, framework.Shared(t))
	ctx := context.Background()
	g.waitGuardCondition(t, operatorv1.ConditionFalse, admissionguardcontroller.ReasonAsExpected, "")
	// Written by an admin while the guard holds: its Pod runs.
	admin := g.env.Admin.Operator.SimulationV1alpha1().Simulators(g.ns)
	if _, err := admin.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "admins"}, Spec: withTemplate()}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	running := simctlPod(t, g.env, g.ns, "admins")

	// Applied as the manifests are (same field manager): applying them again
	// puts [Deny] back instead of adding it to the set.
	warn := admissionguardcontroller.Shipped.Binding.DeepCopy()
	warn.APIVersion, warn.Kind = "admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"
	warn.Spec.ValidationActions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Warn}
	data, err := json.Marshal(warn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := framework.ApplyYAML(ctx, g.env.Config, data); err != nil {
		t.Fatal(err)
	}
	g.waitGuardCondition(t, operatorv1.ConditionTrue, admissionguardcontroller.ReasonBindingAltered, "validationActions is [Warn], not [Deny]")
	g.createAsMember(t, "template", withTemplate())
	g.heldBack(t, "template", "validationActions is [Warn]")

	// A running Pod stays, and a spec change does not replace it.
	sim := simctlGet(t, g.env, g.ns, "admins")
	sim.Spec.PodTemplate.Labels["variant"] = "2"
	if _, err := admin.Update(ctx, sim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	simctlWaitStatus(t, g.env, g.ns, "admins", "the running Pod kept", simctlPhase(simv1alpha1.SimulatorCreating, true, "Pod "+running.Name+" is kept as it is"))
	framework.Consistently(ctx, t, 2*time.Second, "the Pod of admins to stay", func() (bool, error) {
		pods := g.pods(t, "admins")
		return len(pods) == 1 && pods[0].Name == running.Name && pods[0].DeletionTimestamp == nil, nil
	})

	g.env.ApplyFiles(t, manifests.SimulatorAdmissionFile)
	g.waitGuardCondition(t, operatorv1.ConditionFalse, admissionguardcontroller.ReasonAsExpected, "")
	simctlWaitStatus(t, g.env, g.ns, "template", "template runs", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))
	framework.WaitFor(ctx, t, "the Pod of admins replaced by one of its new spec", func() (bool, error) {
		pods := g.pods(t, "admins")
		return len(pods) == 1 && pods[0].Labels["variant"] == "2", nil
	})
}

// TestSimulatorGuardAdmissionPluginDisabled: an API server that serves the
// policy API without running the plugin admits what the policy refuses; the
// probe finds it out.
func TestSimulatorGuardAdmissionPluginDisabled(t *testing.T) {
	env := framework.StartForTest(t, framework.Options{ExtraAPIServerArgs: map[string][]string{
		// ServiceAccount: envtest's own, which this flag replaces (no controller
		// makes the default ServiceAccounts here).
		"disable-admission-plugins": {"ServiceAccount", "ValidatingAdmissionPolicy"},
	}})
	g := setupGuard(t, env)
	g.waitGuardCondition(t, operatorv1.ConditionTrue, admissionguardcontroller.ReasonNotEnforced, "is not enforced")
	g.createAsMember(t, "template", withTemplate())
	g.heldBack(t, "template", "is not enforced")
	g.createAsMember(t, "plain", simv1alpha1.SimulatorSpec{})
	simctlPod(t, env, g.ns, "plain")

	// library-go's Degraded inertia (2 min) counts from the condition's
	// lastTransitionTime.
	framework.WaitForWithin(context.Background(), t, 4*time.Minute, "ClusterOperator Degraded=True naming the guard", func() (bool, error) {
		co, err := env.Admin.OpenShift.ConfigV1().ClusterOperators().Get(context.Background(), "secondary-scheduler", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range co.Status.Conditions {
			if c.Type == configv1.OperatorDegraded && (c.Status != configv1.ConditionTrue || !strings.Contains(c.Message, admissionguardcontroller.ConditionType)) {
				return false, fmt.Errorf("%+v", c)
			}
			if c.Type == configv1.OperatorDegraded {
				return true, nil
			}
		}
		return false, nil
	})
}

// TestSimulatorGuardFieldsMirrorThePolicy: the Simulators the operator holds
// back while the guard is not intact are those the policy refuses a user who
// may not create pods, naming the same fields.
func TestSimulatorGuardFieldsMirrorThePolicy(t *testing.T) {
	d := setupDelegation(t)
	template := withTemplate().PodTemplate
	url, cors := ptr.To("http://etcd.example:2379"), []string{"https://ui.example.com"}
	for name, spec := range map[string]simv1alpha1.SimulatorSpec{
		"defaults":                   {},
		"etcdURL and CORS alone":     {EtcdURL: url, CORSAllowedOriginList: cors},
		"template":                   {PodTemplate: template},
		"template and etcdURL":       {PodTemplate: template, EtcdURL: url},
		"image and CORS":             {Image: "registry.example.com/sim:1", CORSAllowedOriginList: cors},
		"all pod fields":             {PodTemplate: template, Image: "registry.example.com/sim:1", EtcdURL: url, CORSAllowedOriginList: cors},
		"an empty etcdURL and image": {Image: "registry.example.com/sim:1", EtcdURL: ptr.To("")},
	} {
		sim := &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "mirror"}, Spec: spec}
		_, err := d.member.Operator.SimulationV1alpha1().Simulators(d.ns).Create(context.Background(), sim, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		fields := simulatorcontroller.GuardedFields(sim)
		if len(fields) == 0 {
			if err != nil {
				t.Errorf("%s: the operator would run it without the guard, the policy refuses it: %v", name, err)
			}
			continue
		}
		if want := "setting " + strings.Join(fields, " and ") + " of a Simulator"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want the policy's refusal %q, got %v", name, want, err)
		}
	}
}

// TestSimulatorGuardRBAC: the operator may read the policy and binding by
// name and impersonate the probe's identity, nothing more; that identity may
// create Simulators in the operator's namespace and no pods.
func TestSimulatorGuardRBAC(t *testing.T) {
	env := framework.Shared(t)
	operator := framework.MustClients(t, env.OperatorConfig(t))
	name, own := admissionguardcontroller.Shipped.Policy.Name, framework.OperatorNamespace
	const group = "admissionregistration.k8s.io"
	for _, tc := range []struct {
		access
		allowed bool
	}{
		{access{verb: "get", group: group, resource: "validatingadmissionpolicies", name: name}, true},
		{access{verb: "watch", group: group, resource: "validatingadmissionpolicybindings", name: name}, true},
		{access{verb: "list", group: group, resource: "validatingadmissionpolicies"}, false},
		{access{verb: "get", group: group, resource: "validatingadmissionpolicies", name: "someone-elses"}, false},
		{access{verb: "update", group: group, resource: "validatingadmissionpolicybindings", name: name}, false},
		{access{verb: "impersonate", resource: "serviceaccounts", namespace: own, name: admissionguardcontroller.ProbeServiceAccount}, true},
		{access{verb: "impersonate", resource: "serviceaccounts", namespace: own, name: framework.OperatorServiceAccount}, false},
		{access{verb: "impersonate", resource: "users", name: "system:admin"}, false},
		{access{verb: "impersonate", resource: "groups", name: "system:masters"}, false},
	} {
		if got := selfAllowed(t, operator, tc.access); got != tc.allowed {
			t.Errorf("the operator %+v: allowed %t, want %t", tc.access, got, tc.allowed)
		}
	}
	probe := framework.MustClients(t, admissionguardcontroller.ProbeConfig(operator.Config))
	for _, tc := range []struct {
		access
		allowed bool
	}{
		{access{verb: "create", group: simv1alpha1.GroupName, resource: "simulators", namespace: own}, true},
		{access{verb: "create", resource: "pods", namespace: own}, false},
		{access{verb: "create", group: simv1alpha1.GroupName, resource: "simulators", namespace: "team-a"}, false},
	} {
		if got := selfAllowed(t, probe, tc.access); got != tc.allowed {
			t.Errorf("the probe %+v: allowed %t, want %t", tc.access, got, tc.allowed)
		}
	}
}
