package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// The aggregated ClusterRoles and the admission policy manifests/ ship.
const (
	simulatorsEditRole = "secondary-scheduler-operator-simulators-edit"
	simulatorsViewRole = "secondary-scheduler-operator-simulators-view"
	simulatorPolicy    = "secondary-scheduler-operator-simulator-pod-fields"
	// policyRefusal and ingressRefusal are the parts of the policy's messages that
	// name the missing right.
	policyRefusal  = "takes the right to create pods in namespace "
	ingressRefusal = "takes the right to create networkpolicies in namespace "
)

// delegation is a namespace with the operator's simulator controller running under
// the RBAC manifests/ ship, and two namespace users bound to the shipped edit
// role for Simulators: member may not create pods or NetworkPolicies,
// podCreator may create pods, policyCreator NetworkPolicies.
type delegation struct {
	env           *framework.Env
	ns            string
	member        *framework.Clients
	podCreator    *framework.Clients
	policyCreator *framework.Clients
}

func setupDelegation(t *testing.T) *delegation {
	t.Helper()
	env := framework.Shared(t)
	ctx := context.Background()
	operator := env.OperatorConfig(t) // applies the policy and the roles too
	ns := env.CreateNamespace(t, "sim-delegation")
	framework.RunSimulatorController(t, operator, ns, 2, simulatorcontroller.ClientQPS)

	// envtest runs no controller-manager, so nothing aggregates the shipped roles
	// into edit and admin: bind the shipped role itself (as a cluster-admin would
	// to delegate Simulators alone), with a Role of the usual namespace reads that
	// grants nothing on pods.
	roles := []*rbacv1.Role{
		{ObjectMeta: metav1.ObjectMeta{Name: "reads-no-pods"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "configmaps", "events"}, Verbs: []string{"get", "list", "watch"}},
		}},
		{ObjectMeta: metav1.ObjectMeta{Name: "creates-pods"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"create", "get", "list", "watch"}},
		}},
		{ObjectMeta: metav1.ObjectMeta{Name: "creates-networkpolicies"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}, Verbs: []string{"create"}},
		}},
	}
	for _, r := range roles {
		if _, err := env.Admin.Kube.RbacV1().Roles(ns).Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	edit, noPods := framework.ClusterRoleIn(ns, simulatorsEditRole), framework.Role(ns, "reads-no-pods")
	d := &delegation{
		env:        env,
		ns:         ns,
		member:     framework.MustClients(t, env.ServiceAccountConfig(t, ns, "member", edit, noPods)),
		podCreator: framework.MustClients(t, env.ServiceAccountConfig(t, ns, "pod-creator", edit, noPods, framework.Role(ns, "creates-pods"))),
		policyCreator: framework.MustClients(t, env.ServiceAccountConfig(t, ns, "policy-creator", edit, noPods,
			framework.Role(ns, "creates-networkpolicies"))),
	}

	// The API server loads admission policies from its own informer: wait until
	// it enforces this one (a dry run changes nothing).
	framework.WaitFor(ctx, t, "the admission policy to be enforced", func() (bool, error) {
		_, err := d.member.Operator.SimulationV1alpha1().Simulators(ns).Create(ctx, &simv1alpha1.Simulator{
			ObjectMeta: metav1.ObjectMeta{Name: "probe"}, Spec: simv1alpha1.SimulatorSpec{Image: "registry.example.com/probe:1"},
		}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return false, fmt.Errorf("a custom image was admitted")
		}
		if !strings.Contains(err.Error(), policyRefusal) {
			return false, err
		}
		return true, nil
	})
	return d
}

func (d *delegation) create(as *framework.Clients, name string, spec simv1alpha1.SimulatorSpec) error {
	_, err := as.Operator.SimulationV1alpha1().Simulators(d.ns).Create(context.Background(),
		&simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
	return err
}

// update applies mutate to the current Simulator as the given user.
func (d *delegation) update(as *framework.Clients, name string, mutate func(*simv1alpha1.SimulatorSpec)) error {
	client := as.Operator.SimulationV1alpha1().Simulators(d.ns)
	return retry.RetryOnConflict(framework.ConflictBackoff, func() error {
		sim, err := client.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(&sim.Spec)
		_, err = client.Update(context.Background(), sim, metav1.UpdateOptions{})
		return err
	})
}

// expectRefused: the policy refused the request, naming the field and the right.
func (d *delegation) expectRefused(t *testing.T, err error, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("admitted; want the policy to refuse %s", field)
	}
	refusal := policyRefusal
	if field == "spec.ingressFrom" {
		refusal = ingressRefusal
	}
	msg := err.Error()
	if !apierrors.IsForbidden(err) || !strings.Contains(msg, refusal+d.ns) || !strings.Contains(msg, "setting "+field) ||
		!strings.Contains(msg, "system:serviceaccount:"+d.ns+":member") {
		t.Fatalf("want a Forbidden from the policy naming %s and the missing right, got: %v", field, err)
	}
}

