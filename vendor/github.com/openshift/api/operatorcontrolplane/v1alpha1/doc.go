// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.operatorcontrolplane.v1alpha1

// +kubebuilder:validation:Optional
// +groupName=controlplane.operator.openshift.io

package v1alpha1
