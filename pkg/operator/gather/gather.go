// Package gather reads every input of a SecondaryScheduler's sync: what
// render.Render and rollout.Decide read. The controller reads them from its
// informers' caches; the diff command from the cluster, through the same code.
package gather

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/cached"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// Sources get objects by name, the namespaced ones in the operand namespace;
// an absent object is a NotFound error, as from a lister.
type Sources struct {
	ConfigMap   func(name string) (*corev1.ConfigMap, error)
	Secret      func(name string) (*corev1.Secret, error)
	Namespace   func(name string) (*corev1.Namespace, error)
	ClusterRole func(name string) (*rbacv1.ClusterRole, error)
	Deployment  func(name string) (*appsv1.Deployment, error)
	Pods        func(selector labels.Selector) ([]*corev1.Pod, error)
}

// Inputs is every input of one sync.
type Inputs struct {
	Render render.Inputs
	// Live is the scheduler's Deployment, nil when there is none, and Pods its pods.
	Live     *appsv1.Deployment
	Pods     []*corev1.Pod
	Observed rollout.Observed
	// Record is the rollout record given, a completed rollout noted.
	Record rollout.Record
	// Trial is what the gate of spec.rollout reads: the strategy and the
	// SecondaryScheduler's last trial.
	Trial rollout.Trial
}

// Gather reads every input of a sync of ss, whose rollout record is record.
func Gather(ss *secondaryschedulerv1.SecondaryScheduler, record rollout.Record, src Sources) (*Inputs, error) {
	in := &Inputs{Render: render.Inputs{SecondaryScheduler: ss}, Record: record.Copy(), Trial: rollout.Trial{
		Required: rollout.TrialRequired(ss), Last: ss.Status.LastTrial.DeepCopy(), Policy: trialPolicy(ss),
		Requested: ss.Status.TrialRequest.DeepCopy(),
	}}
	if err := specInputs(ss, &in.Render, src); err != nil {
		return nil, err
	}
	if err := live(in, src); err != nil {
		return nil, err
	}
	if lkg := in.Record.LastKnownGood; lkg != nil {
		cm, err := cached.Get(src.ConfigMap, names.ConfigMapNameFor(lkg.ConfigHash))
		if err != nil {
			return nil, err
		}
		in.Render.LastKnownGood, in.Render.LastKnownGoodConfig = lkg.DeepCopy(), cm
	}
	return in, nil
}

// specInputs reads what the rendered objects depend on besides the
// SecondaryScheduler: its ConfigMap, the serving certificate, the operand
// namespace's Pod Security level and the ceiling of spec.rbac.
func specInputs(ss *secondaryschedulerv1.SecondaryScheduler, in *render.Inputs, src Sources) error {
	var err error
	if name := ss.Spec.SchedulerConfig; name != "" {
		// Absent, render reports the missing ConfigMap by name.
		if in.UserConfig, err = cached.Get(src.ConfigMap, name); err != nil {
			return err
		}
	}
	cert, err := cached.Get(src.Secret, names.ServingCertSecretName)
	if err != nil {
		return err
	}
	in.ServingCertAvailable = cert != nil
	ns, err := cached.Get(src.Namespace, names.OperandNamespace)
	if err != nil {
		return err
	}
	if ns != nil {
		in.PodSecurityEnforce = ns.Labels[render.PodSecurityEnforceLabel]
	}
	role, err := cached.Get(src.ClusterRole, names.GrantableClusterRole)
	if err != nil {
		return err
	}
	in.Ceiling = &render.Ceiling{Role: role}
	return nil
}

// OperandPods selects the scheduler's pods.
var OperandPods = labels.SelectorFromSet(labels.Set{"app.kubernetes.io/name": names.OperandName})

// live reads the scheduler's Deployment and pods, and what they say of the
// rollout.
func live(in *Inputs, src Sources) error {
	d, err := cached.Get(src.Deployment, names.OperandName)
	if err != nil || d == nil {
		return err
	}
	if in.Pods, err = src.Pods(OperandPods); err != nil {
		return err
	}
	in.Live, in.Observed = d, rollout.Observe(d, in.Pods)
	in.Record = in.Record.Observe(in.Observed)
	return nil
}

func trialPolicy(ss *secondaryschedulerv1.SecondaryScheduler) *secondaryschedulerv1.TrialPolicy {
	if ss.Spec.Rollout == nil {
		return nil
	}
	return ss.Spec.Rollout.Trial.DeepCopy()
}
