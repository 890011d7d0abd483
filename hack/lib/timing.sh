# shellcheck shell=bash
# The time each step of a run took, for hack/test.sh (make test) and .ci/run
# (source it). Steps are lines "NAME SECONDS CPU RESULT" in the file
# ${TEST_TIMINGS}, CPU the step's user + system time in hundredths of a
# second; a step still running is "NAME @START - running", START in seconds
# since the epoch.

# children_cpu: sets children_cpu_now to the user + system time, in
# hundredths of a second, of every child this shell has waited for and of
# their own children waited for in turn (cutime + cstime of /proc/PID/stat). A
# daemon a step leaves running or that its parent never reaps is not counted.
# It sets a variable rather than printing: in $(...), BASHPID is the subshell's.
children_cpu() {
  local stat f
  stat=$(< "/proc/${BASHPID}/stat")
  # The command name may hold spaces; the fields after "pid (comm) " do not:
  # field 16 (cutime) is then index 13 and 17 (cstime) 14.
  read -r -a f <<< "${stat##*) }"
  children_cpu_now=$(((f[13] + f[14]) * 100 / timing_clk_tck))
}
timing_clk_tck=$(getconf CLK_TCK)

# timed NAME CMD...: runs CMD and records how long it took, its CPU time and
# whether it passed; returns CMD's status.
timed() {
  local name=$1 start=${SECONDS} cpu rc=0
  shift
  children_cpu
  cpu=${children_cpu_now}
  echo "${name} @$(date +%s) - running" >>"${TEST_TIMINGS}"
  "$@" || rc=$?
  children_cpu
  cpu=$((children_cpu_now - cpu))
  # The "running" line becomes the result (a step killed midway keeps it).
  sed -i "/^${name} @[0-9]* - running\$/d" "${TEST_TIMINGS}"
  echo "${name} $((SECONDS - start)) ${cpu} $([[ ${rc} -eq 0 ]] && echo ok || echo "FAILED(${rc})")" >>"${TEST_TIMINGS}"
  return "${rc}"
}

# duration SECONDS: "12m05s".
duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# timing_table TITLE [PLANNED...]: the steps of ${TEST_TIMINGS}, each with its
# wall time, its CPU time and how many cores that kept busy on average, then
# each PLANNED step not among them as "not run", then the totals.
timing_table() {
  local title=$1 name secs cpu result total=0 total_cpu=0 timed_wall=0
  shift
  declare -A seen=()
  echo
  echo "${title}"
  printf '  %-20s %9s %9s %6s  %s\n' step wall cpu cores result
  while read -r name secs cpu result; do
    [[ -n "${name}" ]] || continue
    seen[${name}]=1
    if [[ "${secs}" == @* ]]; then
      secs=$(($(date +%s) - ${secs#@}))
      result="interrupted while ${result}"
      printf '  %-20s %9s %9s %6s  %s\n' "${name}" "$(duration "${secs}")" - - "${result}"
    else
      printf '  %-20s %9s %9s %6s  %s\n' "${name}" "$(duration "${secs}")" "$(duration $((cpu / 100)))" "$(cores "${cpu}" "${secs}")" "${result}"
      total_cpu=$((total_cpu + cpu))
      timed_wall=$((timed_wall + secs))
    fi
    total=$((total + secs))
  done <"${TEST_TIMINGS}"
  for name in "$@"; do
    [[ -n "${seen[${name}]:-}" ]] || printf '  %-20s %9s %9s %6s  %s\n' "${name}" - - - "not run"
  done
  printf '  %-20s %9s %9s %6s\n' total "$(duration "${total}")" "$(duration $((total_cpu / 100)))" "$(cores "${total_cpu}" "${timed_wall}")"
}

# cores CPU SECONDS: CPU hundredths of a second over SECONDS of wall, "1.45".
cores() {
  (($2 > 0)) || { echo -; return; }
  printf '%d.%02d' $(($1 / $2 / 100)) $(($1 / $2 % 100))
}
