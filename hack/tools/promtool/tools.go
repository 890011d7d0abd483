//go:build tools

// Package tools pins promtool, which test/rules runs on the PrometheusRule in
// manifests/optional. Its own module, not vendored: Prometheus' dependency
// tree stays out of the operator's go.mod.
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
