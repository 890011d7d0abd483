//go:build tools

// Package tools pins k8s.io/code-generator at the version of the vendored client-go,
// so the generated clientset matches it, and k8s.io/kube-openapi's openapi-gen at
// the version code-generator uses. Its own module, not vendored.
package tools

import (
	_ "k8s.io/code-generator/cmd/applyconfiguration-gen"
	_ "k8s.io/code-generator/cmd/client-gen"
	_ "k8s.io/code-generator/cmd/informer-gen"
	_ "k8s.io/code-generator/cmd/lister-gen"
	_ "k8s.io/kube-openapi/cmd/openapi-gen"
)
