package simulatorcontroller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

// Guard tells whether the admission guard is intact: the
// ValidatingAdmissionPolicy that lets only users who may create pods (or
// NetworkPolicies) set a Simulator's GuardedFields, in force as shipped
// (admissionguardcontroller.Verdicts). As a factory.Informer it requeues the
// Simulators that need it whenever its verdict changes, and the controller
// waits for its first verdict.
type Guard interface {
	factory.Informer
	// Intact says whether the guard is intact and, when not, why and what an
	// administrator should do.
	Intact() (bool, string)
}

// ReasonAdmissionGuardNotIntact: the Simulator sets GuardedFields and the
// admission guard is not intact, so the operator holds its Pod back.
const ReasonAdmissionGuardNotIntact = "AdmissionGuardNotIntact"

// GuardedFields lists the fields of sim that only the admission policy keeps
// from users who may not create pods (or NetworkPolicies, for ingressFrom):
// with any of them the operator would run a Pod, or admit peers, of the
// Simulator author's choosing. It mirrors the policy's changedFields on
// CREATE (manifests/0000_50_secondary-scheduler-operator_03_simulator-admission.yaml):
// spec.etcdURL and spec.corsAllowedOriginList count only beside a template or
// another image.
func GuardedFields(sim *simv1alpha1.Simulator) []string {
	spec := &sim.Spec
	var fields []string
	if spec.PodTemplate != nil {
		fields = append(fields, "spec.podTemplate")
	}
	if spec.Image != "" && spec.Image != simv1alpha1.DefaultImage {
		fields = append(fields, "spec.image")
	}
	if len(fields) > 0 {
		if spec.EtcdURL != nil && *spec.EtcdURL != "" {
			fields = append(fields, "spec.etcdURL")
		}
		if len(spec.CORSAllowedOriginList) > 0 {
			fields = append(fields, "spec.corsAllowedOriginList")
		}
	}
	if len(spec.IngressFrom) > 0 {
		fields = append(fields, "spec.ingressFrom")
	}
	return fields
}

// heldBack says why the guard holds sim back: the fields it sets and what is
// wrong with the guard.
func heldBack(fields []string, why string) string {
	return fmt.Sprintf("this Simulator sets %s: the operator acts on those only while the admission policy that lets only users "+
		"who may create pods (networkpolicies, for spec.ingressFrom) set them is in force, and it is not: %s", strings.Join(fields, ", "), why)
}

// syncHeldBack syncs a Simulator that sets GuardedFields while the guard is
// not intact: no Pod is created, replaced or deleted (a Pod that runs stays:
// a guard missing for a moment does not end users' simulators), and the
// NetworkPolicy is created narrow when missing, never widened. It is
// Degraded, reason ReasonAdmissionGuardNotIntact, unless its Pod runs its
// current spec.
func (c *simulatorController) syncHeldBack(ctx context.Context, recorder events.Recorder, sim *simv1alpha1.Simulator,
	rendered *simulatorrender.Objects, fields []string, why string) error {
	var errs []error
	policyErr := c.ensureNarrowPolicy(ctx, sim, rendered.NarrowNetworkPolicy)
	if policyErr != nil {
		errs = append(errs, policyErr)
	}
	message := heldBack(fields, why)
	obs := observation{phase: simv1alpha1.SimulatorPending, reason: ReasonAdmissionGuardNotIntact, message: message, degraded: true}
	pod := c.livePod(sim, rendered.Pod.Name)
	if pod != nil {
		obs = observePod(pod)
		obs.note = fmt.Sprintf("; Pod %s is kept as it is, and neither replaced nor updated: %s", pod.Name, message)
		if pod.Annotations[simulatorrender.SimulatorSpecHashAnnotation] != rendered.Pod.Annotations[simulatorrender.SimulatorSpecHashAnnotation] {
			// The spec changed while nothing checked who changed it: an
			// administrator should look before the guard is back.
			obs.reason, obs.degraded = ReasonAdmissionGuardNotIntact, true
		}
	}
	if isConflict(policyErr) {
		obs = failed(policyErr, pod != nil)
	}
	if err := c.updateStatus(ctx, recorder, sim, obs, ""); err != nil {
		errs = append(errs, err)
	}
	return joinErrors(errs)
}

// ensureNarrowPolicy creates the Simulator's NetworkPolicy without
// spec.ingressFrom (narrow) when it is missing, and leaves an existing one of
// sim's as it is; one that is not sim's is a conflictError.
func (c *simulatorController) ensureNarrowPolicy(ctx context.Context, sim *simv1alpha1.Simulator, narrow *networkingv1.NetworkPolicy) error {
	name := narrow.Name
	cached, err := c.policyLister.NetworkPolicies(sim.Namespace).Get(name)
	if existing, exists := newestOwned(c.writes, kindPolicy, sim.Namespace, name, cached, err); exists {
		if why := notOwned(existing, sim); why != "" {
			return &conflictError{kind: kindPolicy, name: name, why: why}
		}
		return nil
	}
	policy, created, err := createOrFind(ctx, kindPolicy, c.kubeClient.NetworkingV1().NetworkPolicies(sim.Namespace), sim, narrow)
	if created {
		c.writes.record(kindPolicy, policy)
	}
	return err
}

// livePod is the Pod of sim that runs or may still run: the required one if
// it is, otherwise one of an earlier spec; nil when none.
func (c *simulatorController) livePod(sim *simv1alpha1.Simulator, required string) *corev1.Pod {
	var live *corev1.Pod
	for _, pod := range c.podsOf(sim, required) {
		if !ours(pod, sim) || pod.DeletionTimestamp != nil || finished(pod) {
			continue
		}
		if live == nil || pod.Name == required {
			live = pod
		}
	}
	return live
}

// guardedKeys are the keys of every Simulator that sets GuardedFields: what a
// change of the guard's verdict requeues.
func (c *simulatorController) guardedKeys(runtime.Object) []string {
	sims, err := c.simLister.List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, sim := range sims {
		if len(GuardedFields(sim)) > 0 {
			keys = append(keys, sim.Namespace+"/"+sim.Name)
		}
	}
	return keys
}
