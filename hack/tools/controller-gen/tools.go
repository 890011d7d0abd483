//go:build tools

// Package tools pins controller-gen (deepcopy, CRDs). Its own module, not vendored.
package tools

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
