# shellcheck shell=bash
# The time each step of a run took, for hack/test.sh (make test) and .ci/run
# (source it). Steps are lines "NAME SECONDS RESULT" in the file ${TEST_TIMINGS};
# a step still running is "NAME @START running", START in seconds since the epoch.

# timed NAME CMD...: runs CMD and records how long it took and whether it passed;
# returns CMD's status.
timed() {
  local name=$1 start=${SECONDS} rc=0
  shift
  echo "${name} @$(date +%s) running" >>"${TEST_TIMINGS}"
  "$@" || rc=$?
  # The "running" line becomes the result (a step killed midway keeps it).
  sed -i "/^${name} @[0-9]* running\$/d" "${TEST_TIMINGS}"
  echo "${name} $((SECONDS - start)) $([[ ${rc} -eq 0 ]] && echo ok || echo "FAILED(${rc})")" >>"${TEST_TIMINGS}"
  return "${rc}"
}

# duration SECONDS: "12m05s".
duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# timing_table TITLE [PLANNED...]: the steps of ${TEST_TIMINGS}, then each
# PLANNED step not among them as "not run", then the total.
timing_table() {
  local title=$1 name secs result total=0
  shift
  declare -A seen=()
  echo
  echo "${title}"
  printf '  %-20s %9s  %s\n' step time result
  while read -r name secs result; do
    [[ -n "${name}" ]] || continue
    seen[${name}]=1
    if [[ "${secs}" == @* ]]; then
      secs=$(($(date +%s) - ${secs#@}))
      result="interrupted while ${result}"
    fi
    printf '  %-20s %9s  %s\n' "${name}" "$(duration "${secs}")" "${result}"
    total=$((total + secs))
  done <"${TEST_TIMINGS}"
  for name in "$@"; do
    [[ -n "${seen[${name}]:-}" ]] || printf '  %-20s %9s  %s\n' "${name}" - "not run"
  done
  printf '  %-20s %9s\n' total "$(duration "${total}")"
}
