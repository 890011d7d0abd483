#!/usr/bin/env bash
# The e2e tier (make test-e2e): a full local control plane (etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler, kwok nodes), `kubectl apply -f
# manifests/`, the operator as a host process with its own ServiceAccount's
# token, then `go test ./test/e2e/...` against it. The tests play kubelet for the
# secondary scheduler (the real kube-scheduler or scheduler-plugins binary, as
# its pod would run), for Simulator Pods (the real simulator and etcd) and for
# trial Pods (the real etcd, kube-apiserver and scheduler), each such Pod in a
# network namespace of its own: run as root.
#
#   hack/test-e2e.sh [--faults] [--no-openshift-crds] [go test flags...]
#
# --faults: the fault suite (make test-faults): only the tests named TestFault*,
# which kill the operator and edit what it owns by hand; the plain run skips
# them. FAULTS_REPEAT (default 3) is how many times each kill is repeated.
# --no-openshift-crds: plain Kubernetes (no ClusterOperator, APIServer,
# Infrastructure, Scheduler CRDs); the ClusterOperator checks are skipped.
# E2E_KEEP=true keeps the work directory (logs) after a successful run; it is
# always kept after a failure. Everything started here is stopped on exit.
# Needs the binaries of `make build` and hack/controlplane/build.sh (make
# test-e2e builds both).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${root}"
# shellcheck source=hack/lib/local.sh
. "${root}/hack/lib/local.sh"

openshift=true
suite=(-skip '^TestFault')
if [[ "${1:-}" == --faults ]]; then
  suite=(-run '^TestFault')
  shift
fi
if [[ "${1:-}" == --no-openshift-crds ]]; then
  openshift=false
  shift
fi
for b in _output/bin/secondary-scheduler-operator _output/controlplane/bin/kube-scheduler; do
  [[ -x "${b}" ]] || { echo "test-e2e.sh: ${b} missing; run make test-e2e (it builds everything)" >&2; exit 1; }
done

dir=$(mktemp -d "${TMPDIR:-/tmp}/secondary-scheduler-e2e.XXXXXX")
result=1
cleanup() {
  set +e
  stop_pidfile "${dir}/operator.pid" secondary-scheduler-operator
  # The tests stop the kube-schedulers they start; a killed test binary takes
  # them along (parent-death signal). Belt and braces:
  for f in "${dir}"/operand*/*/kube-scheduler.pid; do
    [[ -e "${f}" ]] && stop_pidfile "${f}" kube-scheduler
  done
  hack/controlplane/stop.sh "${dir}/cluster" >/dev/null
  if [[ ${result} -eq 0 && "${E2E_KEEP:-false}" != true ]]; then
    rm -rf "${dir}"
  else
    echo "test-e2e.sh: logs kept in ${dir} (operator.log, cluster/logs/, operand*/<pod>/kube-scheduler.log, simulators*/<namespace>_<pod>/, trials/runner.log and trials/<pod>_<uid>/)"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=${SECONDS}
log "starting the control plane in ${dir}/cluster"
hack/controlplane/start.sh "${dir}/cluster" --nodes 3
# shellcheck disable=SC1091
. "${dir}/cluster/env"

install_manifests "${openshift}"
operator_kubeconfig "${dir}/operator.kubeconfig"
listen="127.0.0.1:$(free_port)"
export OPERATOR_IMAGE_VERSION=0.0.1-e2e
# Unserved pods are reported after 5 s instead of 2 min, so that the test of it is short.
# A short lease: a replacement of a killed operator takes over within 17s
# instead of library-go's 163s (the fault suite kills it again and again).
operator_args=(--unserved-pod-grace=5s --leader-elect-lease-duration=15s --leader-elect-renew-deadline=10s --leader-elect-retry-period=2s)
start_operator "${dir}/operator.kubeconfig" "${listen}" "${dir}/operator.log" "${dir}/operator.pid" "${operator_args[@]}"
if [[ "${openshift}" == true ]]; then
  # What an install needs: with only the default SecondaryScheduler (Removed),
  # the ClusterOperator reports Available and the operator's version.
  wait_cluster_operator_reports "${OPERATOR_IMAGE_VERSION}"
  log "ClusterOperator secondary-scheduler: Available, version ${OPERATOR_IMAGE_VERSION}, with the default SecondaryScheduler (Removed)"
fi
log "stack and operator up after $((SECONDS - start))s; running go test ./test/e2e/..."

export E2E_KUBECONFIG="${KUBECONFIG}"
export E2E_CONTROLPLANE_BIN="${CONTROLPLANE_BIN}"
export E2E_ADMIN_CERT="${dir}/cluster/pki/admin.crt"
export E2E_ADMIN_KEY="${dir}/cluster/pki/admin.key"
export E2E_OPERATOR_ADDRESS="${listen}"
export E2E_OPERATOR_VERSION="${OPERATOR_IMAGE_VERSION}"
export E2E_OPENSHIFT="${openshift}"
export E2E_DIR="${dir}"
export E2E_CONTROLPLANE_DIR="${CONTROLPLANE_DIR}"
export E2E_AUDIT_LOG="${CONTROLPLANE_AUDIT_LOG}"
# The fault tests start the operator again as this script did.
export E2E_OPERATOR_BIN="${root}/_output/bin/secondary-scheduler-operator"
export E2E_OPERATOR_KUBECONFIG="${dir}/operator.kubeconfig"
export E2E_OPERATOR_LOG="${dir}/operator.log"
export E2E_OPERATOR_PIDFILE="${dir}/operator.pid"
export E2E_OPERATOR_ARGS="${operator_args[*]}"
set +e
go test ./test/e2e/... -count=1 -timeout=40m -v "${suite[@]}" "$@"
rc=$?
set -e
pid=$(< "${dir}/operator.pid")
if ! alive "${pid}"; then
  echo "test-e2e.sh: the operator exited during the tests; last lines of its log:" >&2
  tail -n 30 "${dir}/operator.log" >&2
  rc=1
fi
if grep -q '^panic\|goroutine [0-9]* \[running\]' "${dir}/operator.log"; then
  echo "test-e2e.sh: the operator log shows a panic:" >&2
  grep -n -A5 '^panic\|\[running\]' "${dir}/operator.log" | head -40 >&2
  rc=1
fi
log "e2e finished in $((SECONDS - start))s (rc ${rc})"
result=${rc}
exit "${rc}"
