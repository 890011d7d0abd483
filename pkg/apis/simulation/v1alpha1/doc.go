// Package v1alpha1 holds the Simulator API of KEP-159 (kube-scheduler-simulator).
//
// +k8s:deepcopy-gen=package,register
// +k8s:openapi-gen=true
// +groupName=simulation.kube-scheduler-simulator.x-k8s.io
// +kubebuilder:object:generate=true
package v1alpha1
