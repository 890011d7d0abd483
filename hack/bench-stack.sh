#!/usr/bin/env bash
# The operator binary as a host process, under its own ServiceAccount's token,
# against the full local stack (hack/controlplane/start.sh): for each kwok node
# count, its start-up time to the first converged reconcile, then its cost while
# idle with 0 and more pods it does not own, then (at the last node count) with
# more and more Simulators: RSS (anonymous and file-backed, and its peak), Go
# heap after a GC (HEAP_SAMPLES times, default 5: min, median, max), CPU
# seconds per idle hour, and the requests
# the API server received from it (its audit log; what is not a lease renewal
# is listed in "# note:" lines). Prints go test benchmark lines for
# test/bench/benchreport; asserts nothing.
#
#   hack/bench-stack.sh
#
# BENCH_NODES (default "50 500"), BENCH_PODS (cumulative, default "3000 10000"),
# BENCH_IDLE_SECONDS (default 600: the idle window with no foreign pod),
# BENCH_WINDOW_SECONDS (default 120: the window after each pod count),
# BENCH_SIMULATORS (cumulative, default "100 300 1000"; kwok runs no Simulator
# Pod, so they stay Creating: the operator holds each one's Simulator, Pod,
# Service and NetworkPolicy all the same).
# Needs `make build` and hack/controlplane/build.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/lib/local.sh
. "${root}/hack/lib/local.sh"
# shellcheck source=hack/lib/bench.sh
. "${root}/hack/lib/bench.sh"
nodes_list=${BENCH_NODES:-50 500}
pods_list=${BENCH_PODS:-3000 10000}
idle=${BENCH_IDLE_SECONDS:-600}
window=${BENCH_WINDOW_SECONDS:-120}
simulators_list=${BENCH_SIMULATORS:-100 300 1000}
heap_samples=${HEAP_SAMPLES:-5}
tick=$(getconf CLK_TCK)

dir=$(mktemp -d "${TMPDIR:-/tmp}/secondary-scheduler-bench.XXXXXX")
cleanup() {
  set +e
  bench_stack_down
  rm -rf "${dir}"
}
trap cleanup EXIT

# measure NAME SECONDS: the operator's cost over SECONDS of no change.
measure() {
  local name=$1 seconds=$2 pid from t0 t1 heap mem
  pid=$(< "${dir}/operator.pid")
  sleep 20 # what the last change set off settles
  from=$(wc -l < "${CONTROLPLANE_AUDIT_LOG}")
  t0=$(cpu_ticks "${pid}")
  sleep "${seconds}"
  t1=$(cpu_ticks "${pid}")
  mem=$(memory "${pid}")
  operator_requests "${from}" > "${dir}/requests"
  heap=$(heap_figures "${heap_samples}") # once the window's requests are read
  read -r rss anon file peak <<< "${mem}"
  leases=$(awk '$2 == "leases"' "${dir}/requests" | wc -l)
  others=$(awk '$2 != "leases"' "${dir}/requests" | wc -l)
  if ((others > 0)); then
    echo "# note: ${name}: requests other than lease renewals in ${seconds} s: $(awk '$2 != "leases"' "${dir}/requests" | sort | uniq -c | awk '{printf "%s%s %s x%d", sep, $2, $3, $1; sep = ", "}')"
  fi
  echo "${name} 1 ${rss} rss-MiB ${anon} anon-MiB ${file} file-MiB ${peak} rss-peak-MiB ${heap}" \
    "$(awk -v t="$((t1 - t0))" -v hz="${tick}" -v s="${seconds}" 'BEGIN {printf "%.2f", t / hz * 3600 / s}') cpu-s/hour" \
    "$(awk -v n="${leases}" -v s="${seconds}" 'BEGIN {printf "%.2f", n * 60 / s}') lease-requests/minute" \
    "$(awk -v n="${others}" -v s="${seconds}" 'BEGIN {printf "%.2f", n * 60 / s}') other-requests/minute"
}

# measure_simulators: for each count of BENCH_SIMULATORS, the seconds until
# every Simulator added has its Pod (and per Simulator), then the operator's
# cost while idle.
measure_simulators() {
  local have=0 want i start
  kc create namespace bench-simulators >/dev/null
  for want in ${simulators_list}; do
    start=${EPOCHREALTIME}
    for ((i = have; i < want; i++)); do
      printf 'apiVersion: simulation.kube-scheduler-simulator.x-k8s.io/v1alpha1\nkind: Simulator\nmetadata: {name: s%s, namespace: bench-simulators}\n---\n' "${i}"
    done | kc create -f - >/dev/null
    until (($(kc get pods -n bench-simulators --no-headers 2>/dev/null | wc -l) >= want)); do sleep 1; done
    echo "BenchmarkStackSimulators/simulators=${want}/created 1 $(awk -v a="${start}" -v b="${EPOCHREALTIME}" 'BEGIN {printf "%.2f", b - a}') s-to-all-pods" \
      "$(awk -v a="${start}" -v b="${EPOCHREALTIME}" -v n="$((want - have))" 'BEGIN {printf "%.2f", (b - a) * 1000 / n}') ms/simulator-created"
    have=${want}
    measure "BenchmarkStackSimulators/simulators=${want}" "${window}"
  done
}

for nodes in ${nodes_list}; do
  log "control plane with ${nodes} kwok nodes" >&2
  bench_stack_up "${nodes}"
  echo "BenchmarkStack/nodes=${nodes}/startup 1 ${startup_seconds} s-to-available"
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
  if [[ "${nodes}" == "${nodes_list##* }" ]]; then
    measure_simulators
  fi
  bench_stack_down
done
