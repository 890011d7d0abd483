#!/usr/bin/env bash
# The whole thing, locally, with no cluster and no Docker (make run-local):
# builds the operator and a real control plane from Go modules, starts etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler and 3 kwok nodes on
# 127.0.0.1, installs manifests/ (and the OpenShift config CRDs, so there is a
# ClusterOperator to look at), runs the operator as a host process with its own
# ServiceAccount's token, applies examples/bin-packing, runs the secondary
# scheduler (the real kube-scheduler binary, as the operand pod would: kwok
# runs no containers), schedules demo pods through it and shows the result.
#
#   hack/run-local.sh     # everything lives in _output/local; re-running starts afresh
#   hack/stop-local.sh    # stops it all
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${root}"
# shellcheck source=hack/lib/local.sh
. "${root}/hack/lib/local.sh"

local_dir="${root}/_output/local"
example=bin-packing
demo_ns=demo

# A previous run: stop it, start afresh.
if [[ -d "${local_dir}" ]]; then
  hack/stop-local.sh >/dev/null
fi
mkdir -p "${local_dir}"
started=false
on_exit() {
  local rc=$?
  if [[ ${rc} -ne 0 && ${started} == true ]]; then
    echo >&2
    echo "run-local.sh failed; stopping what it started (logs stay in ${local_dir})" >&2
    hack/stop-local.sh >/dev/null 2>&1
  fi
}
trap on_exit EXIT

total=${SECONDS}
log "==> 1/6 building the operator (make build)"
heartbeat "make build" make --no-print-directory build >/dev/null
log "==> 2/6 building the local control plane (the first time: about 10 minutes on 2 idle cores, longer on a busy machine; cached after)"
heartbeat "building the control plane" hack/controlplane/build.sh
log "    building the harness that runs the scheduler's pod (test/e2e/cmd/run-operand)"
GOFLAGS="-mod=vendor -buildvcs=false" heartbeat "go build run-operand" go build -o _output/bin/run-operand ./test/e2e/cmd/run-operand

log "==> 3/6 starting the control plane in ${local_dir}/cluster"
started=true
hack/controlplane/start.sh "${local_dir}/cluster" --nodes 3
# shellcheck disable=SC1091
. "${local_dir}/cluster/env"

log "==> 4/6 installing the operator and running it"
install_manifests true >/dev/null
# A long-lived token: this is a development cluster that may run for days.
operator_kubeconfig "${local_dir}/operator.kubeconfig" 720h
listen="127.0.0.1:$(free_port)"
echo "${listen}" > "${local_dir}/operator.listen"
start_operator "${local_dir}/operator.kubeconfig" "${listen}" "${local_dir}/operator.log" "${local_dir}/operator.pid"

log "==> 5/6 kubectl apply -f examples/${example}/ and running the secondary scheduler"
kc apply -f "examples/${example}/"
# The default SecondaryScheduler (Removed) was Available already: wait for the pod.
kc wait secondaryscheduler/cluster --for=jsonpath='{.status.readyReplicas}'=1 --timeout=120s >/dev/null
kc wait secondaryscheduler/cluster --for=condition=Available --timeout=120s >/dev/null
"${root}/_output/bin/run-operand" --kubeconfig="${KUBECONFIG}" \
  --kube-scheduler="${CONTROLPLANE_BIN}/kube-scheduler" --dir="${local_dir}/operand" \
  > "${local_dir}/run-operand.log" 2>&1 &
echo $! > "${local_dir}/run-operand.pid"
# One directory per pod: operand/<pod name>/kube-scheduler.log.
for _ in {1..300}; do
  grep -qs "Successfully acquired lease" "${local_dir}"/operand/*/kube-scheduler.log && break
  sleep 0.2
done
grep -qs "Successfully acquired lease" "${local_dir}"/operand/*/kube-scheduler.log || {
  echo "the secondary scheduler did not start; see ${local_dir}/run-operand.log and ${local_dir}/operand/*/kube-scheduler.log" >&2
  tail -n 20 "${local_dir}/run-operand.log" "${local_dir}"/operand/*/kube-scheduler.log >&2 || true
  exit 1
}

log "==> 6/6 scheduling 3 demo pods (4 CPUs each) with schedulerName: secondary-scheduler"
kc create namespace "${demo_ns}" >/dev/null
for i in 1 2 3; do
  kc apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: demo-${i}
  namespace: ${demo_ns}
spec:
  schedulerName: secondary-scheduler
  containers:
  - name: app
    image: registry.k8s.io/pause:3.10
    resources:
      requests: {cpu: "4", memory: 1Gi}
EOF
done
kc wait -n "${demo_ns}" pod/demo-1 pod/demo-2 pod/demo-3 --for=condition=PodScheduled --timeout=60s >/dev/null

show() { echo; echo "\$ kubectl $*"; kc "$@"; }
echo
echo "=============================================================================="
log "everything is up after $((SECONDS - total))s. What a user looks at:"
show get clusteroperator secondary-scheduler
show get secondaryscheduler cluster
show get pods -n "${demo_ns}" -o wide
show get events -n "${demo_ns}" --field-selector reason=Scheduled \
  -o custom-columns=POD:.involvedObject.name,SCHEDULED-BY:.reportingComponent,MESSAGE:.message
cat <<EOF

The secondary scheduler packed every demo pod onto one node: examples/${example}
configures NodeResourcesFit MostAllocated (the default scheduler spreads them).

Try it yourself:
  export KUBECONFIG=${KUBECONFIG}
  export PATH=${CONTROLPLANE_BIN}:\$PATH
  kubectl describe secondaryscheduler cluster
  kubectl get events -n openshift-secondary-scheduler-operator
  kubectl patch secondaryscheduler cluster --type=merge -p '{"spec":{"logLevel":"Debug"}}'
  curl -sk --cert ${local_dir}/cluster/pki/admin.crt --key ${local_dir}/cluster/pki/admin.key https://${listen}/metrics | grep ^secondary_scheduler

Logs: ${local_dir}/operator.log (operator), ${local_dir}/operand/<pod>/kube-scheduler.log
(secondary scheduler, one per pod: a change of its Deployment or config rolls a new pod),
${local_dir}/cluster/logs/ (control plane).
Stop everything: make stop-local
EOF
