//go:build tools

// Package tools pins the scheduler simulator built by ../build.sh.
package tools

import _ "sigs.k8s.io/kube-scheduler-simulator/simulator"
