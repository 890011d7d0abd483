#!/usr/bin/env bash
# The operator binary as a host process, under its own ServiceAccount's token,
# against the full local stack (hack/controlplane/start.sh): for each kwok node
# count, its start-up time to the first converged reconcile, then its cost while
# idle with 0 and more pods it does not own: RSS (anonymous and file-backed),
# Go heap (go_memstats_heap_alloc_bytes), CPU seconds per idle hour, and the
# requests the API server received from it (its audit log). Prints go test
# benchmark lines for test/bench/benchreport; asserts nothing.
#
#   hack/bench-stack.sh
#
# BENCH_NODES (default "50 500"), BENCH_PODS (cumulative, default "3000 10000"),
# BENCH_IDLE_SECONDS (default 600: the idle window with no foreign pod),
# BENCH_WINDOW_SECONDS (default 120: the window after each pod count).
# Needs `make build` and hack/controlplane/build.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/lib/local.sh
. "${root}/hack/lib/local.sh"
nodes_list=${BENCH_NODES:-50 500}
pods_list=${BENCH_PODS:-3000 10000}
idle=${BENCH_IDLE_SECONDS:-600}
window=${BENCH_WINDOW_SECONDS:-120}
tick=$(getconf CLK_TCK)

dir=$(mktemp -d "${TMPDIR:-/tmp}/secondary-scheduler-bench.XXXXXX")
cleanup() {
  set +e
  stop_pidfile "${dir}/operator.pid" secondary-scheduler-operator
  [[ -d "${dir}/cluster" ]] && "${root}/hack/controlplane/stop.sh" "${dir}/cluster" >/dev/null 2>&1
  rm -rf "${dir}"
}
trap cleanup EXIT

# sample PID: "rss anon file" in MiB.
memory() {
  awk '/^VmRSS/ {r=$2} /^RssAnon/ {a=$2} /^RssFile/ {f=$2} END {printf "%.1f %.1f %.1f", r/1024, a/1024, f/1024}' "/proc/$1/status"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
heap_mib() {
  curl -skf --max-time 5 --cert "${dir}/cluster/pki/admin.crt" --key "${dir}/cluster/pki/admin.key" "https://$1/metrics" |
    awk '$1 == "go_memstats_heap_alloc_bytes" {printf "%.1f", $2 / 1048576}' || echo 0
}
# audit_counts FROM_LINE: "lease other" requests of the operator after line FROM_LINE.
audit_counts() {
  # One request per audit ID (a watch logs when it starts and when it ends);
  # requests made as the operator by impersonation are not its own.
  tail -n +"$(($1 + 1))" "${CONTROLPLANE_AUDIT_LOG}" | { grep -v '"impersonatedUser"' || true; } |
    awk 'match($0, /"auditID":"[^"]+"/) { id = substr($0, RSTART, RLENGTH); if (seen[id]++) next; if ($0 ~ /"resource":"leases"/) l++; else o++ }
      END { printf "%d %d", l, o }'
}

# measure NAME SECONDS: the operator's cost over SECONDS of no change.
measure() {
  local name=$1 seconds=$2 pid from t0 t1 heap mem counts
  pid=$(< "${dir}/operator.pid")
  sleep 20 # what the last change set off settles
  from=$(wc -l < "${CONTROLPLANE_AUDIT_LOG}")
  t0=$(cpu_ticks "${pid}")
  sleep "${seconds}"
  t1=$(cpu_ticks "${pid}")
  mem=$(memory "${pid}")
  heap=$(heap_mib "${listen}")
  counts=$(audit_counts "${from}")
  read -r rss anon file <<< "${mem}"
  read -r leases others <<< "${counts}"
  echo "${name} 1 ${rss} rss-MiB ${anon} anon-MiB ${file} file-MiB ${heap:-0} heap-MiB" \
    "$(awk -v t="$((t1 - t0))" -v hz="${tick}" -v s="${seconds}" 'BEGIN {printf "%.2f", t / hz * 3600 / s}') cpu-s/hour" \
    "$(awk -v n="${leases}" -v s="${seconds}" 'BEGIN {printf "%.2f", n * 60 / s}') lease-requests/minute" \
    "$(awk -v n="${others}" -v s="${seconds}" 'BEGIN {printf "%.2f", n * 60 / s}') other-requests/minute"
}

for nodes in ${nodes_list}; do
  log "control plane with ${nodes} kwok nodes" >&2
  "${root}/hack/controlplane/stop.sh" "${dir}/cluster" >/dev/null 2>&1 || true
  "${root}/hack/controlplane/start.sh" "${dir}/cluster" --nodes "${nodes}" >&2
  # shellcheck disable=SC1091
  . "${dir}/cluster/env"
  install_manifests false >/dev/null
  kc apply -f "${root}/examples/bin-packing/" >/dev/null
  operator_kubeconfig "${dir}/operator.kubeconfig" 2h
  listen="127.0.0.1:$(free_port)"
  start=${EPOCHREALTIME}
  start_operator "${dir}/operator.kubeconfig" "${listen}" "${dir}/operator.log" "${dir}/operator.pid" >&2
  kc wait --for=condition=Available=True --timeout=300s secondaryscheduler/cluster >/dev/null 2>&1 ||
    kc wait --for=jsonpath='{.status.conditions[?(@.type=="Available")].status}'=True --timeout=300s secondaryscheduler/cluster >/dev/null
  echo "BenchmarkStack/nodes=${nodes}/startup 1 $(awk -v a="${start}" -v b="${EPOCHREALTIME}" 'BEGIN {printf "%.2f", b - a}') s-to-available"
  measure "BenchmarkStack/nodes=${nodes}/pods=0" "${idle}"
  kc create namespace bench-unowned >/dev/null
  have=0
  for want in ${pods_list}; do
    for ((i = have; i < want; i++)); do
      printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p%s, namespace: bench-unowned}\nspec: {containers: [{name: c, image: example.com/none}], nodeSelector: {type: kwok}}\n---\n' "${i}"
    done | kc create -f - >/dev/null
    have=${want}
    measure "BenchmarkStack/nodes=${nodes}/pods=${want}" "${window}"
  done
  stop_pidfile "${dir}/operator.pid" secondary-scheduler-operator
  "${root}/hack/controlplane/stop.sh" "${dir}/cluster" >/dev/null
done
