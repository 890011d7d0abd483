// Package manifests hands the operator's code the manifests it must match at
// run time, from the very files the cluster-version operator and `kubectl apply
// -f manifests/` apply: one source of truth, compiled in. The image copies only
// the YAML files of this directory (images/Dockerfile), not this one.
package manifests

import _ "embed"

// SimulatorAdmissionFile is the ValidatingAdmissionPolicy that keeps Simulator
// pod fields from users who may not create pods, and its binding.
const SimulatorAdmissionFile = "manifests/0000_50_secondary-scheduler-operator_03_simulator-admission.yaml"

// SimulatorAdmission is the content of SimulatorAdmissionFile, which
// pkg/operator/admissionguardcontroller compares the cluster's objects with.
//
//go:embed 0000_50_secondary-scheduler-operator_03_simulator-admission.yaml
var SimulatorAdmission []byte
