# shellcheck shell=bash disable=SC2154,SC2034
# Shared by hack/bench-stack.sh and hack/bench-hostile.sh (source it after
# hack/lib/local.sh): the local stack with the operator binary as a host
# process, and what the benchmarks read of that process.
#
# Expects: root, and dir (a scratch directory the caller removes); sets
# listen (the operator's --listen address) and keeps the operator's PID in
# ${dir}/operator.pid and its log in ${dir}/operator.log.

# bench_stack_up NODES [OPERATOR FLAGS...]: a fresh control plane with NODES
# kwok nodes in ${dir}/cluster (its env sourced), manifests/ and
# examples/bin-packing applied, and the operator started under its own
# ServiceAccount's token until the SecondaryScheduler is Available; sets
# startup_seconds to the time the operator took to get there. Not in a
# subshell: it sets listen and the control plane's environment.
bench_stack_up() {
  local nodes=$1 start
  shift
  "${root}/hack/controlplane/stop.sh" "${dir}/cluster" >/dev/null 2>&1 || true
  "${root}/hack/controlplane/start.sh" "${dir}/cluster" --nodes "${nodes}" >&2
  # shellcheck disable=SC1091
  . "${dir}/cluster/env"
  install_manifests false >/dev/null
  kc apply -f "${root}/examples/bin-packing/" >/dev/null
  operator_kubeconfig "${dir}/operator.kubeconfig" 4h
  listen="127.0.0.1:$(free_port)"
  start=${EPOCHREALTIME}
  start_operator "${dir}/operator.kubeconfig" "${listen}" "${dir}/operator.log" "${dir}/operator.pid" "$@" >&2
  wait_available
  startup_seconds=$(awk -v a="${start}" -v b="${EPOCHREALTIME}" 'BEGIN {printf "%.2f", b - a}')
}

wait_available() {
  kc wait --for=condition=Available=True --timeout=300s secondaryscheduler/cluster >/dev/null 2>&1 ||
    kc wait --for=jsonpath='{.status.conditions[?(@.type=="Available")].status}'=True --timeout=300s secondaryscheduler/cluster >/dev/null
}

# bench_stack_down: stops the operator and the control plane.
bench_stack_down() {
  stop_pidfile "${dir}/operator.pid" secondary-scheduler-operator
  [[ -d "${dir}/cluster" ]] && "${root}/hack/controlplane/stop.sh" "${dir}/cluster" >/dev/null 2>&1
  return 0
}

# memory PID: "rss anon file peak" in MiB (peak: VmHWM, the highest RSS).
memory() {
  awk '/^VmRSS/ {r=$2} /^RssAnon/ {a=$2} /^RssFile/ {f=$2} /^VmHWM/ {h=$2} END {printf "%.1f %.1f %.1f %.1f", r/1024, a/1024, f/1024, h/1024}' "/proc/$1/status"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# operator_get PATH: GET https://${listen}PATH as the cluster's admin.
operator_get() {
  curl -skf --max-time 30 --cert "${CONTROLPLANE_DIR}/pki/admin.crt" --key "${CONTROLPLANE_DIR}/pki/admin.key" "https://${listen}$1"
}

# heap_after_gc: the operator's HeapAlloc in MiB right after a garbage
# collection (its profiling endpoint collects first with gc=1, and the text
# profile ends with the runtime's MemStats).
heap_after_gc() {
  operator_get '/debug/pprof/heap?gc=1&debug=1' | awk '$1 == "#" && $2 == "HeapAlloc" {printf "%.2f\n", $4 / 1048576}'
}

# heap_figures SAMPLES: the heap after a GC, SAMPLES times a second apart, as
# benchmark figures: "MIN heap-min-MiB MEDIAN heap-median-MiB MAX heap-max-MiB N heap-samples".
heap_figures() {
  local n=$1 i
  for ((i = 0; i < n; i++)); do
    ((i > 0)) && sleep 1
    heap_after_gc
  done | sort -n | awk '{v[NR] = $1} END {
      if (NR == 0) { print "0 heap-samples"; exit }
      printf "%s heap-min-MiB %s heap-median-MiB %s heap-max-MiB %d heap-samples", v[1], v[int(NR / 2) + 1], v[NR], NR }'
}

# operator_requests FROM_LINE: the operator's requests with an audit event
# after line FROM_LINE of the audit log, one per audit ID, as "verb resource";
# requests made as the operator by impersonation are not its own. A watch the
# API server ends in the window and the one the informer opens in its place
# are two.
operator_requests() {
  tail -n +"$(($1 + 1))" "${CONTROLPLANE_AUDIT_LOG}" | { grep -v '"impersonatedUser"' || true; } |
    awk 'match($0, /"auditID":"[^"]+"/) { id = substr($0, RSTART, RLENGTH); if (seen[id]++) next
        verb = "?"; resource = "?"
        if (match($0, /"verb":"[^"]+"/)) verb = substr($0, RSTART + 8, RLENGTH - 9)
        if (match($0, /"resource":"[^"]+"/)) resource = substr($0, RSTART + 12, RLENGTH - 13)
        print verb, resource }'
}
