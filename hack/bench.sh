#!/usr/bin/env bash
# make bench: every figure of docs/benchmarks.md, measured again, then the
# report written (docs/benchmarks.md and docs/benchmarks.json) by
# test/bench/benchreport. Takes about an hour with the defaults; the raw output
# stays in _output/bench/raw.txt.
#
#   hack/bench.sh [SECTION...]
#
# With SECTIONs (render, reactions, simulators, memory, stack, hostile, trial), only
# those are measured; the report keeps the other sections of
# docs/benchmarks.json, each marked with the run it comes from.
#
# Sizes: SIMULATOR_BENCH_N (default "100,300,1000,2000"),
# MEMORY_BENCH_SIMULATORS (default "100,300,1000"), and those of
# hack/bench-stack.sh (BENCH_NODES, BENCH_PODS, BENCH_IDLE_SECONDS,
# BENCH_WINDOW_SECONDS, BENCH_SIMULATORS) and hack/bench-hostile.sh
# (HOSTILE_SIMULATORS, HOSTILE_ANNOTATION_KIB, HOSTILE_FOREIGN,
# HOSTILE_PENDING_PODS). BENCH_COMMIT names the commit measured, for a tree
# exported from git (git archive) rather than a clone.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${root}"
out="${root}/_output/bench"
mkdir -p "${out}"
raw="${out}/raw.txt"
: > "${raw}"
export KUBEBUILDER_ASSETS="${root}/_output/controlplane/bin"
# The stack and hostile sections run _output/bin: built from this tree, so
# that the commit the report names is the one measured.
make build >&2
export SIMULATOR_BENCH_N="${SIMULATOR_BENCH_N:-100,300,1000,2000}"

sections=("$@")
merge=()
if ((${#sections[@]} > 0)); then
  merge=(-merge docs/benchmarks.json)
fi

# run SECTION TITLE COMMAND...: unless SECTIONs were named and SECTION is not
# one of them, runs COMMAND, echoing its output, and files it under its
# command and TITLE.
run() {
  local section=$1 title=$2 command
  shift 2
  if ((${#sections[@]} > 0)) && [[ " ${sections[*]} " != *" ${section} "* ]]; then
    return 0
  fi
  command=$(printf '%q ' "$@")
  printf '# command: %s\n# title: %s\n' "${command% }" "${title}" >> "${raw}"
  echo "bench.sh: ${command% }" >&2
  env "$@" 2>&1 | tee -a "${raw}"
}

run render "Rendering" go test -mod=vendor ./pkg/operator/render/ -run '^$' -bench 'BenchmarkRender(ConfigSize|Unchanged)' -benchmem
run reactions "Reactions" go test -mod=vendor ./test/bench/ -run '^$' -bench 'BenchmarkOperatorReactions$' -benchtime 1x -timeout 30m
run simulators "Simulators" SIMULATOR_BENCH_N="${SIMULATOR_BENCH_N}" go test -mod=vendor ./test/bench/ -run '^$' -bench 'BenchmarkSimulators$' -benchtime 1x -timeout 60m
run memory "Memory" GODEBUG=memprofilerate=16384 MEMORY_BENCH_SIMULATORS="${MEMORY_BENCH_SIMULATORS:-100,300,1000}" go test -mod=vendor ./test/bench/ -run '^$' -bench 'BenchmarkOperatorMemory$' -benchtime 1x -timeout 30m
run stack "The operator binary on the local stack" BENCH_NODES="${BENCH_NODES:-50 500}" BENCH_PODS="${BENCH_PODS:-3000 10000}" \
  BENCH_IDLE_SECONDS="${BENCH_IDLE_SECONDS:-600}" BENCH_WINDOW_SECONDS="${BENCH_WINDOW_SECONDS:-120}" \
  BENCH_SIMULATORS="${BENCH_SIMULATORS:-100 300 1000}" hack/bench-stack.sh
run hostile "Hostile inputs" hack/bench-hostile.sh
run trial "Trial before rollout" go test -mod=vendor ./test/bench/trialbench/ -run '^$' -bench 'BenchmarkTrial$' -benchtime 1x -timeout 20m

machine="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), Linux $(uname -r), $(go env GOVERSION)"
go run -mod=vendor ./test/bench/benchreport -in "${raw}" -md docs/benchmarks.md -json docs/benchmarks.json \
  -commit "${BENCH_COMMIT:-$(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!docs/benchmarks.*' || echo ' (with uncommitted changes)')}" \
  -date "$(date -u +%Y-%m-%dT%H:%MZ)" -machine "${machine}" "${merge[@]}"
echo "bench.sh: wrote docs/benchmarks.md and docs/benchmarks.json from ${raw}" >&2
