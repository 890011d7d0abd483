#!/usr/bin/env bash
# Regenerates deepcopy, CRDs, clientset, listers, informers and apply configurations.
# The generators come from the tool modules under hack/tools (not vendored).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The generators build from their own modules under hack/tools, which are not
# vendored: the Makefile's -mod=vendor must not reach them.
export GOFLAGS=-mod=mod
cd "$root"
tools="$root/_output/tools"
mkdir -p "$tools"
module=github.com/openshift/secondary-scheduler-operator

(cd hack/tools/controller-gen && GOFLAGS=-mod=mod GOBIN="$tools" go install sigs.k8s.io/controller-tools/cmd/controller-gen ./crdtrim)

"$tools/controller-gen" object:headerFile=hack/boilerplate.go.txt paths=./pkg/apis/...

# CRDs go straight into manifests/ under the names CVO applies them by.
crd_tmp=$(mktemp -d)
trap 'rm -rf "$crd_tmp"' EXIT
"$tools/controller-gen" crd:generateEmbeddedObjectMeta=true paths=./pkg/apis/... output:crd:artifacts:config="$crd_tmp"
mv "$crd_tmp/operator.openshift.io_secondaryschedulers.yaml" manifests/0000_50_secondary-scheduler-operator_01_secondaryschedulers.crd.yaml
mv "$crd_tmp/simulation.kube-scheduler-simulator.x-k8s.io_simulators.yaml" manifests/0000_50_secondary-scheduler-operator_02_simulators.crd.yaml
# Keep each CRD small enough for a client-side `kubectl apply` (256 KB annotation limit).
"$tools/crdtrim" manifests/0000_50_secondary-scheduler-operator_01_secondaryschedulers.crd.yaml \
  spec.sidecars.[] spec.initContainers.[] spec.volumes.[] \
  spec.schedulerContainer.env.[] spec.schedulerContainer.resources spec.schedulerContainer.volumeMounts.[] spec.schedulerContainer.securityContext \
  spec.rbac.clusterRules.[] spec.rbac.namespacedRules.[] \
  spec.placement.tolerations.[] spec.placement.affinity \
  status.conditions.[] status.generations.[]
"$tools/crdtrim" manifests/0000_50_secondary-scheduler-operator_02_simulators.crd.yaml \
  spec.podTemplate status.conditions.[]

# `go list -m` prints an empty Dir for a module not yet in the module cache:
# download it first, so a fresh machine finds kube_codegen.sh.
codegen_dir=$(cd hack/tools/code-generator && go mod download -json k8s.io/code-generator | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[[ -f "$codegen_dir/kube_codegen.sh" ]] || { echo "update-codegen: cannot locate k8s.io/code-generator in the module cache" >&2; exit 1; }
# kube_codegen installs the generators from the code-generator module it sits in.
export GOBIN="$tools"
# shellcheck source=/dev/null
source "$codegen_dir/kube_codegen.sh"
# The inline OperatorSpec/OperatorStatus use openshift/client-go's apply configurations.
osac=github.com/openshift/client-go/operator/applyconfigurations/operator/v1
externals=""
for t in OperatorSpec OperatorStatus OperatorCondition GenerationStatus; do
  externals+="${externals:+,}github.com/openshift/api/operator/v1.$t:$osac"
done
kube::codegen::gen_client \
  --with-watch \
  --with-applyconfig \
  --applyconfig-externals "${externals}" \
  --output-dir "$root/pkg/generated" \
  --output-pkg "$module/pkg/generated" \
  --boilerplate "$root/hack/boilerplate.go.txt" \
  "$root/pkg/apis"
