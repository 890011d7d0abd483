#!/usr/bin/env bash
# make bench: every figure of docs/benchmarks.md, measured again, then the
# report written (docs/benchmarks.md and docs/benchmarks.json) by
# test/bench/benchreport. Takes about an hour with the defaults; the raw output
# stays in _output/bench/raw.txt. The report names the commit, the load
# average at the start and a machine reference figure (BenchmarkRender, timed
# before anything else). It refuses to start with a load average over 1 in the
# last minute (BENCH_IGNORE_LOAD=true measures anyway, and the report says how
# busy the machine was). It exits non-zero, after writing the report, when a
# section failed or a target of this run was missed (listed at the end).
#
#   hack/bench.sh [SECTION...]
#
# With SECTIONs (render, reactions, simulators, memory, stack, hostile, trial, trial-write, trial-alone), only
# those are measured; the report keeps the other sections of
# docs/benchmarks.json, each marked with the run it comes from.
#
# Sizes: SIMULATOR_BENCH_N (default "100,300,1000,2000"),
# MEMORY_BENCH_SIMULATORS (default "100,300,1000"), and those of
# hack/bench-stack.sh (BENCH_NODES, BENCH_PODS, BENCH_IDLE_SECONDS,
# BENCH_WINDOW_SECONDS, BENCH_SIMULATORS) and hack/bench-hostile.sh
# (HOSTILE_SIMULATORS, HOSTILE_ANNOTATION_KIB, HOSTILE_FOREIGN,
# HOSTILE_PENDING_PODS), and the trial's TRIAL_BENCH_SIZES (default
# "500/5000/200,2000/30000/500,5000/100000/1000", nodes/bound pods/replayed)
# and TRIAL_BENCH_SEEDING (default "storage,api": each size seeded in etcd,
# then through the API; "storage" alone saves the slow API runs, about 20 s,
# 2 and 7 minutes); section trial-alone runs the same sizes with storage
# seeding one arm at a time, each arm with the machine to itself as the
# operator's trial Pods on nodes of their own have it. BENCH_COMMIT names the commit measured, for a tree
# exported from git (git archive) rather than a clone.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${root}"
out="${root}/_output/bench"
mkdir -p "${out}"
# Other work on the machine shows in every figure: measure an idle one.
load=$(cut -d' ' -f1-3 /proc/loadavg)
if awk -v l="${load%% *}" 'BEGIN { exit !(l > 1) }'; then
  if [[ "${BENCH_IGNORE_LOAD:-false}" != true ]]; then
    echo "bench.sh: the load average over the last minute is ${load%% *} (above 1): other work would show in every figure; wait until the machine is idle, or set BENCH_IGNORE_LOAD=true to measure anyway (the report records the load)" >&2
    exit 1
  fi
  echo "bench.sh: warning: load average ${load%% *} (above 1); measuring anyway (BENCH_IGNORE_LOAD=true)" >&2
fi
raw="${out}/raw.txt"
: > "${raw}"
export KUBEBUILDER_ASSETS="${root}/_output/controlplane/bin"
# The stack and hostile sections run _output/bin: built from this tree, so
# that the commit the report names is the one measured.
make build >&2
export SIMULATOR_BENCH_N="${SIMULATOR_BENCH_N:-100,300,1000,2000}"

# The machine reference: CPU-bound, timed before anything starts, so that
# runs on machines of different speed (or a host busier than the load average
# shows) can be compared.
reference=$(go test -mod=vendor ./pkg/operator/render/ -run '^$' -bench '^BenchmarkRender$' -benchtime 2s |
  awk '$1 ~ /^BenchmarkRender-[0-9]+$/ {printf "BenchmarkRender (pkg/operator/render) %.2f ms/op", $3 / 1e6}')
[[ -n "${reference}" ]] || { echo "bench.sh: BenchmarkRender (the machine reference) printed no figure" >&2; exit 1; }
echo "bench.sh: load average ${load}; machine reference: ${reference}" >&2

