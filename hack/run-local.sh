#!/usr/bin/env bash
# The whole thing, locally, with no cluster and no Docker (make run-local):
# builds the operator and a real control plane from Go modules, starts etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler and 3 kwok nodes on
# 127.0.0.1, installs manifests/ (and the OpenShift config CRDs, so there is a
# ClusterOperator to look at), runs the operator as a host process with its own
# ServiceAccount's token, applies examples/bin-packing, runs the secondary
# scheduler (the real kube-scheduler binary, as the operand pod would: kwok
# runs no containers), schedules demo pods through it and shows the result.
# Then it runs a Simulator (examples/simulators/basic.yaml) with the real
# simulator binary, whose kube-apiserver you can use with kubectl.
#
#   hack/run-local.sh           # everything lives in _output/local; re-running starts afresh
#   hack/run-local.sh --gang    # examples/coscheduling on scheduler-plugins' scheduler, and a gang of 3 pods
#   hack/stop-local.sh          # stops it all
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "${root}"
# shellcheck source=hack/lib/local.sh
. "${root}/hack/lib/local.sh"

local_dir="${root}/_output/local"
example=bin-packing
demo_ns=demo
case "${1:-}" in
  "") ;;
  --gang) example=coscheduling ;;
  *) echo "usage: hack/run-local.sh [--gang]" >&2; exit 2 ;;
esac

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
log "==> 1/7 building the operator (make build)"
heartbeat "make build" make --no-print-directory build >/dev/null
log "==> 2/7 building the local control plane (the first time: about 20-25 minutes on 2 idle cores, longer on a busy machine; cached after)"
heartbeat "building the control plane" hack/controlplane/build.sh
log "    building the harness that runs the scheduler's pod (test/e2e/cmd/run-operand)"
GOFLAGS="-mod=vendor -buildvcs=false" heartbeat "go build run-operand" go build -o _output/bin/run-operand ./test/e2e/cmd/run-operand

log "==> 3/7 starting the control plane in ${local_dir}/cluster"
started=true
hack/controlplane/start.sh "${local_dir}/cluster" --nodes 3
# shellcheck disable=SC1091
. "${local_dir}/cluster/env"

log "==> 4/7 installing the operator and running it"
install_manifests true >/dev/null
# A long-lived token: this is a development cluster that may run for days.
operator_kubeconfig "${local_dir}/operator.kubeconfig" 720h
listen="127.0.0.1:$(free_port)"
echo "${listen}" > "${local_dir}/operator.listen"
start_operator "${local_dir}/operator.kubeconfig" "${listen}" "${local_dir}/operator.log" "${local_dir}/operator.pid"

log "==> 5/7 kubectl apply -f examples/${example}/ and running the secondary scheduler"
if [[ "${example}" == coscheduling ]]; then
  # The PodGroup and ElasticQuota CRDs, as scheduler-plugins ships them.
  kc apply -f "${CONTROLPLANE_BIN}/../crds/" >/dev/null
  kc wait --for=condition=Established --timeout=60s crd/podgroups.scheduling.x-k8s.io >/dev/null
fi
kc apply -f "examples/${example}/"
# The default SecondaryScheduler (Removed) was Available already: wait for the pod.
kc wait secondaryscheduler/cluster --for=jsonpath='{.status.readyReplicas}'=1 --timeout=120s >/dev/null
kc wait secondaryscheduler/cluster --for=condition=Available --timeout=120s >/dev/null
"${root}/_output/bin/run-operand" --kubeconfig="${KUBECONFIG}" \
  --kube-scheduler="${CONTROLPLANE_BIN}/kube-scheduler" --scheduler-plugins="${CONTROLPLANE_BIN}/scheduler-plugins" \
  --simulator="${CONTROLPLANE_BIN}/simulator" --simulator-config="${CONTROLPLANE_BIN}/../simulator/config.yaml" \
  --etcd="${CONTROLPLANE_BIN}/etcd" --kube-apiserver="${CONTROLPLANE_BIN}/kube-apiserver" --dir="${local_dir}/operand" \
  > "${local_dir}/run-operand.log" 2>&1 &
