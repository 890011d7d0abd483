package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of SecondaryScheduler. It is shared with the other
// OpenShift operator resources, so SecondaryScheduler sits beside KubeScheduler.
const GroupName = "operator.openshift.io"

var (
	SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}
	schemeBuilder      = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the types of this group-version to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

// Resource takes an unqualified resource and returns a group-qualified GroupResource.
func Resource(resource string) schema.GroupResource {
	return SchemeGroupVersion.WithResource(resource).GroupResource()
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &SecondaryScheduler{}, &SecondarySchedulerList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
