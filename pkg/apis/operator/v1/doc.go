// Package v1 holds the SecondaryScheduler API of operator.openshift.io/v1.
//
// +k8s:deepcopy-gen=package,register
// +k8s:openapi-gen=true
// +groupName=operator.openshift.io
// +kubebuilder:object:generate=true
package v1
