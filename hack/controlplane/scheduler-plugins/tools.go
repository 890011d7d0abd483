//go:build tools

// Package tools pins the scheduler-plugins scheduler built by ../build.sh.
package tools

import _ "sigs.k8s.io/scheduler-plugins/cmd/scheduler"