echo $! > "${local_dir}/run-operand.pid"
# One directory per pod: operand/<pod name>/kube-scheduler.log.
for _ in {1..300}; do
  grep -qsi "successfully acquired lease" "${local_dir}"/operand/*/kube-scheduler.log && break
  sleep 0.2
done
grep -qsi "successfully acquired lease" "${local_dir}"/operand/*/kube-scheduler.log || {
  echo "the secondary scheduler did not start; see ${local_dir}/run-operand.log and ${local_dir}/operand/*/kube-scheduler.log" >&2
  tail -n 20 "${local_dir}/run-operand.log" "${local_dir}"/operand/*/kube-scheduler.log >&2 || true
  exit 1
}

demo_pod() { # name [pod group]
  kc apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: ${demo_ns}
  labels: {${2:+scheduling.x-k8s.io/pod-group: $2}}
spec:
  schedulerName: secondary-scheduler
  containers:
  - name: app
    image: registry.k8s.io/pause:3.10
    resources:
      requests: {cpu: "4", memory: 1Gi}
EOF
}
kc create namespace "${demo_ns}" >/dev/null
if [[ "${example}" == coscheduling ]]; then
  log "==> 6/7 a gang: PodGroup gang (minMember 3), two pods, then the third"
  kc apply -f - >/dev/null <<EOF
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata:
  name: gang
  namespace: ${demo_ns}
spec:
  minMember: 3
EOF
  demo_pod demo-1 gang
  demo_pod demo-2 gang
  sleep 5
  echo; echo "\$ kubectl get pods -n ${demo_ns} -o wide   # two of three: the gang waits"
  kc get pods -n "${demo_ns}" -o wide
  demo_pod demo-3 gang
else
  log "==> 6/7 scheduling 3 demo pods (4 CPUs each) with schedulerName: secondary-scheduler"
  for i in 1 2 3; do
    demo_pod "demo-${i}"
  done
fi
kc wait -n "${demo_ns}" pod/demo-1 pod/demo-2 pod/demo-3 --for=condition=PodScheduled --timeout=60s >/dev/null

log "==> 7/7 a Simulator (examples/simulators/basic.yaml), run with the real simulator v0.1.1"
kc apply -f examples/simulators/basic.yaml >/dev/null
kc wait -n simulators simulator/sandbox --for=jsonpath='{.status.phase}'=Available --timeout=180s >/dev/null
sim_pod=$(kc get pods -n simulators -l simulation.kube-scheduler-simulator.x-k8s.io/simulator=sandbox -o jsonpath='{.items[0].metadata.name}')
sim_api=$(awk '$1 == "kube-apiserver" { print $2 }' "${local_dir}/operand/simulators/simulators_${sim_pod}/endpoints")
sim_server=$(awk '$1 == "simulator" { print $2 }' "${local_dir}/operand/simulators/simulators_${sim_pod}/endpoints")

# The new scheduler pod counts as available after its minReadySeconds.
kc wait secondaryscheduler/cluster --for=condition=Progressing=False --timeout=60s >/dev/null || true
kc wait secondaryscheduler/cluster --for=condition=Available --timeout=60s >/dev/null || true
show() { echo; echo "\$ kubectl $*"; kc "$@"; }
echo
echo "=============================================================================="
log "everything is up after $((SECONDS - total))s. What a user looks at:"
show get clusteroperator secondary-scheduler
show get secondaryscheduler cluster
show get pods -n "${demo_ns}" -o wide
show get events -n "${demo_ns}" --field-selector reason=Scheduled \
  -o custom-columns=POD:.involvedObject.name,SCHEDULED-BY:.reportingComponent,MESSAGE:.message
show get simulators -n simulators -o wide
echo
if [[ "${example}" == coscheduling ]]; then
  echo "The secondary scheduler (scheduler-plugins' Coscheduling) bound the gang only once its"
  echo "third pod existed: PodGroup gang asks for minMember 3."
else
  echo "The secondary scheduler packed every demo pod onto one node: examples/${example}"
  echo "configures NodeResourcesFit MostAllocated (the default scheduler spreads them)."
fi
cat <<EOF

Simulator simulators/sandbox runs the real simulator on this machine (kwok runs no
containers: run-operand plays kubelet, with the Pod's own environment, in a network
namespace of its own whose ports are forwarded from free loopback ports). Its own kube-apiserver is
${sim_api}, its scheduler-configuration API ${sim_server}:
  kubectl --server=${sim_api} get nodes
  curl -s ${sim_server}/api/v1/schedulerconfiguration

Try it yourself:
  export KUBECONFIG=${KUBECONFIG}
  export PATH=${CONTROLPLANE_BIN}:\$PATH
  kubectl describe secondaryscheduler cluster
  kubectl get events -n openshift-secondary-scheduler-operator
  kubectl patch secondaryscheduler cluster --type=merge -p '{"spec":{"logLevel":"Debug"}}'
  curl -sk --cert ${local_dir}/cluster/pki/admin.crt --key ${local_dir}/cluster/pki/admin.key https://${listen}/metrics | grep ^secondary_scheduler

Logs: ${local_dir}/operator.log (operator), ${local_dir}/operand/<pod>/kube-scheduler.log
(secondary scheduler, one per pod: a change of its Deployment or config rolls a new pod),
${local_dir}/operand/simulators/<namespace>_<pod>/ (simulator.log, etcd.log, endpoints),
${local_dir}/cluster/logs/ (control plane).
Stop everything: make stop-local
EOF
