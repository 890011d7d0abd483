#!/usr/bin/env bash
# What `make verify` and `make test` need from the machine, checked before
# anything builds: one line for each thing missing, then exit 1.
#
#   hack/prereqs.sh [--install]   # .ci/run and `make test` run it first
#   hack/prereqs.sh --go-version  # the Go version README.md names, from the go.mod files
#
# - root, with a network namespace that can be made and configured: the e2e
#   tier gives each Simulator pod one (CAP_SYS_ADMIN, CAP_NET_ADMIN);
# - flock, openssl, curl, make, ip (iproute2), ps, setsid, unshare, git;
# - chromium: the unit tier opens the trial report's page in it
#   (test/reportpage); outside CI, CHROMIUM_OPTIONAL=1 lets a machine go
#   without it, and that test skips;
# - Go: every go.mod (the main one and each module under hack/) names the Go
#   it needs in its go (or toolchain) line; the go command must run that or a
#   newer one, either installed or fetched through the Go module proxy
#   (GOTOOLCHAIN=auto; GOTOOLCHAIN=local forbids it);
# - free disk for a cold build (module cache, build cache, _output, TMPDIR),
#   less what the caches already hold: a shortfall is only warned about.
#
# Missing Debian packages are installed with apt-get instead of failing (as
# root) with --install, and always in CI (hack/lib/ci.sh); the one line
# "prereqs: installed ..." says what was.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${root}"
# shellcheck source=hack/lib/ci.sh
. "${root}/hack/lib/ci.sh"

# Disk a cold `make verify` + `make test` fills, in MiB, as measured on a
# 2-core machine after such a run (docs/benchmarks.md, "Cold CI run").
# Go module cache: the control plane's eight binaries need 3.3 GB of modules
# (kubernetes and the older k8s.io trees of scheduler-plugins and the
# simulator), promtool's and the OLM bundle test's (0.3 GB) the rest.
disk_modcache_mib=4800
# Go build cache: the control plane's compiled packages are 8.1 GB (go list
# -export of the eight), the operator and its tests about 2.5 GB, promtool
# and the code generators of make verify the rest, with the OLM bundle test's
# 0.5 GB (operator-framework/api and the apiserver libraries it validates with).
disk_gocache_mib=12500
# _output: the control plane binaries (0.7 GB), promtool, the operator.
disk_output_mib=1200
# TMPDIR: make verify's empty module cache, the e2e tier's clusters and logs.
disk_tmp_mib=1500

# The go.mod files whose go line the builds obey: this module's and the tool
# and control plane modules under hack/.
go_mods() {
  printf '%s\n' go.mod
  find hack -name go.mod -not -path '*/vendor/*' | sort
}

# go_key VERSION: a number that orders Go versions as the go command does
# (1.26 < 1.26rc1 < 1.26.0 < 1.26.7); empty when VERSION is not one.
go_key() {
  local v=${1#go}
  [[ "${v}" =~ ^([0-9]+)\.([0-9]+)(\.([0-9]+))?((rc|beta)([0-9]+))?$ ]] || return 0
  local major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]} patch=${BASH_REMATCH[4]} pre=${BASH_REMATCH[7]} p=0
  if [[ -n "${patch}" ]]; then
    p=$((patch * 1000 + 999))
  elif [[ -n "${pre}" ]]; then
    p=${pre}
  fi
  echo $((major * 1000000000 + minor * 1000000 + p))
}

# go_line GOMOD: the version of its go line.
go_line() { awk '$1 == "go" { print $2; exit }' "$1"; }
# toolchain_line GOMOD: the version of its toolchain line, if any.
toolchain_line() { awk '$1 == "toolchain" { sub(/^go/, "", $2); print $2; exit }' "$1"; }

# go_version_needed: the highest go line of go_mods (what README.md names).
go_version_needed() {
  local f v best=""
  while read -r f; do
    v=$(go_line "${f}")
    if [[ -z "${best}" || $(go_key "${v}") -gt $(go_key "${best}") ]]; then best=${v}; fi
  done < <(go_mods)
  echo "${best}"
}

install=false
case "${1:-}" in
  "") ;;
  --install) install=true ;;
  --go-version) go_version_needed; exit 0 ;;
  *) echo "usage: $0 [--install | --go-version]" >&2; exit 2 ;;
esac
in_ci && install=true

missing=()
fail() { missing+=("$*"); }

