#!/usr/bin/env bash
# make bench's hostile section: the operator binary as a host process on the
# full local stack (hack/controlplane/start.sh, HOSTILE_NODES kwok nodes,
# default 30: room for every Simulator Pod), under what hostile users and inputs can throw at it
# (BenchmarkHostile in test/bench: 2,000 Simulators with 250 KiB of
# annotations, foreign objects with the operator's labels, the ConfigMaps that
# once cost gigabytes, a spec.rbac rule of 100 items a list, 10,000 pods of
# unserved schedulerNames), then the operator restarted with all of that in
# place, then the in-process benchmarks of each bound's check. Prints go test
# benchmark lines for test/bench/benchreport, the section's title and its
# targets ("# title:", "# target:" lines); asserts nothing.
#
#   hack/bench-hostile.sh
#
# BenchmarkHostile's sizes come from the environment (HOSTILE_SIMULATORS,
# HOSTILE_ANNOTATION_KIB, HOSTILE_FOREIGN, HOSTILE_PENDING_PODS,
# REACTION_BENCH_SAMPLES, HOSTILE_CONFIG_SAMPLES, HEAP_SAMPLES). Needs
# `make build` and hack/controlplane/build.sh. With HOSTILE_PROFILE_DIR set,
# the operator's /metrics and allocation profile before and after the
# SecondaryScheduler-change samples, a CPU profile of their first 20 s (go tool
# pprof _output/bin/secondary-scheduler-operator DIR/cpu.pprof) and the
# operator's log up to its restart (a sync over 100 ms logs its steps) go there,
# and for a heap sample over 64 MiB, its heap profile and the operator's
# goroutines (SECTION.SAMPLE.heap.txt, SECTION.SAMPLE.goroutines.txt).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${root}"
# shellcheck source=hack/lib/local.sh
. "${root}/hack/lib/local.sh"
# shellcheck source=hack/lib/bench.sh
. "${root}/hack/lib/bench.sh"
nodes=${HOSTILE_NODES:-30}
heap_samples=${HEAP_SAMPLES:-5}
export HOSTILE_SIMULATORS=${HOSTILE_SIMULATORS:-2000} HOSTILE_ANNOTATION_KIB=${HOSTILE_ANNOTATION_KIB:-250}
export HOSTILE_FOREIGN=${HOSTILE_FOREIGN:-2000} HOSTILE_PENDING_PODS=${HOSTILE_PENDING_PODS:-10000}
export HOSTILE_OVERSIZED_SPECS=${HOSTILE_OVERSIZED_SPECS:-200}

dir=$(mktemp -d "${TMPDIR:-/tmp}/secondary-scheduler-hostile.XXXXXX")
cleanup() {
  set +e
  bench_stack_down
  rm -rf "${dir}"
}
trap cleanup EXIT

load="BenchmarkHostile/load/simulators=${HOSTILE_SIMULATORS},annotations-KiB=${HOSTILE_ANNOTATION_KIB},foreign=${HOSTILE_FOREIGN}"
# The targets: what no user-made object or input may cost the operator.
{
  echo "${load} heap-max-MiB < 64"
  echo "${load} cr-change-to-template-p99-ms < 100"
  echo "${load} foreign-objects-left = $((2 * HOSTILE_FOREIGN))"
  oversized="BenchmarkHostile/oversized-specs/simulators=${HOSTILE_OVERSIZED_SPECS},template-KiB=${HOSTILE_ANNOTATION_KIB}"
  echo "${oversized} heap-max-MiB < 64"
  echo "${oversized} pods-created = 0"
  for c in aliases-400KB string-900KB-aliased-500 nested-aliases-1e9 values-900KB; do
    for section in controller controller-under-load; do
      echo "BenchmarkHostile/configmap=${c}/${section} refused-p99-ms < 100"
      echo "BenchmarkHostile/configmap=${c}/${section} allocated-max-MiB < 64"
      echo "BenchmarkHostile/configmap=${c}/${section} heap-max-MiB < 64"
    done
  done
  for c in aliases-400KB string-900KB-aliased-500 nested-aliases-1e9 values-900KB over-1MiB; do
    for command in render diff; do
      echo "BenchmarkHostile/configmap=${c}/${command} wall-p99-ms < 100"
      echo "BenchmarkHostile/configmap=${c}/${command} charged-peak-max-MiB < 64"
      echo "BenchmarkHostile/configmap=${c}/${command} oom-kills = 0"
    done
    echo "BenchmarkRenderRefusesHostileInput/config=${c} ns/op < 100000000"
    echo "BenchmarkRenderRefusesHostileInput/config=${c} B/op < 67108864"
  done
  for section in apiserver apiserver-under-load; do
    echo "BenchmarkHostile/configmap=over-1MiB/${section} refused-p99-ms < 100"
    echo "BenchmarkHostile/rbac-rule-100-items/${section} refused-p99-ms < 10"
  done
  echo "BenchmarkRefusingALargeRule ns/op < 10000000"
  echo "BenchmarkHostile/unserved/pods=${HOSTILE_PENDING_PODS} series <= 12"
  echo "BenchmarkHostile/end heap-max-MiB < 64"
  echo "BenchmarkHostile/restart-with-load heap-max-MiB < 64"
} | sed 's/^/# target: /'