sections=("$@")
merge=()
if ((${#sections[@]} > 0)); then
  merge=(-merge docs/benchmarks.json)
fi

# run SECTION TITLE COMMAND...: unless SECTIONs were named and SECTION is not
# one of them, runs COMMAND, echoing its output, and files it under its
# command and TITLE. A section that fails is named in failed; the others
# still run, and the report is still written.
failed=()
run() {
  local section=$1 title=$2 command
  shift 2
  if ((${#sections[@]} > 0)) && [[ " ${sections[*]} " != *" ${section} "* ]]; then
    return 0
  fi
  command=$(printf '%q ' "$@")
  printf '# command: %s\n# title: %s\n' "${command% }" "${title}" >> "${raw}"
  echo "bench.sh: ${command% }" >&2
  env "$@" 2>&1 | tee -a "${raw}" || failed+=("${section}")
}

run render "Rendering" go test -mod=vendor ./pkg/operator/render/ -run '^$' -bench 'BenchmarkRender(ConfigSize|Unchanged)' -benchmem
run reactions "Reactions" go test -mod=vendor ./test/bench/ -run '^$' -bench 'BenchmarkOperatorReactions$' -benchtime 1x -timeout 30m
run simulators "Simulators" SIMULATOR_BENCH_N="${SIMULATOR_BENCH_N}" go test -mod=vendor ./test/bench/ -run '^$' -bench 'BenchmarkSimulators$' -benchtime 1x -timeout 60m
run memory "Memory" GODEBUG=memprofilerate=16384 MEMORY_BENCH_SIMULATORS="${MEMORY_BENCH_SIMULATORS:-100,300,1000}" go test -mod=vendor ./test/bench/ -run '^$' -bench 'BenchmarkOperatorMemory$' -benchtime 1x -timeout 30m
run stack "The operator binary on the local stack" BENCH_NODES="${BENCH_NODES:-50 500}" BENCH_PODS="${BENCH_PODS:-3000 10000}" \
  BENCH_IDLE_SECONDS="${BENCH_IDLE_SECONDS:-600}" BENCH_WINDOW_SECONDS="${BENCH_WINDOW_SECONDS:-120}" \
  BENCH_SIMULATORS="${BENCH_SIMULATORS:-100 300 1000}" hack/bench-stack.sh
run hostile "Hostile inputs" hack/bench-hostile.sh
run trial "Trial before rollout" TRIAL_BENCH_SIZES="${TRIAL_BENCH_SIZES:-500/5000/200,2000/30000/500,5000/100000/1000}" \
  TRIAL_BENCH_SEEDING="${TRIAL_BENCH_SEEDING:-storage,api}" go test -mod=vendor ./test/bench/trialbench/ -run '^$' -bench 'BenchmarkTrial$' -benchtime 1x -timeout 90m
run trial-write "Writing a snapshot into a sandbox's etcd" TRIAL_BENCH_SIZES="${TRIAL_BENCH_SIZES:-500/5000/200,2000/30000/500,5000/100000/1000}" \
  go test -mod=vendor ./test/bench/trialbench/ -run '^$' -bench 'BenchmarkSandboxWrite$' -benchtime 1x -timeout 30m
run trial-alone "Trial before rollout, one arm at a time" TRIAL_BENCH_SIZES="${TRIAL_BENCH_SIZES:-500/5000/200,2000/30000/500,5000/100000/1000}" \
  TRIAL_BENCH_SEEDING=storage TRIAL_BENCH_ARMS_AT_ONCE=1 go test -mod=vendor ./test/bench/trialbench/ -run '^$' -bench 'BenchmarkTrial$' -benchtime 1x -timeout 90m

rc=0
machine="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), Linux $(uname -r), $(go env GOVERSION)"
go run -mod=vendor ./test/bench/benchreport -in "${raw}" -md docs/benchmarks.md -json docs/benchmarks.json \
  -commit "${BENCH_COMMIT:-$(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!docs/benchmarks.*' || echo ' (with uncommitted changes)')}" \
  -date "$(date -u +%Y-%m-%dT%H:%MZ)" -machine "${machine}" -load "${load}" -reference "${reference}" "${merge[@]}" || rc=$?
echo "bench.sh: wrote docs/benchmarks.md and docs/benchmarks.json from ${raw}" >&2
if ((${#failed[@]} > 0)); then
  echo "bench.sh: these sections failed (their output is in ${raw}): ${failed[*]}" >&2
  rc=1
fi
exit "${rc}"
