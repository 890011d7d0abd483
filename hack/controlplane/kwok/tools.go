//go:build tools

// Package tools pins the kwok binary built by ../build.sh.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
