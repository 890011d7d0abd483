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
  startup_seconds=$(since "${start}")
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

# operator_lease_holder: the holder of the operator's leader-election Lease,
# "" while none holds it.
operator_lease_holder() {
  kc -n "${operator_namespace}" get lease secondary-scheduler-operator-lock -o jsonpath='{.spec.holderIdentity}' 2>/dev/null || true
}

# operator_synced CONTROLLER...: whether each CONTROLLER of the operator
# process at ${listen} has synced successfully at least once, by its own
# /metrics (controller_syncs_total starts at zero in a new process).
operator_synced() {
  local metrics c
  metrics=$(operator_get /metrics) || return 1
  for c in "$@"; do
    grep -qE "^secondary_scheduler_operator_controller_syncs_total\{controller=\"${c}\",result=\"success\"\} [1-9]" <<< "${metrics}" || return 1
  done
}

# new_process_ready OLD_HOLDER START: waits, up to 300 s, until the operator
# process started at START (an ${EPOCHREALTIME}) holds the Lease itself (a
# holder other than OLD_HOLDER) and has synced the controllers that write the
# operand's config and the SecondaryScheduler's status. A condition the
# process before left True says nothing of this one. Sets lease_seconds and
# synced_seconds, each from START.
new_process_ready() {
  local old=$1 start=$2 holder deadline=$((SECONDS + 300))
  lease_seconds="" synced_seconds=""
  while ((SECONDS < deadline)); do
    if [[ -z "${lease_seconds}" ]]; then
      holder=$(operator_lease_holder)
      [[ -n "${holder}" && "${holder}" != "${old}" ]] && lease_seconds=$(since "${start}")
    fi
    if [[ -n "${lease_seconds}" ]] && operator_synced TargetConfigController OperandStatusController; then
      synced_seconds=$(since "${start}")
      return 0
    fi
    sleep 0.1
  done
  echo "the restarted operator did not take the Lease (from ${old}: now '${holder}') and sync within 300 s" >&2
  return 1
}

# since START: seconds from START (an ${EPOCHREALTIME}) to now, "1.23".
since() { awk -v a="$1" -v b="${EPOCHREALTIME}" 'BEGIN {printf "%.2f", b - a}'; }