// podFieldCases are Simulators a user who may not create pods must not get.
func podFieldCases() map[string]simv1alpha1.SimulatorSpec {
	template := func(spec corev1.PodSpec) *corev1.PodTemplateSpec {
		if spec.Containers == nil {
			spec.Containers = []corev1.Container{} // required by the schema, and null is not a list
		}
		return &corev1.PodTemplateSpec{Spec: spec}
	}
	return map[string]simv1alpha1.SimulatorSpec{
		// "member" exists: the Pod of the pod creator's Simulator is admitted too.
		"service-account": {PodTemplate: template(corev1.PodSpec{ServiceAccountName: "member"})},
		"secret-volume": {PodTemplate: template(corev1.PodSpec{
			Containers: []corev1.Container{{Name: simv1alpha1.SimulatorContainerName,
				VolumeMounts: []corev1.VolumeMount{{Name: "stolen", MountPath: "/stolen"}}}},
			Volumes: []corev1.Volume{{Name: "stolen", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "db-credentials"}}}},
		})},
		"node-name": {PodTemplate: template(corev1.PodSpec{NodeName: "control-plane-0",
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}})},
		"other-image": {Image: "registry.example.com/anything:latest"},
	}
}

func TestSimulatorDelegation(t *testing.T) {
	d := setupDelegation(t)
	ctx := context.Background()

	t.Run("shipped roles carry the aggregation labels", func(t *testing.T) {
		for _, want := range []struct{ role, label string }{
			{simulatorsViewRole, "rbac.authorization.k8s.io/aggregate-to-view"},
			{simulatorsEditRole, "rbac.authorization.k8s.io/aggregate-to-edit"},
			{simulatorsEditRole, "rbac.authorization.k8s.io/aggregate-to-admin"},
		} {
			r, err := d.env.Admin.Kube.RbacV1().ClusterRoles().Get(ctx, want.role, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Labels[want.label] != "true" {
				t.Errorf("ClusterRole %s labels %v, want %s", want.role, r.Labels, want.label)
			}
		}
	})

	t.Run("the Role really grants no pods", func(t *testing.T) {
		_, err := d.member.Kube.CoreV1().Pods(d.ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "direct"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/anything:latest"}}},
		}, metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) || strings.Contains(fmt.Sprint(err), policyRefusal) {
			t.Fatalf("creating a Pod directly: want RBAC's Forbidden, got %v", err)
		}
	})

	t.Run("a member creates a default Simulator and the operator runs it", func(t *testing.T) {
		if err := d.create(d.member, "plain", simv1alpha1.SimulatorSpec{}); err != nil {
			t.Fatal(err)
		}
		simctlWaitStatus(t, d.env, d.ns, "plain", "Creating", simctlPhase(simv1alpha1.SimulatorCreating, false, simulatorcontroller.MessageWaitingForPod))
		pod := simctlPod(t, d.env, d.ns, "plain")
		if got := pod.Spec.AutomountServiceAccountToken; got == nil || *got {
			t.Errorf("automountServiceAccountToken %v, want false", got)
		}
		for _, c := range pod.Spec.Containers {
			if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() ||
				c.Resources.Requests.Cpu().IsZero() || c.Resources.Limits.Cpu().IsZero() {
				t.Errorf("container %s resources %v: default requests and limits expected", c.Name, c.Resources)
			}
		}
		for _, v := range pod.Spec.Volumes {
			if v.EmptyDir != nil && v.EmptyDir.SizeLimit == nil {
				t.Errorf("emptyDir %s without a sizeLimit", v.Name)
			}
		}
	})

	t.Run("a member cannot set the Pod's fields", func(t *testing.T) {
		for name, spec := range podFieldCases() {
			field := "spec.podTemplate"
			if spec.Image != "" {
				field = "spec.image"
			}
			d.expectRefused(t, d.create(d.member, "member-"+name, spec), field)
		}
		// The Simulator that names the default image explicitly is still a default one.
		if err := d.create(d.member, "explicit-default", simv1alpha1.SimulatorSpec{Image: simv1alpha1.DefaultImage}); err != nil {
			t.Errorf("the default image named explicitly: %v", err)
		}
	})

	t.Run("a user who may create pods sets them", func(t *testing.T) {
		for name, spec := range podFieldCases() {
			if err := d.create(d.podCreator, "creator-"+name, spec); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		pod := simctlPod(t, d.env, d.ns, "creator-service-account")
		if pod.Spec.ServiceAccountName != "member" || pod.Spec.AutomountServiceAccountToken != nil {
			t.Errorf("serviceAccountName %q automount %v: the template's ServiceAccount, with its token", pod.Spec.ServiceAccountName, pod.Spec.AutomountServiceAccountToken)
		}
	})

	t.Run("no escalation through update", func(t *testing.T) {
		err := d.update(d.member, "plain", func(s *simv1alpha1.SimulatorSpec) {
			s.PodTemplate = podFieldCases()["secret-volume"].PodTemplate
		})
		d.expectRefused(t, err, "spec.podTemplate")
		err = d.update(d.member, "plain", func(s *simv1alpha1.SimulatorSpec) { s.Image = "registry.example.com/anything:latest" })
		d.expectRefused(t, err, "spec.image")
		// Changing someone else's template counts as setting it.
		err = d.update(d.member, "creator-service-account", func(s *simv1alpha1.SimulatorSpec) { s.PodTemplate.Spec.ServiceAccountName = "pod-creator" })
		d.expectRefused(t, err, "spec.podTemplate")
		err = d.update(d.member, "creator-other-image", func(s *simv1alpha1.SimulatorSpec) {
			s.PodTemplate = podFieldCases()["node-name"].PodTemplate
		})
		d.expectRefused(t, err, "spec.podTemplate")
		if sim := simctlGet(t, d.env, d.ns, "plain"); sim.Spec.PodTemplate != nil || sim.Spec.Image != simv1alpha1.DefaultImage {
			t.Errorf("the refused updates changed the Simulator: %+v", sim.Spec)
		}
	})

	t.Run("etcdURL and CORS origins are pod fields beside a template or another image", func(t *testing.T) {
		cors := func(s *simv1alpha1.SimulatorSpec) { s.CORSAllowedOriginList = []string{"https://ui.example.com"} }
		etcd := func(s *simv1alpha1.SimulatorSpec) { s.EtcdURL = ptr.To("http://etcd.example:2379") }
		d.expectRefused(t, d.update(d.member, "creator-secret-volume", cors), "spec.corsAllowedOriginList")
		d.expectRefused(t, d.update(d.member, "creator-other-image", etcd), "spec.etcdURL")
		if err := d.update(d.podCreator, "creator-secret-volume", cors); err != nil {
			t.Errorf("the pod creator sets CORS origins beside a template: %v", err)
		}
		// On a default Simulator they configure a default Pod: no right needed.
		for _, mutate := range []func(*simv1alpha1.SimulatorSpec){cors, etcd} {
			if err := d.update(d.member, "plain", mutate); err != nil {
				t.Errorf("plain: %v", err)
			}
		}
		if err := d.update(d.member, "plain", func(s *simv1alpha1.SimulatorSpec) { s.EtcdURL = nil }); err != nil {
			t.Errorf("plain: %v", err)
		}
	})

	t.Run("updates that leave the Pod's fields alone are allowed", func(t *testing.T) {
		ports := func(s *simv1alpha1.SimulatorSpec) { s.SimulatorServerPort = 1313 }
		for _, name := range []string{"plain", "creator-secret-volume", "creator-other-image"} {
			if err := d.update(d.member, name, ports); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		// Back to the defaults takes no right either.
		if err := d.update(d.member, "creator-node-name", func(s *simv1alpha1.SimulatorSpec) { s.PodTemplate = nil }); err != nil {
			t.Errorf("removing the podTemplate: %v", err)
		}
		if err := d.update(d.podCreator, "plain", func(s *simv1alpha1.SimulatorSpec) {
			s.PodTemplate = podFieldCases()["service-account"].PodTemplate
		}); err != nil {
			t.Errorf("the pod creator adds a podTemplate: %v", err)
		}
		framework.WaitFor(ctx, t, "the Pod of plain replaced by the pod creator's", func() (bool, error) {
			pods, err := d.env.Admin.Kube.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{LabelSelector: simulatorrender.SimulatorLabel + "=plain"})
			if err != nil {
				return false, err
			}
			var accounts []string
			for _, p := range pods.Items {
				accounts = append(accounts, p.Spec.ServiceAccountName)
			}
			if len(accounts) != 1 || accounts[0] != "member" {
				return false, fmt.Errorf("Pods of ServiceAccounts %q", accounts)
			}
			return true, nil
		})
	})

	t.Run("a Simulator admits only its own namespace", func(t *testing.T) {
		policy := simctlNetworkPolicy(t, d.env, d.ns, "plain")
		want := map[string]string{simulatorrender.SimulatorLabel: "plain"}
		if !equality.Semantic.DeepEqual(policy.Spec.PodSelector.MatchLabels, want) || len(policy.Spec.PolicyTypes) != 1 ||
			policy.Spec.PolicyTypes[0] != networkingv1.PolicyTypeIngress || len(policy.Spec.Ingress) != 1 ||
			!equality.Semantic.DeepEqual(policy.Spec.Ingress[0].From, []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}) {
			t.Fatalf("NetworkPolicy spec %+v: want ingress only from Pods of the namespace, selecting the simulator's Pod", policy.Spec)
		}
	})

	t.Run("only who may create NetworkPolicies widens ingress", func(t *testing.T) {
		everyNamespace := []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}}}
		d.expectRefused(t, d.create(d.member, "member-open", simv1alpha1.SimulatorSpec{IngressFrom: everyNamespace}), "spec.ingressFrom")
		d.expectRefused(t, d.update(d.member, "plain", func(s *simv1alpha1.SimulatorSpec) { s.IngressFrom = everyNamespace }), "spec.ingressFrom")
		// Pod rights are not NetworkPolicy rights.
		err := d.create(d.podCreator, "creator-open", simv1alpha1.SimulatorSpec{IngressFrom: everyNamespace})
		if err == nil || !strings.Contains(err.Error(), ingressRefusal) {
			t.Fatalf("a pod creator widened ingress: %v", err)
		}
		if err := d.create(d.policyCreator, "open", simv1alpha1.SimulatorSpec{IngressFrom: everyNamespace}); err != nil {
			t.Fatal(err)
		}
		framework.WaitFor(ctx, t, "the NetworkPolicy of open to admit every namespace", func() (bool, error) {
			policy, err := d.env.Admin.Kube.NetworkingV1().NetworkPolicies(d.ns).Get(ctx, "open", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			want := append([]networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}, everyNamespace...)
			return len(policy.Spec.Ingress) == 1 && equality.Semantic.DeepEqual(policy.Spec.Ingress[0].From, want), nil
		})
		// Other fields of a widened Simulator stay editable, and narrowing takes no right.
		if err := d.update(d.member, "open", func(s *simv1alpha1.SimulatorSpec) { s.CORSAllowedOriginList = []string{"https://ui.example.com"} }); err != nil {
			t.Errorf("editing CORS origins of a widened Simulator: %v", err)
		}
		if err := d.update(d.member, "open", func(s *simv1alpha1.SimulatorSpec) { s.IngressFrom = nil }); err != nil {
			t.Errorf("removing ingressFrom: %v", err)
		}
		framework.WaitFor(ctx, t, "the NetworkPolicy of open narrowed back", func() (bool, error) {
			policy, err := d.env.Admin.Kube.NetworkingV1().NetworkPolicies(d.ns).Get(ctx, "open", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return len(policy.Spec.Ingress) == 1 && len(policy.Spec.Ingress[0].From) == 1, nil
		})
	})

	t.Run("view reads, does not write", func(t *testing.T) {
		viewer := framework.MustClients(t, d.env.ServiceAccountConfig(t, d.ns, "viewer", framework.ClusterRoleIn(d.ns, simulatorsViewRole)))
		if _, err := viewer.Operator.SimulationV1alpha1().Simulators(d.ns).List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		err := d.create(viewer, "viewer", simv1alpha1.SimulatorSpec{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("creating as a viewer: %v", err)
		}
		_, err = viewer.Operator.SimulationV1alpha1().Simulators(d.ns).UpdateStatus(ctx, simctlGet(t, d.env, d.ns, "plain"), metav1.UpdateOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("writing status as a viewer: %v", err)
		}
	})
}

