#!/usr/bin/env bash
# Stops the control plane that start.sh recorded in DIR/pids, clients first
# (kwok, kube-scheduler, kube-controller-manager), then kube-apiserver, then
# etcd, so nothing logs errors about a vanished server. Leaves DIR (logs) in place.
#
#   hack/controlplane/stop.sh DIR
#
# No errexit: one failed kill must not skip stopping the rest.
set +e -u

[[ $# -eq 1 ]] || { echo "usage: $0 DIR" >&2; exit 2; }
pids="$1/pids"
[[ -f "${pids}" ]] || { echo "stop.sh: no ${pids}; nothing to stop"; exit 0; }

# A zombie counts as gone: it is dead, merely not yet reaped by its parent.
alive() { [[ "$(ps -o stat= -p "$1" 2>/dev/null)" =~ ^[[:space:]]*[^Z[:space:]] ]]; }
# Guard against a recycled PID: the command name must still match (the
# kernel truncates it to 15 characters).
ours() { [[ "$(ps -o comm= -p "$1" 2>/dev/null)" == "${2:0:15}" ]]; }

survivors=0
stop_group() { # names...: TERM them together, wait up to 10s, then KILL
  local name n pid victims=() deadline
  for name in "$@"; do
    while read -r n pid; do
      if [[ "${n}" == "${name}" ]] && alive "${pid}" && ours "${pid}" "${name}"; then
        kill -TERM "${pid}" 2>/dev/null && victims+=("${pid}")
      fi
    done < "${pids}"
  done
  [[ ${#victims[@]} -gt 0 ]] || return 0
  deadline=$((SECONDS + 10))
  for pid in "${victims[@]}"; do
    while alive "${pid}" && [[ ${SECONDS} -lt ${deadline} ]]; do sleep 0.1; done
    if alive "${pid}"; then
      echo "stop.sh: ${pid} still up 10s after SIGTERM; sending SIGKILL" >&2
      kill -KILL "${pid}" 2>/dev/null
      for _ in {1..50}; do alive "${pid}" || break; sleep 0.1; done
      alive "${pid}" && { echo "stop.sh: ${pid} still running" >&2; survivors=$((survivors + 1)); }
    fi
  done
}

stop_group kwok kube-scheduler kube-controller-manager
stop_group kube-apiserver
stop_group etcd

if [[ ${survivors} -gt 0 ]]; then
  exit 1
fi
mv -f "${pids}" "${pids}.stopped"
echo "stop.sh: stopped control plane in $1"
