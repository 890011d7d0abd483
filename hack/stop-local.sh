#!/usr/bin/env bash
# Stops what hack/run-local.sh started (make stop-local), by the PIDs it
# recorded in _output/local: the secondary scheduler's harness and its
# kube-scheduler, the operator, then the control plane. Logs stay.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=hack/lib/local.sh
. "${root}/hack/lib/local.sh"
local_dir="${root}/_output/local"

if [[ ! -d "${local_dir}" ]]; then
  echo "stop-local.sh: nothing runs (no ${local_dir})"
  exit 0
fi
stop_pidfile "${local_dir}/run-operand.pid" run-operand
# One kube-scheduler per operand pod; run-operand stops them, this is in case it died.
for f in "${local_dir}"/operand/*/kube-scheduler.pid; do
  [[ -e "${f}" ]] && stop_pidfile "${f}" kube-scheduler
done
stop_pidfile "${local_dir}/operator.pid" secondary-scheduler-operator
if [[ -f "${local_dir}/cluster/pids" ]]; then
  "${root}/hack/controlplane/stop.sh" "${local_dir}/cluster"
fi
echo "stop-local.sh: stopped; logs remain in ${local_dir}"