// TestSimulatorDelegationPolicyTypes does what kube-controller-manager's policy
// status controller (which envtest does not run) reports in status.typeChecking:
// every expression of the policy checked against the Simulator schema the API
// server serves, so that a misspelt field fails here and not only at run time.
func TestSimulatorDelegationPolicyTypes(t *testing.T) {
	env := framework.Shared(t)
	env.OperatorConfig(t)
	policy, err := env.Admin.Kube.AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(context.Background(), simulatorPolicy, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dc := env.Admin.Kube.Discovery()
	schemas := &resolver.ClientDiscoveryResolver{Discovery: dc}
	checker := &validating.TypeChecker{
		SchemaResolver: schemas,
		RestMapper:     restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
	}
	// The checker skips, silently, a kind whose schema it cannot resolve, and the
	// API server publishes a CRD's OpenAPI a moment after the CRD is established.
	framework.WaitFor(context.Background(), t, "the Simulator OpenAPI schema", func() (bool, error) {
		_, err := schemas.ResolveSchema(simv1alpha1.SchemeGroupVersion.WithKind("Simulator"))
		return err == nil, err
	})
	if warnings := checker.Check(policy); len(warnings) > 0 {
		t.Errorf("type checking: %+v", warnings)
	}
	// Check reports nothing about variables, and a variable that does not
	// compile silences the checks of the expressions after it: check each one as
	// the validation of a policy holding only the variables before it.
	for i, v := range policy.Spec.Variables {
		p := policy.DeepCopy()
		p.Spec.Variables = p.Spec.Variables[:i]
		p.Spec.Validations = []admissionregistrationv1.Validation{{Expression: v.Expression}}
		if warnings := checker.Check(p); len(warnings) > 0 {
			t.Errorf("variable %s: %+v", v.Name, warnings)
		}
	}
}

// TestSimulatorDelegationQuota: a namespace's ResourceQuota holds Simulators,
// as docs/security.md says. Their Pods count against pods, cpu and memory (the
// default Pod sets requests and limits, so a quota on both admits it), and
// count/simulators... bounds the Simulators themselves.
func TestSimulatorDelegationQuota(t *testing.T) {
	d := setupDelegation(t)
	ctx := context.Background()
	hard := corev1.ResourceList{
		corev1.ResourcePods:                         resource.MustParse("1"),
		corev1.ResourceRequestsCPU:                  resource.MustParse("1"),
		corev1.ResourceRequestsMemory:               resource.MustParse("2Gi"),
		corev1.ResourceLimitsCPU:                    resource.MustParse("4"),
		corev1.ResourceLimitsMemory:                 resource.MustParse("4Gi"),
		"count/simulators." + simv1alpha1.GroupName: resource.MustParse("2"),
	}
	quota, err := d.env.Admin.Kube.CoreV1().ResourceQuotas(d.ns).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "team"}, Spec: corev1.ResourceQuotaSpec{Hard: hard},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Quota admission refuses everything until the quota's status is known; the
	// quota controller of kube-controller-manager (not run here) would write it.
	quota.Status.Hard = hard
	quota.Status.Used = corev1.ResourceList{}
	for name := range hard {
		quota.Status.Used[name] = resource.MustParse("0")
	}
	if _, err := d.env.Admin.Kube.CoreV1().ResourceQuotas(d.ns).UpdateStatus(ctx, quota, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Quota admission reads quotas from its own cache and ignores one without a
	// status: wait until it refuses a Pod without requests (a dry run).
	framework.WaitFor(ctx, t, "quota admission to enforce the quota", func() (bool, error) {
		_, err := d.env.Admin.Kube.CoreV1().Pods(d.ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "probe"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.example.com/probe:1"}}},
		}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "failed quota") {
			return false, fmt.Errorf("a Pod without requests: %v", err)
		}
		return true, nil
	})

	if err := d.create(d.member, "first", simv1alpha1.SimulatorSpec{}); err != nil {
		t.Fatal(err)
	}
	simctlPod(t, d.env, d.ns, "first")
	if err := d.create(d.member, "second", simv1alpha1.SimulatorSpec{}); err != nil {
		t.Fatal(err)
	}
	simctlWaitStatus(t, d.env, d.ns, "second", "Pending: the Pod is over quota", simctlPhase(simv1alpha1.SimulatorPending, true, "exceeded quota"))
	err = d.create(d.member, "third", simv1alpha1.SimulatorSpec{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "count/simulators."+simv1alpha1.GroupName) {
		t.Fatalf("a third Simulator: want refused by count/simulators, got %v", err)
	}
}

// TestIngressFromValidationMatchesAPIServer checks spec.ingressFrom the way the
// operator does (simulatorrender.Validate) and the way the API server checks
// the NetworkPolicy it becomes, on one corpus: both must accept or refuse each
// peer, so that a Simulator is never Available with a policy the API server
// refuses, nor refused for a policy it would take.
func TestIngressFromValidationMatchesAPIServer(t *testing.T) {
	env := framework.Shared(t)
	ns := env.CreateNamespace(t, "ingress-from")
	ctx := context.Background()
	selector := func(labels map[string]string, exprs ...metav1.LabelSelectorRequirement) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: labels, MatchExpressions: exprs}
	}
	block := func(cidr string, except ...string) *networkingv1.IPBlock {
		return &networkingv1.IPBlock{CIDR: cidr, Except: except}
	}
	corpus := map[string]networkingv1.NetworkPolicyPeer{
		"every namespace":             {NamespaceSelector: selector(nil)},
		"one namespace":               {NamespaceSelector: selector(map[string]string{"kubernetes.io/metadata.name": "ui"})},
		"pods of a namespace":         {NamespaceSelector: selector(nil), PodSelector: selector(map[string]string{"app": "ui"})},
		"pod selector alone":          {PodSelector: selector(map[string]string{"app": "ui"})},
		"expression In":               {PodSelector: selector(nil, metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}})},
		"expression Exists":           {PodSelector: selector(nil, metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpExists})},
		"expression In without value": {PodSelector: selector(nil, metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpIn})},
		"expression Exists with value": {PodSelector: selector(nil,
			metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpExists, Values: []string{"a"}})},
		"expression bad operator":     {PodSelector: selector(nil, metav1.LabelSelectorRequirement{Key: "app", Operator: "Near", Values: []string{"a"}})},
		"bad label key":               {NamespaceSelector: selector(map[string]string{"bad key!": "x"})},
		"bad label value":             {NamespaceSelector: selector(map[string]string{"team": "not a value"})},
		"prefixed label key":          {NamespaceSelector: selector(map[string]string{"example.com/team": "a"})},
		"empty peer":                  {},
		"ipBlock":                     {IPBlock: block("192.0.2.0/24")},
		"ipBlock all IPv4":            {IPBlock: block("0.0.0.0/0")},
		"ipBlock IPv6":                {IPBlock: block("2001:db8::/32", "2001:db8:1::/48")},
		"ipBlock single host":         {IPBlock: block("192.0.2.7/32")},
		"ipBlock with except":         {IPBlock: block("10.0.0.0/8", "10.1.0.0/16", "10.2.3.0/24")},
		"ipBlock except equal":        {IPBlock: block("10.0.0.0/8", "10.0.0.0/8")},
		"ipBlock except outside":      {IPBlock: block("10.0.0.0/16", "192.168.0.0/24")},
		"ipBlock except wider":        {IPBlock: block("10.1.0.0/16", "10.0.0.0/8")},
		"ipBlock except bad":          {IPBlock: block("10.0.0.0/8", "10.1.0.0")},
		"ipBlock except other family": {IPBlock: block("10.0.0.0/8", "2001:db8::/64")},
		"ipBlock no prefix":           {IPBlock: block("10.0.0.0")},
		"ipBlock empty":               {IPBlock: block("")},
		"ipBlock garbage":             {IPBlock: block("ten/8")},
		"ipBlock host bits set":       {IPBlock: block("10.0.0.1/8")},
		"ipBlock prefix too long":     {IPBlock: block("10.0.0.0/33")},
		"ipBlock with a selector":     {IPBlock: block("10.0.0.0/8"), NamespaceSelector: selector(nil)},
		"ipBlock IPv4-mapped IPv6":    {IPBlock: block("::ffff:10.0.0.0/104")},
		"ipBlock leading zeros":       {IPBlock: block("010.0.0.0/8")},
	}
	for name, peer := range corpus {
		sim := &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim", Namespace: ns},
			Spec: simv1alpha1.SimulatorSpec{IngressFrom: []networkingv1.NetworkPolicyPeer{peer}}}
		ours := simulatorrender.Validate(sim).ToAggregate()
		_, theirs := env.Admin.Kube.NetworkingV1().NetworkPolicies(ns).Create(ctx, &networkingv1.NetworkPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "probe"},
			Spec: networkingv1.NetworkPolicySpec{
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{peer}}},
			},
		}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if theirs != nil && !apierrors.IsInvalid(theirs) {
			t.Fatalf("%s: the API server failed otherwise than refusing the policy: %v", name, theirs)
		}
		if (ours == nil) != (theirs == nil) {
			t.Errorf("%s: operator says %v, API server says %v", name, ours, theirs)
		}
	}
}

