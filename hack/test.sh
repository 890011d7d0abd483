#!/usr/bin/env bash
# make test: every test tier, one after the other, each by its own make
# target, and each build a tier needs as a step of its own just before it
# (integration only after unit passed; the first failure stops the run, as
# make would). It ends, also after a failure or an interrupt, with a table of
# the time each step took, wall and CPU: README, CI (.ci/run) and a developer
# see the same.
#
#   hack/test.sh           # what `make test` runs (make passes MAKE)
#   hack/test.sh --steps   # the steps, one a line: "NAME make-target"
#   hack/test.sh --table   # only the table of ${TEST_TIMINGS}, every step "not run"
#
# TEST_TIMINGS=FILE: steps timed before (.ci/run puts make verify there) head
# the table, and the steps here are added to FILE.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${root}"
# shellcheck source=hack/lib/timing.sh
. "${root}/hack/lib/timing.sh"

# NAME:TARGET, in the order they run.
steps=(
  prereqs:prereqs
  test-unit:test-unit
  test-bundle:test-bundle
  build-promtool:promtool
  test-rules:test-rules
  build-controlplane:controlplane
  test-configdiff:test-configdiff
  test-integration:test-integration
  build-operator:build
  test-e2e:test-e2e
  test-faults:test-faults
)
names=("${steps[@]%%:*}")
title="time per step"

owned=false
if [[ -z "${TEST_TIMINGS:-}" ]]; then
  TEST_TIMINGS=$(mktemp)
  owned=true
fi
export TEST_TIMINGS
cleanup() { if ${owned}; then rm -f "${TEST_TIMINGS}"; fi; }
trap cleanup EXIT
case "${1:-}" in
  "") ;;
  --steps) for s in "${steps[@]}"; do echo "${s%%:*} ${s#*:}"; done; exit 0 ;;
  --table) timing_table "${title}" "${names[@]}"; exit 0 ;;
  *) echo "usage: $0 [--steps | --table]" >&2; exit 2 ;;
esac

make=${MAKE:-make}
trap 'timing_table "${title}" "${names[@]}"; cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for s in "${steps[@]}"; do
  timed "${s%%:*}" "${make}" --no-print-directory "${s#*:}"
done
