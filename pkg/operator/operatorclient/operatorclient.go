// Package operatorclient gives every controller its view of the
// SecondaryScheduler singleton (Client: one typed informer, status written by
// server-side apply), what `oc adm inspect` collects, and the roll-up
// conditions it hides from library-go's ClusterOperator status.
package operatorclient

import (
	"context"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// GVR is the SecondaryScheduler resource.
var GVR = secondaryschedulerv1.SchemeGroupVersion.WithResource("secondaryschedulers")

// RelatedObjects are what `oc adm inspect clusteroperator/secondary-scheduler`
// collects: the SecondaryScheduler, both namespaces, the operand's
// cluster-scoped RBAC, and the Simulator admission policy and its binding.
func RelatedObjects() []configv1.ObjectReference {
	refs := []configv1.ObjectReference{
		{Group: GVR.Group, Resource: GVR.Resource, Name: secondaryschedulerv1.SingletonName},
		{Resource: "namespaces", Name: names.OperatorNamespace},
		{Resource: "namespaces", Name: names.OperandNamespace},
	}
	return append(refs,
		configv1.ObjectReference{Group: rbacv1.GroupName, Resource: "clusterroles", Name: names.OperandClusterRoleName},
		configv1.ObjectReference{Group: rbacv1.GroupName, Resource: "clusterrolebindings", Name: render.OperandBindingName()},
		configv1.ObjectReference{Group: rbacv1.GroupName, Resource: "clusterroles", Name: names.ExtraRBACName},
		configv1.ObjectReference{Group: rbacv1.GroupName, Resource: "clusterrolebindings", Name: names.ExtraRBACName},
		configv1.ObjectReference{Group: admissionregistrationv1.GroupName, Resource: "validatingadmissionpolicies", Name: names.SimulatorAdmissionName},
		configv1.ObjectReference{Group: admissionregistrationv1.GroupName, Resource: "validatingadmissionpolicybindings", Name: names.SimulatorAdmissionName},
	)
}

// UnionConditionTypes are the roll-ups the operand status controller writes on
// the SecondaryScheduler for `oc get`, with the status each has when no
// condition feeds it; they are not inputs of another roll-up.
var UnionConditionTypes = map[string]operatorv1.ConditionStatus{
	operatorv1.OperatorStatusTypeAvailable:   operatorv1.ConditionTrue,
	operatorv1.OperatorStatusTypeProgressing: operatorv1.ConditionFalse,
	operatorv1.OperatorStatusTypeDegraded:    operatorv1.ConditionFalse,
}

// WithoutUnionConditions returns client with the SecondaryScheduler's own
// Available/Progressing/Degraded roll-ups hidden, for library-go's ClusterOperator
// status controller: it unions every condition whose type ends in Degraded, and
// would otherwise count each problem twice.
func WithoutUnionConditions(client v1helpers.OperatorClient) v1helpers.OperatorClient {
	return unionHidden{client}
}

type unionHidden struct{ v1helpers.OperatorClient }

func (u unionHidden) GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	spec, status, rv, err := u.OperatorClient.GetOperatorState()
	return spec, hideUnions(status), rv, err
}

func (u unionHidden) GetOperatorStateWithQuorum(ctx context.Context) (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	spec, status, rv, err := u.OperatorClient.GetOperatorStateWithQuorum(ctx)
	return spec, hideUnions(status), rv, err
}

func hideUnions(status *operatorv1.OperatorStatus) *operatorv1.OperatorStatus {
	if status == nil {
		return nil
	}
	out := status.DeepCopy()
	out.Conditions = nil
	for _, c := range status.Conditions {
		if _, isUnion := UnionConditionTypes[c.Type]; !isUnion {
			out.Conditions = append(out.Conditions, c)
		}
	}
	return out
}