echo "# note: render and diff run twice per sample: alone, for wall; then in a memory cgroup limited to 64 MiB, under /usr/bin/time, for every other figure (wall-measured is that run's wall, the shell and /usr/bin/time starts included): charged-peak is what it was charged at most (the process's own memory; the binary's pages already in the page cache are not), limit-hits how often the limit was reached, oom-kills whether the kernel killed it. rss-peak, from /usr/bin/time, also counts every page of the binary the process maps, shared with the page cache: for diff, 67 of the 85 MiB of its loaded segments (22 MiB of them mapped 2 MiB at a time from large page-cache folios, /proc/PID/smaps), beside 12 MiB of its own."
echo "# note: render and diff are secondary-scheduler-ctl's, timed on the stack before the load is created (an administrator runs them on a machine of their own); operator-render and operator-diff are the same commands of the operator binary; render-under-load and diff-under-load are ctl's again with the load in place, where the API server's work keeps both cores busy."
# Other work on the machine shows in the times: say how busy it was.
echo "# note: the refusals (configmap=CASE/controller and /apiserver, rbac-rule-100-items/apiserver) are timed on the stack alone, then again with the load in place (-under-load). A refusal by the controller is timed from the start of the ConfigMap's write: written is that write's round trip and delivered when a watch of the ConfigMap got the change, both the API server's alone; after-delivery is refused less delivered, sample by sample: the operator's sync and status write, and the bench's watch of the status. rbac-rule-100-items's noop-update is an update of the SecondaryScheduler that changes nothing: the API server's floor for a refusal."
echo "# note: cr-change-to-template and the controller's refused samples each start once the operator's requests and syncs have stopped for 1 s, so that none times the tail of the rollout before it (until b596be4, 200 ms after the last sample's end)."
echo "# note: load average (1, 5, 15 min) at the start: $(cut -d' ' -f1-3 /proc/loadavg), on $(nproc) cores"
# The load average misses a slower machine (a busy host under the VM): the
# same CPU-bound work, timed before anything starts, says how fast this one was.
echo "# note: BenchmarkRender/machine-reference is BenchmarkRender (pkg/operator/render) timed before the stack starts, to compare runs by: the slower the machine, the slower every time in this section."
go test -mod=vendor ./pkg/operator/render/ -run '^$' -bench '^BenchmarkRender$' -benchtime 2s | sed -n 's|^BenchmarkRender-[0-9]*|BenchmarkRender/machine-reference|p'
log "control plane with ${nodes} kwok nodes" >&2
# A grace of 10 s instead of a minute, so the pending pods count sooner.
bench_stack_up "${nodes}" --unserved-pod-grace=10s
echo "BenchmarkHostile/startup 1 ${startup_seconds} s-to-available"

# The Go benchmark's own log (client-go warnings) goes apart, so that it
# never splits a benchmark line.
STACK_KUBECONFIG="${KUBECONFIG}" STACK_OPERATOR_URL="https://${listen}" STACK_OPERATOR_PID="$(< "${dir}/operator.pid")" \
  STACK_OPERATOR_BINARY="${root}/_output/bin/secondary-scheduler-operator" STACK_CTL_BINARY="${root}/_output/bin/secondary-scheduler-ctl" \
  go test -mod=vendor ./test/bench/ -run '^$' -bench '^BenchmarkHostile$' -benchtime 1x -timeout 90m 2> "${dir}/bench.stderr" ||
  { tail -n 50 "${dir}/bench.stderr" >&2; tail -n 30 "${dir}/operator.log" >&2; exit 1; }

# The operator's log of the run, its slow syncs' traces among it, goes with the profiles.
[[ -z "${HOSTILE_PROFILE_DIR:-}" ]] || cp "${dir}/operator.log" "${HOSTILE_PROFILE_DIR}/operator.log"
# A restart reads everything above again: its peak RSS is the initial lists'.
# Timed to the new process's own Lease and first syncs: the Available
# condition the process before left True would answer at once.
old_holder=$(operator_lease_holder)
stop_pidfile "${dir}/operator.pid" secondary-scheduler-operator
start=${EPOCHREALTIME}
start_operator "${dir}/operator.kubeconfig" "${listen}" "${dir}/operator.log" "${dir}/operator.pid" --unserved-pod-grace=10s >&2
new_process_ready "${old_holder}" "${start}"
sleep 20 # the first syncs settle
read -r rss _ _ peak <<< "$(memory "$(< "${dir}/operator.pid")")"
echo "BenchmarkHostile/restart-with-load 1 ${lease_seconds} s-to-lease ${synced_seconds} s-to-synced $(heap_figures "${heap_samples}") ${rss} rss-MiB ${peak} rss-peak-MiB"
bench_stack_down
echo "# note: load average (1, 5, 15 min) after the stack: $(cut -d' ' -f1-3 /proc/loadavg)"

# The checks alone, in-process.
go test -mod=vendor ./pkg/operator/render/ -run '^$' -bench '^(BenchmarkRefusingALargeRule|BenchmarkRefusingAliases)$' -benchmem
go test -mod=vendor ./pkg/cmd/ctl/ -run '^$' -bench '^BenchmarkRenderRefusesHostileInput$' -benchmem
go test -mod=vendor ./pkg/operator/unservedpodscontroller/ -run '^$' -bench '^BenchmarkReport10000Pods$' -benchmem
