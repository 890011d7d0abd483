#!/usr/bin/env bash
# Builds a real Kubernetes control plane from Go modules into
# _output/controlplane/bin: kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, etcd and kwok, plus the kwok "fast" stages file
# (kwok-stages.sh);
# and what users run beside it: scheduler-plugins' scheduler
# (bin/scheduler-plugins), with the CRDs of its plugins from its own module
# (_output/controlplane/crds), and the KEP-159 scheduler simulator
# (bin/simulator, with the config.yaml it reads from its working directory in
# _output/controlplane/simulator).
#
#   hack/controlplane/build.sh [--envtest-only]
#
# --envtest-only builds only what controller-runtime's envtest needs
# (kube-apiserver, etcd, kubectl); point KUBEBUILDER_ASSETS at the bin dir.
# Versions are pinned by go.mod here and in kwok/go.mod. A stamp of those
# pins next to each artifact lets a rerun with everything present return at
# once, and rebuilds only what is stale (old binaries stay usable meanwhile).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "${here}/../.." && pwd)
out="${root}/_output/controlplane"
bin="${out}/bin"
stamps="${out}/stamps"

envtest_only=false
case "${1:-}" in
  "") ;;
  --envtest-only) envtest_only=true ;;
  *) echo "usage: $0 [--envtest-only]" >&2; exit 2 ;;
esac

if ${envtest_only}; then
  wanted=(kube-apiserver etcd kubectl)
else
  wanted=(kube-apiserver etcd kubectl kube-controller-manager kube-scheduler kwok scheduler-plugins simulator)
fi

# Read the pins from the committed go.mod files (cheap: no module graph load).
modver() { awk -v m="$1" '$1 == m { print $2 } $1 == "require" && $2 == m { print $3 }' "$2"; }
kube_version=$(modver k8s.io/kubernetes "${here}/go.mod")
etcd_version=$(modver go.etcd.io/etcd/server/v3 "${here}/go.mod")
kwok_version=$(modver sigs.k8s.io/kwok "${here}/kwok/go.mod")
plugins_version=$(modver sigs.k8s.io/scheduler-plugins "${here}/scheduler-plugins/go.mod")
simulator_version=$(modver sigs.k8s.io/kube-scheduler-simulator/simulator "${here}/simulator/go.mod")
for v in kube_version etcd_version kwok_version plugins_version simulator_version; do
  [[ -n "${!v}" ]] || { echo "build.sh: cannot read ${v} from go.mod" >&2; exit 1; }
done