// TestSimulatorSpecOverTheBound: a namespace user who may create pods fills a
// podTemplate's annotations, which no check limits as the API server limits
// a Pod's: a spec over simulatorrender.MaxSpecBytes is refused (the cache
// keeps only its size), a running Simulator's Pod is left as it was, and
// nothing is created for a new one until its spec shrinks.
func TestSimulatorSpecOverTheBound(t *testing.T) {
	d := setupDelegation(t)
	ctx := context.Background()
	sims := d.podCreator.Operator.SimulationV1alpha1().Simulators(d.ns)
	template := func(notes string) *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"example.com/notes": notes}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{}}}
	}
	big := template(strings.Repeat("x", 250<<10))
	overBound := func(s *simv1alpha1.SimulatorStatus) error {
		if err := simctlPhase(simv1alpha1.SimulatorPending, true, `spec: Invalid value: "256`)(s); err != nil {
			return err
		}
		if !strings.Contains(ptr.Deref(s.Message, ""), "bytes as JSON\": at most 8192 bytes of JSON are accepted") {
			return fmt.Errorf("message %q", ptr.Deref(s.Message, ""))
		}
		if c := meta.FindStatusCondition(s.Conditions, simulatorcontroller.ConditionDegraded); c.Reason != simulatorcontroller.ReasonInvalidSpec {
			return fmt.Errorf("Degraded reason %s", c.Reason)
		}
		return nil
	}

	if err := d.create(d.podCreator, "grows", simv1alpha1.SimulatorSpec{}); err != nil {
		t.Fatal(err)
	}
	running := simctlPod(t, d.env, d.ns, "grows")
	err := retry.RetryOnConflict(framework.ConflictBackoff, func() error {
		sim, err := sims.Get(ctx, "grows", metav1.GetOptions{})
		if err != nil {
			return err
		}
		sim.Spec.PodTemplate = big
		_, err = sims.Update(ctx, sim, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	simctlWaitStatus(t, d.env, d.ns, "grows", "the oversized spec refused", overBound)
	framework.Consistently(ctx, t, time.Second, "the running Pod to stay", func() (bool, error) {
		pod, err := d.env.Admin.Kube.CoreV1().Pods(d.ns).Get(ctx, running.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return pod.UID == running.UID && pod.DeletionTimestamp == nil, nil
	})

	if err := d.create(d.podCreator, "born-big", simv1alpha1.SimulatorSpec{PodTemplate: big}); err != nil {
		t.Fatal(err)
	}
	simctlWaitStatus(t, d.env, d.ns, "born-big", "the oversized spec refused", overBound)
	pods, err := d.env.Admin.Kube.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{LabelSelector: simulatorrender.SimulatorLabel + "=born-big"})
	if err != nil || len(pods.Items) > 0 {
		t.Fatalf("Pods of the oversized Simulator: %v, %v", pods, err)
	}
	err = retry.RetryOnConflict(framework.ConflictBackoff, func() error {
		sim, err := sims.Get(ctx, "born-big", metav1.GetOptions{})
		if err != nil {
			return err
		}
		sim.Spec.PodTemplate = template("short")
		_, err = sims.Update(ctx, sim, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if pod := simctlPod(t, d.env, d.ns, "born-big"); pod.Annotations["example.com/notes"] != "short" {
		t.Errorf("the Pod of the shrunk spec has annotations %v", pod.Annotations)
	}
}
