// Package v1 holds the SecondaryScheduler API of operator.openshift.io/v1.
//
// +k8s:deepcopy-gen=package,register
// +groupName=operator.openshift.io
// +kubebuilder:object:generate=true
package v1
