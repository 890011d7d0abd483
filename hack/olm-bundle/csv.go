package main

import (
	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// The ClusterServiceVersion (operators.coreos.com/v1alpha1), as far as the
// bundle uses it. The types mirror operator-framework/api's v1alpha1 field for
// field: that module stays out of the operator's vendor/, and the bundle's
// validation test (hack/olm-bundle/validate) decodes the generated CSV into
// the real types, refusing any field they do not have.

type clusterServiceVersion struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Spec       csvSpec    `json:"spec"`
}

type objectMeta struct {
	Name        string            `json:"name,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type csvSpec struct {
	DisplayName               string                    `json:"displayName"`
	Description               string                    `json:"description,omitempty"`
	Version                   string                    `json:"version"`
	MinKubeVersion            string                    `json:"minKubeVersion,omitempty"`
	Maturity                  string                    `json:"maturity,omitempty"`
	Provider                  appLink                   `json:"provider,omitempty"`
	Links                     []appLink                 `json:"links,omitempty"`
	Keywords                  []string                  `json:"keywords,omitempty"`
	InstallModes              []installMode             `json:"installModes"`
	CustomResourceDefinitions customResourceDefinitions `json:"customresourcedefinitions,omitempty"`
	Install                   installStrategy           `json:"install"`
	RelatedImages             []relatedImage            `json:"relatedImages,omitempty"`
}

type appLink struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

type installMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

type customResourceDefinitions struct {
	Owned []crdDescription `json:"owned,omitempty"`
}

type crdDescription struct {
	Name              string       `json:"name"`
	Version           string       `json:"version"`
	Kind              string       `json:"kind"`
	DisplayName       string       `json:"displayName,omitempty"`
	Description       string       `json:"description,omitempty"`
	SpecDescriptors   []descriptor `json:"specDescriptors,omitempty"`
	StatusDescriptors []descriptor `json:"statusDescriptors,omitempty"`
}

type descriptor struct {
	Path         string   `json:"path"`
	DisplayName  string   `json:"displayName,omitempty"`
	Description  string   `json:"description,omitempty"`
	XDescriptors []string `json:"x-descriptors,omitempty"`
}

type installStrategy struct {
	Strategy string              `json:"strategy"`
	Spec     strategyDeployments `json:"spec"`
}

type strategyDeployments struct {
	Deployments        []strategyDeployment `json:"deployments"`
	Permissions        []permission         `json:"permissions,omitempty"`
	ClusterPermissions []permission         `json:"clusterPermissions,omitempty"`
}

type strategyDeployment struct {
	Name  string                `json:"name"`
	Label map[string]string     `json:"label,omitempty"`
	Spec  appsv1.DeploymentSpec `json:"spec"`
}

type permission struct {
	ServiceAccountName string              `json:"serviceAccountName"`
	Rules              []rbacv1.PolicyRule `json:"rules"`
}

type relatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}
