// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.servicecertsigner.v1alpha1

// +groupName=servicecertsigner.config.openshift.io
package v1alpha1