# Commands, with the Debian package of each.
declare -A package_of=(
  [flock]=util-linux [unshare]=util-linux [setsid]=util-linux
  [openssl]=openssl [curl]=curl [make]=make [ip]=iproute2 [ps]=procps [git]=git
  [chromium]=chromium
)
absent() {
  local c
  for c in "${!package_of[@]}"; do
    [[ "${c}" == chromium && -n "${CHROMIUM_OPTIONAL:-}" ]] && ! in_ci && continue
    command -v "${c}" >/dev/null || echo "${c}"
  done | sort
}
mapfile -t lacking < <(absent)
if [[ ${#lacking[@]} -gt 0 ]] && ${install} && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  mapfile -t packages < <(for c in "${lacking[@]}"; do echo "${package_of[${c}]}"; done | sort -u)
  log=$(mktemp)
  if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}"; } >"${log}" 2>&1; then
    echo "prereqs: installed ${packages[*]} (apt-get) for ${lacking[*]}"
  else
    echo "prereqs: apt-get install ${packages[*]} failed; last lines:" >&2
    tail -n 5 "${log}" >&2
  fi
  rm -f "${log}"
  mapfile -t lacking < <(absent)
fi
for c in "${lacking[@]}"; do
  fail "${c} not found: apt-get install -y ${package_of[${c}]} (hack/prereqs.sh --install does it as root)"
done

# Root, and a network namespace as the e2e tier makes one for a Simulator pod
# (test/e2e/operandrunner: CLONE_NEWNET, loopback up, an address and a default
# route on it). uid 0 is not enough in a container without CAP_SYS_ADMIN.
if [[ $(id -u) -ne 0 ]]; then
  fail "not root: the e2e tier gives each Simulator pod a network namespace of its own (CAP_SYS_ADMIN); run as root"
elif command -v unshare >/dev/null; then
  netns_probe='true'
  command -v ip >/dev/null && netns_probe='ip link set lo up && ip addr add 10.244.0.2/32 dev lo && ip route add default dev lo'
  if ! out=$(unshare --net sh -c "${netns_probe}" 2>&1); then
    fail "root, but no network namespace can be made and set up (unshare --net: ${out//$'\n'/; }): the e2e tier needs CAP_SYS_ADMIN and CAP_NET_ADMIN (in a container: --privileged, or --cap-add SYS_ADMIN --cap-add NET_ADMIN and no seccomp filter on unshare/setns)"
  fi
fi

# Go.
if ! command -v go >/dev/null; then
  fail "go not found: install Go $(go_version_needed) or newer (https://go.dev/dl)"
else
  installed=$(GOTOOLCHAIN=local go env GOVERSION)
  toolchain_mode=$(go env GOTOOLCHAIN)
  while read -r f; do
    dir=$(dirname "${f}")
    need=$(go_line "${f}")
    tc=$(toolchain_line "${f}")
    [[ "${toolchain_mode}" != local && -n "${tc}" && $(go_key "${tc}") -gt $(go_key "${need}") ]] && need=${tc}
    # The go command picks (and under GOTOOLCHAIN=auto downloads) the
    # toolchain a module needs when it starts in the module's directory.
    err=$(mktemp)
    if ! got=$(cd "${dir}" && GOWORK=off GOFLAGS='' go env GOVERSION 2>"${err}"); then
      fail "go: ${f} needs go ${need}, which the go command cannot run here (GOTOOLCHAIN=${toolchain_mode}): $(grep -v '^go: downloading' "${err}" | head -n 1)"
    elif [[ -z $(go_key "${got}") || $(go_key "${got}") -lt $(go_key "${need}") ]]; then
      fail "go: ${f} needs go ${need}; the go command runs ${got} (GOTOOLCHAIN=${toolchain_mode}): install Go ${need} or newer, or set GOTOOLCHAIN=auto to fetch it through the Go module proxy"
    elif [[ "${got}" != "${installed}" ]]; then
      grep -q '^go: downloading' "${err}" && echo "prereqs: ${got} for ${f} fetched through the Go module proxy (GOTOOLCHAIN=${toolchain_mode}; ${installed} installed)"
    fi
    rm -f "${err}"
  done < <(go_mods)
fi

# Free disk, per filesystem: what a cold build writes there, less what the
# caches and _output already hold.
if command -v go >/dev/null; then
  gomodcache=$(GOFLAGS='' go env GOMODCACHE)
  gocache=$(GOFLAGS='' go env GOCACHE)
else
  gomodcache="${HOME}/go/pkg/mod" gocache="${HOME}/.cache/go-build"
fi
declare -A need_mib=() what=()
# mount_of PATH: the mount point of PATH or of its closest existing parent.
mount_of() {
  local p=$1
  while [[ ! -e "${p}" && "${p}" != / ]]; do p=$(dirname "${p}"); done
  df -Pk "${p}" | awk 'NR == 2 { print $6 }'
}
# want NAME PATH MIB [held]: a cold build writes MIB below PATH; with held,
# what PATH already holds counts towards it.
want() {
  local name=$1 path=$2 mib=$3 held=0 m
  [[ "${path}" == off || -z "${path}" ]] && return 0
  if [[ "${4:-}" == held && -d "${path}" ]]; then
    held=$(du -sm "${path}" 2>/dev/null | awk '{ print $1 }')
  fi
  ((mib -= held, mib > 0)) || return 0
  m=$(mount_of "${path}")
  need_mib[${m}]=$((${need_mib[${m}]:-0} + mib))
  what[${m}]+="${what[${m}]:+, }${name} ${mib} MiB"
}
want "module cache" "${gomodcache}" "${disk_modcache_mib}" held
want "build cache" "${gocache}" "${disk_gocache_mib}" held
want _output "${root}/_output" "${disk_output_mib}" held
want TMPDIR "${TMPDIR:-/tmp}" "${disk_tmp_mib}"
# The figures are estimates of a cold run, so a shortfall is a warning, not a
# refusal: a run that does run out of disk fails in the step that writes.
disk=disk
for m in "${!need_mib[@]}"; do
  free=$(($(df -Pk "${m}" | awk 'NR == 2 { print $4 }') / 1024))
  if ((free < need_mib[${m}])); then
    echo "prereqs: warning: disk: ${m} has ${free} MiB free; a cold build may need about ${need_mib[${m}]} MiB more there (${what[${m}]}); free some space if a step fails writing" >&2
    disk="disk short on ${m}"
  fi
done

if [[ ${#missing[@]} -gt 0 ]]; then
  printf 'prereqs: %s\n' "${missing[@]}" >&2
  echo "prereqs: ${#missing[@]} missing; nothing was built" >&2
  exit 1
fi
echo "prereqs: ok ($(id -un), network namespaces, ${installed}, ${disk})"
