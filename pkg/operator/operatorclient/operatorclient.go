// Package operatorclient gives library-go's controllers their view of the
// SecondaryScheduler singleton, and holds the operator's fixed names.
package operatorclient

import (
	"context"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/genericoperatorclient"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

const (
	// OperatorNamespace is where the operator itself runs.
	OperatorNamespace = "openshift-secondary-scheduler-operator"
	// OperandNamespace holds the scheduler Deployment, its ConfigMaps and its Lease.
	OperandNamespace = render.OperandNamespace
	// ClusterOperatorName is the ClusterOperator the operator reports to.
	ClusterOperatorName = "secondary-scheduler"
)

// GVR and GVK of the SecondaryScheduler resource.
var (
	GVR = secondaryschedulerv1.SchemeGroupVersion.WithResource("secondaryschedulers")
	GVK = secondaryschedulerv1.SchemeGroupVersion.WithKind("SecondaryScheduler")
)

// New returns library-go's operator client for the SecondaryScheduler "cluster" and
// the dynamic informer factory that feeds it.
func New(clk clock.PassiveClock, config *rest.Config) (v1helpers.OperatorClientWithFinalizers, dynamicinformer.DynamicSharedInformerFactory, error) {
	return genericoperatorclient.NewClusterScopedOperatorClientWithConfigName(clk, config, GVR, GVK,
		secondaryschedulerv1.SingletonName, extractOperatorSpec, extractOperatorStatus)
}

// The extractors read the fields a manager owns through ServiceCA's apply
// configuration: its spec and status are exactly the inline OperatorSpec and
// OperatorStatus that SecondaryScheduler embeds, so the managed-field paths of
// those shared fields are the same. Fields only SecondaryScheduler has are
// dropped by the conversion, which is what an OperatorSpec/OperatorStatus
// apply configuration can hold anyway.
func extractOperatorSpec(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorSpecApplyConfiguration, error) {
	shaped, err := asServiceCA(obj)
	if err != nil {
		return nil, err
	}
	ret, err := applyoperatorv1.ExtractServiceCA(shaped, fieldManager)
	if err != nil {
		return nil, fmt.Errorf("unable to extract the spec fields of %q: %w", fieldManager, err)
	}
	if ret.Spec == nil {
		return nil, nil
	}
	return &ret.Spec.OperatorSpecApplyConfiguration, nil
}

func extractOperatorStatus(obj *unstructured.Unstructured, fieldManager string) (*applyoperatorv1.OperatorStatusApplyConfiguration, error) {
	shaped, err := asServiceCA(obj)
	if err != nil {
		return nil, err
	}
	ret, err := applyoperatorv1.ExtractServiceCAStatus(shaped, fieldManager)
	if err != nil {
		return nil, fmt.Errorf("unable to extract the status fields of %q: %w", fieldManager, err)
	}
	if ret.Status == nil {
		return nil, nil
	}
	return &ret.Status.OperatorStatusApplyConfiguration, nil
}

func asServiceCA(obj *unstructured.Unstructured) (*operatorv1.ServiceCA, error) {
	shaped := &operatorv1.ServiceCA{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, shaped); err != nil {
		return nil, fmt.Errorf("unable to read SecondaryScheduler %q: %w", obj.GetName(), err)
	}
	return shaped, nil
}

// RelatedObjects are what `oc adm inspect clusteroperator/secondary-scheduler`
// collects: the SecondaryScheduler, both namespaces, and the operand's
// cluster-scoped RBAC.
func RelatedObjects() []configv1.ObjectReference {
	refs := []configv1.ObjectReference{
		{Group: GVR.Group, Resource: GVR.Resource, Name: secondaryschedulerv1.SingletonName},
		{Resource: "namespaces", Name: OperatorNamespace},
		{Resource: "namespaces", Name: OperandNamespace},
	}
	for _, name := range render.SystemSchedulerBindingNames() {
		refs = append(refs, configv1.ObjectReference{Group: rbacv1.GroupName, Resource: "clusterrolebindings", Name: name})
	}
	return append(refs,
		configv1.ObjectReference{Group: rbacv1.GroupName, Resource: "clusterroles", Name: render.ExtraRBACName},
		configv1.ObjectReference{Group: rbacv1.GroupName, Resource: "clusterrolebindings", Name: render.ExtraRBACName},
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
