package admissionguardcontroller

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/client-go/rest"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// The probe: a Simulator with another image, created with dryRun=All as an
// identity that may create Simulators in the operator's namespace and nothing
// else (manifests/*_04_roles.yaml), which the policy must refuse. An API
// server that serves the policy API but runs without the
// ValidatingAdmissionPolicy admission plugin admits it. The operator cannot
// probe as itself: it may create pods, so the policy lets it set any field.
const (
	ProbeNamespace      = names.OperatorNamespace
	ProbeServiceAccount = "secondary-scheduler-operator-admission-probe"
	// probeSimulator is never stored (dry run); a Simulator of that name that
	// exists does not change the answer: admission runs before storage.
	probeSimulator = "admission-probe"
	probeImage     = "registry.invalid/secondary-scheduler-operator/admission-probe:0"
)

// ProbeUser is the user name the probe impersonates.
var ProbeUser = serviceaccount.MakeUsername(ProbeNamespace, ProbeServiceAccount)

// ProbeConfig returns a copy of cfg that impersonates the probe's identity
// (the operator holds impersonate on that one ServiceAccount name).
func ProbeConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: ProbeUser}
	return c
}

// Probe sends the probe with client, which must impersonate ProbeUser, and
// returns the API server's answer.
func Probe(ctx context.Context, client versioned.Interface) error {
	_, err := client.SimulationV1alpha1().Simulators(ProbeNamespace).Create(ctx, &simv1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: probeSimulator},
		Spec:       simv1alpha1.SimulatorSpec{Image: probeImage},
	}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	return err
}

// JudgeProbe turns the API server's answer to the probe into a verdict: the
// guard is enforced only when this very policy and binding refused it.
func JudgeProbe(want Expected, err error) Verdict {
	denied := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request", want.Policy.Name, want.Binding.Name)
	switch {
	case err == nil:
		return notIntact(ReasonNotEnforced, fmt.Sprintf("ValidatingAdmissionPolicy %s is not enforced: the API server admitted a dry-run "+
			"Simulator with another image from %s, which may not create pods. Turn on kube-apiserver's ValidatingAdmissionPolicy "+
			"admission plugin (--enable-admission-plugins, --disable-admission-plugins); if it is on, let that identity hold only "+
			"what %s grants it", want.Policy.Name, ProbeUser, manifests04Roles))
	case apierrors.IsForbidden(err) && strings.Contains(err.Error(), denied):
		return Verdict{Intact: true, Reason: ReasonAsExpected}
	}
	return notIntact(ReasonProbeFailed, fmt.Sprintf("cannot tell whether ValidatingAdmissionPolicy %s is enforced: a dry-run Simulator created as %s "+
		"should have been refused by it, and got: %v", want.Policy.Name, ProbeUser, err))
}

const manifests04Roles = "manifests/0000_50_secondary-scheduler-operator_04_roles.yaml"