# Anything that changes the output changes the stamp: the pins, the checksums
# of every dependency, this script (flags) and the Go toolchain.
inputs_hash=$(cat "${here}/go.mod" "${here}/go.sum" "${here}/kwok/go.mod" "${here}/kwok/go.sum" \
  "${here}/scheduler-plugins/go.mod" "${here}/scheduler-plugins/go.sum" "${here}/simulator/go.mod" "${here}/simulator/go.sum" \
  "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)
key="kubernetes ${kube_version}
etcd ${etcd_version}
kwok ${kwok_version}
scheduler-plugins ${plugins_version}
simulator ${simulator_version}
go $(go env GOVERSION)
inputs ${inputs_hash}"

# kwok's stages have a stamp of their own (kwok-stages.sh): which pods kwok
# leaves alone is test harness policy, not a build input of any binary.
${envtest_only} || "${here}/kwok-stages.sh"

# fresh NAME PATH: PATH exists and was made from exactly these inputs.
fresh() { [[ -e "$2" && -f "${stamps}/$1" && "$(< "${stamps}/$1")" == "${key}" ]]; }
stale=()
for b in "${wanted[@]}"; do fresh "${b}" "${bin}/${b}" || stale+=("${b}"); done
if ! ${envtest_only}; then
  fresh plugin-crds "${out}/crds" || stale+=(plugin-crds)
  fresh simulator-config "${out}/simulator/config.yaml" || stale+=(simulator-config)
fi
if [[ ${#stale[@]} -eq 0 ]]; then
  echo "controlplane: up to date in ${bin} (kubernetes ${kube_version}, etcd ${etcd_version}, kwok ${kwok_version}, scheduler-plugins ${plugins_version}, simulator ${simulator_version})"
  exit 0
fi
echo "controlplane: to build: ${stale[*]}"
mkdir -p "${bin}" "${stamps}"

# Our own settings win over the user's: no workspace, no vendor dir, no cgo.
export GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0

minor=${kube_version#v1.}
minor=${minor%%.*}
# Without these the servers report v0.0.0-master, which breaks version checks.
kube_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X ${pkg}.gitVersion=${kube_version} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor}"
  kube_ldflags+=" -X ${pkg}.gitTreeState=clean"
done

build() { # name module-dir package ldflags
  local name=$1 dir=$2 pkg=$3 ldflags=$4 start=${SECONDS}
  if fresh "${name}" "${bin}/${name}"; then
    echo "controlplane: ${name} up to date"
    return
  fi
  echo "controlplane: building ${name} (${pkg}) ..."
  # Build to a temp name so an interrupted build never leaves a half binary.
  (cd "${dir}" && go build -trimpath -ldflags "${ldflags}" -o "${bin}/.${name}.tmp" "${pkg}")
  mv "${bin}/.${name}.tmp" "${bin}/${name}"
  echo "${key}" > "${stamps}/${name}"
  echo "controlplane: built ${name} in $((SECONDS - start))s"
}

# build_kubernetes NAME...: the binaries of k8s.io/kubernetes/cmd/NAME that are
# stale, in one go build: it links one while it compiles the next, which
# separate builds cannot (about a minute of a cold build on 2 cores).
build_kubernetes() {
  local name pkgs=() names=() start=${SECONDS} tmp
  for name in "$@"; do
    fresh "${name}" "${bin}/${name}" && { echo "controlplane: ${name} up to date"; continue; }
    names+=("${name}")
    pkgs+=("k8s.io/kubernetes/cmd/${name}")
  done
  ((${#names[@]} > 0)) || return 0
  echo "controlplane: building ${names[*]} (k8s.io/kubernetes/cmd/...) ..."
  # Into a directory of its own first, so an interrupted build never leaves a
  # half binary (nor, after the next run, the directory).
  rm -rf "${bin}"/.kubernetes.*
  tmp=$(mktemp -d "${bin}/.kubernetes.XXXXXX")
  (cd "${here}" && go build -trimpath -ldflags "${kube_ldflags}" -o "${tmp}/" "${pkgs[@]}")
  for name in "${names[@]}"; do
    mv "${tmp}/${name}" "${bin}/${name}"
    echo "${key}" > "${stamps}/${name}"
  done
  rmdir "${tmp}"
  echo "controlplane: built ${names[*]} in $((SECONDS - start))s"
}

total_start=${SECONDS}
kubernetes=()
for b in "${wanted[@]}"; do
  case "${b}" in
    etcd) build etcd "${here}" go.etcd.io/etcd/server/v3 "-s -w" ;;
    kwok) build kwok "${here}/kwok" sigs.k8s.io/kwok/cmd/kwok "-s -w" ;;
    scheduler-plugins) build scheduler-plugins "${here}/scheduler-plugins" sigs.k8s.io/scheduler-plugins/cmd/scheduler "-s -w" ;;
    simulator) build simulator "${here}/simulator" sigs.k8s.io/kube-scheduler-simulator/simulator "-s -w" ;;
    *) kubernetes+=("${b}") ;;
  esac
done
build_kubernetes "${kubernetes[@]}"

if ! ${envtest_only} && ! fresh plugin-crds "${out}/crds"; then
  # The CRDs of the plugins the examples use (PodGroup for Coscheduling,
  # ElasticQuota for CapacityScheduling), as scheduler-plugins ships them.
  plugins_dir=$(cd "${here}/scheduler-plugins" && go mod download -json sigs.k8s.io/scheduler-plugins | awk -F'"' '$2 == "Dir" { print $4 }')
  [[ -d "${plugins_dir}" ]] || { echo "build.sh: cannot locate the sigs.k8s.io/scheduler-plugins module" >&2; exit 1; }
  rm -rf "${out}/crds.tmp" && mkdir -p "${out}/crds.tmp"
  cp "${plugins_dir}/manifests/coscheduling/crd.yaml" "${out}/crds.tmp/podgroups.yaml"
  cp "${plugins_dir}/manifests/capacityscheduling/crd.yaml" "${out}/crds.tmp/elasticquotas.yaml"
  chmod u+w "${out}"/crds.tmp/*.yaml
  rm -rf "${out}/crds" && mv "${out}/crds.tmp" "${out}/crds"
  echo "${key}" > "${stamps}/plugin-crds"
  echo "controlplane: wrote the scheduler-plugins CRDs to ${out}/crds"
fi

if ! ${envtest_only} && ! fresh simulator-config "${out}/simulator/config.yaml"; then
  # The simulator reads ./config.yaml and exits without it; its image ships the
  # module's own as /config.yaml and runs from /. Environment variables
  # override it.
  simulator_dir=$(cd "${here}/simulator" && go mod download -json sigs.k8s.io/kube-scheduler-simulator/simulator | awk -F'"' '$2 == "Dir" { print $4 }')
  [[ -f "${simulator_dir}/config.yaml" ]] || { echo "build.sh: no config.yaml in the sigs.k8s.io/kube-scheduler-simulator/simulator module" >&2; exit 1; }
  mkdir -p "${out}/simulator"
  cp "${simulator_dir}/config.yaml" "${out}/simulator/config.yaml.tmp"
  chmod u+w "${out}/simulator/config.yaml.tmp"
  mv "${out}/simulator/config.yaml.tmp" "${out}/simulator/config.yaml"
  echo "${key}" > "${stamps}/simulator-config"
  echo "controlplane: wrote ${out}/simulator/config.yaml"
fi

echo "controlplane: done in $((SECONDS - total_start))s; binaries in ${bin}"
