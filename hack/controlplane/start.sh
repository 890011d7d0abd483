#!/usr/bin/env bash
# Starts a real control plane on 127.0.0.1 from the binaries of build.sh:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok with
# N fake nodes (pods on them go Running without a kubelet).
#
#   hack/controlplane/start.sh DIR [--nodes N] [--no-scheduler]
#
# DIR receives the PKI, kubeconfig (admin), env (source it), pids and logs/.
# Returns once /readyz is ok and the N nodes are Ready; on any failure it
# prints the tail of the failing component's log and stops what it started.
# Stop with hack/controlplane/stop.sh DIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "${here}/../.." && pwd)
bin="${CONTROLPLANE_BIN:-${root}/_output/controlplane/bin}"
stages="${CONTROLPLANE_STAGES:-${root}/_output/controlplane/kwok-stages.yaml}"
timeout="${CONTROLPLANE_START_TIMEOUT:-60}" # seconds, per wait below

usage() { echo "usage: $0 DIR [--nodes N] [--no-scheduler]" >&2; exit 2; }
[[ $# -ge 1 && "$1" != -* ]] || usage
dir=$1
shift
nodes=3
scheduler=true
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; nodes=$2; shift 2 ;;
    --no-scheduler) scheduler=false; shift ;;
    *) usage ;;
  esac
done

for b in etcd kube-apiserver kube-controller-manager kube-scheduler kwok kubectl; do
  [[ -x "${bin}/${b}" ]] || { echo "start.sh: ${bin}/${b} missing; run hack/controlplane/build.sh" >&2; exit 1; }
done
[[ -f "${stages}" ]] || { echo "start.sh: ${stages} missing; run hack/controlplane/build.sh" >&2; exit 1; }
for t in openssl curl; do
  command -v "${t}" >/dev/null || { echo "start.sh: ${t} is required" >&2; exit 1; }
done

mkdir -p "${dir}"
dir=$(cd "${dir}" && pwd)
pids="${dir}/pids"
# A zombie counts as gone: it is dead, merely not yet reaped.
alive() { [[ "$(ps -o stat= -p "$1" 2>/dev/null)" =~ ^[[:space:]]*[^Z[:space:]] ]]; }
if [[ -s "${pids}" ]]; then
  while read -r _ pid; do
    if alive "${pid}"; then
      echo "start.sh: a control plane is already running in ${dir}; run stop.sh ${dir}" >&2
      exit 1
    fi
  done < "${pids}"
fi
# Every start is a fresh cluster: no etcd data or certs from an earlier run.
rm -rf "${dir}/pki" "${dir}/etcd" "${dir}/logs" "${pids}" "${dir}/env" "${dir}/kubeconfig" "${dir}/audit-policy.yaml"
mkdir -p "${dir}/pki" "${dir}/logs"
pki="${dir}/pki"
t0=${EPOCHREALTIME}
elapsed() { awk -v a="${t0}" -v b="${EPOCHREALTIME}" 'BEGIN { printf "%.1fs", b - a }'; }

started=false
on_exit() {
  local rc=$?
  if ! ${started}; then
    echo "start.sh: startup failed (exit ${rc}); stopping what was started" >&2
    "${here}/stop.sh" "${dir}" >&2 || true
  fi
  exit "${rc}"
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# Ports below the ephemeral range (32768+): a port from that range once
# collided with an outgoing connection. Something answering means it is taken.
pick_ports() { # count
  local p got=()
  while [[ ${#got[@]} -lt $1 ]]; do
    p=$((10000 + RANDOM % 22768))
    [[ " ${got[*]} " == *" ${p} "* ]] && continue
    (exec 3<>"/dev/tcp/127.0.0.1/${p}") 2>/dev/null && continue
    got+=("${p}")
  done
  echo "${got[*]}"
}
read -r etcd_port etcd_peer_port api_port kcm_port sched_port kwok_port <<< "$(pick_ports 6)"
api="https://127.0.0.1:${api_port}"

# --- PKI -------------------------------------------------------------------
# The apiserver makes its own serving cert; we need the client CA, the admin
# identity, the service-account key pair and the front-proxy (requestheader)
# CA that delegated authentication in library-go operators insists on.
# EC keys for certs: generating them is instant, RSA takes seconds on a busy box.
ssl() { openssl "$@" 2>>"${pki}/openssl.log"; }
ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1)
new_ca() { # name CN
  ssl req -x509 "${ec[@]}" -nodes -days 3650 -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
    -keyout "${pki}/$1.key" -out "${pki}/$1.crt"
}
new_client() { # name subject ca
  ssl req -new "${ec[@]}" -nodes -subj "$2" -keyout "${pki}/$1.key" -out "${pki}/$1.csr"
  ssl x509 -req -in "${pki}/$1.csr" -CA "${pki}/$3.crt" -CAkey "${pki}/$3.key" -CAcreateserial \
    -days 3650 -extfile <(printf 'keyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n') \
    -out "${pki}/$1.crt"
}
new_ca ca controlplane-client-ca
new_client admin "/O=system:masters/CN=admin" ca
new_ca front-proxy-ca controlplane-front-proxy-ca
new_client front-proxy-client "/CN=front-proxy-client" front-proxy-ca
ssl genrsa -out "${pki}/sa.key" 2048
ssl rsa -in "${pki}/sa.key" -pubout -out "${pki}/sa.pub"

# --- processes ---------------------------------------------------------------
# setsid: the components outlive this script and must not get the caller's
# terminal signals; only stop.sh ends them.
detach=()
command -v setsid >/dev/null && detach=(setsid)
launch() { # name args...
  local name=$1
  shift
  "${detach[@]}" "${bin}/${name}" "$@" </dev/null >"${dir}/logs/${name}.log" 2>&1 &
  echo "${name} $!" >> "${pids}"
  disown # stop.sh may kill it while we still run; no "Killed" job notice
}

fail() { # component message
  echo "start.sh: $2" >&2
  if [[ -f "${dir}/logs/$1.log" ]]; then
    echo "--- last lines of ${dir}/logs/$1.log ---" >&2
    tail -n 40 "${dir}/logs/$1.log" >&2
  fi
  exit 1
}

# wait_for component description command...: polls until the command succeeds;
# fails early if any started process died, else after ${timeout}s.
wait_for() {
  local comp=$1 what=$2 deadline=$((SECONDS + timeout)) name pid
  shift 2
  until "$@" >/dev/null 2>&1; do
    while read -r name pid; do
      alive "${pid}" || fail "${name}" "${name} exited while waiting for ${what}"
    done < "${pids}"
    [[ ${SECONDS} -lt ${deadline} ]] || fail "${comp}" "timed out after ${timeout}s waiting for ${what}"
    sleep 0.2
  done
}

launch etcd --name=default --data-dir="${dir}/etcd" \
  --listen-client-urls="http://127.0.0.1:${etcd_port}" --advertise-client-urls="http://127.0.0.1:${etcd_port}" \
  --listen-peer-urls="http://127.0.0.1:${etcd_peer_port}" \
  --initial-advertise-peer-urls="http://127.0.0.1:${etcd_peer_port}" \
  --initial-cluster="default=http://127.0.0.1:${etcd_peer_port}" \
  --unsafe-no-fsync=true # a throw-away test cluster: speed over durability

# The audit log records every request of the operator's ServiceAccounts and of
# the scheduler's (and nothing else, to stay cheap): tests count what the API
# server received from the operator, by verb and by token (user.extra
# credential-id), instead of trusting the operator's own client metrics, and
# every request the scheduler's identity was refused.
cat > "${dir}/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  userGroups: ["system:serviceaccounts:openshift-secondary-scheduler-operator"]
# The scheduler's own identity: the e2e tier counts its forbidden requests.
- level: Metadata
  userGroups: ["system:serviceaccounts:openshift-secondary-scheduler"]
- level: None
EOF

# --endpoint-reconciler-type=none + --advertise-address: without them the
# apiserver refuses to start on loopback. It writes its serving cert, with its
# CA as the 2nd PEM block, to --cert-dir (SANs include 127.0.0.1).
launch kube-apiserver --bind-address=127.0.0.1 --secure-port="${api_port}" \
  --advertise-address=127.0.0.1 --endpoint-reconciler-type=none \
  --etcd-servers="http://127.0.0.1:${etcd_port}" --cert-dir="${pki}/apiserver" \
  --client-ca-file="${pki}/ca.crt" --authorization-mode=RBAC --allow-privileged=true \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="${pki}/sa.pub" --service-account-signing-key-file="${pki}/sa.key" \
  --service-cluster-ip-range=10.96.0.0/16 \
  --requestheader-client-ca-file="${pki}/front-proxy-ca.crt" \
  --requestheader-allowed-names=front-proxy-client \
  --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
  --requestheader-extra-headers-prefix=X-Remote-Extra- \
  --proxy-client-cert-file="${pki}/front-proxy-client.crt" --proxy-client-key-file="${pki}/front-proxy-client.key" \
  --audit-policy-file="${dir}/audit-policy.yaml" --audit-log-path="${dir}/logs/audit.log"

wait_for kube-apiserver "its serving certificate" test -s "${pki}/apiserver/apiserver.crt"
# KCM's --root-ca-file (published in kube-root-ca.crt) must be the CA alone.
awk '/-BEGIN CERTIFICATE-/ { n++ } n == 2' "${pki}/apiserver/apiserver.crt" > "${pki}/apiserver-ca.crt"
[[ -s "${pki}/apiserver-ca.crt" ]] || fail kube-apiserver "no CA block in ${pki}/apiserver/apiserver.crt"

b64() { base64 < "$1" | tr -d '\n'; }
cat > "${dir}/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: controlplane
  cluster:
    server: ${api}
    certificate-authority-data: $(b64 "${pki}/apiserver-ca.crt")
users:
- name: admin
  user:
    client-certificate-data: $(b64 "${pki}/admin.crt")
    client-key-data: $(b64 "${pki}/admin.key")
contexts:
- name: controlplane
  context:
    cluster: controlplane
    user: admin
current-context: controlplane
EOF
chmod 600 "${dir}/kubeconfig"
export KUBECONFIG="${dir}/kubeconfig"
kubectl() { "${bin}/kubectl" "$@"; }

# The admin cert, not anonymous: /readyz is denied until RBAC is bootstrapped.
wait_for kube-apiserver "${api}/readyz" curl -sf --max-time 2 --cacert "${pki}/apiserver-ca.crt" \
  --cert "${pki}/admin.crt" --key "${pki}/admin.key" "${api}/readyz"
echo "start.sh: kube-apiserver ready at ${api} after $(elapsed)"

# No --authentication/authorization-kubeconfig: /healthz is always allowed and
# delegated auth on the KCM's own port is not needed here.
launch kube-controller-manager --kubeconfig="${KUBECONFIG}" \
  --bind-address=127.0.0.1 --secure-port="${kcm_port}" --leader-elect=false \
  --root-ca-file="${pki}/apiserver-ca.crt" --use-service-account-credentials=false \
  --service-account-private-key-file="${pki}/sa.key" --service-cluster-ip-range=10.96.0.0/16 \
  --cluster-signing-cert-file="${pki}/ca.crt" --cluster-signing-key-file="${pki}/ca.key"
if ${scheduler}; then
  launch kube-scheduler --kubeconfig="${KUBECONFIG}" \
    --bind-address=127.0.0.1 --secure-port="${sched_port}" --leader-elect=false
fi
# Only annotated nodes are kwok's; the stages make them Ready and pods Running.
# Do not add a KwokConfiguration document to the stages file: one with empty
# options dies with "node leases parallelism must be greater than 0".
# Without a config document kwok keeps no node leases (duration 0), and the
# "with-lease" heartbeat stage refreshes status only every 10+ min, so the KCM
# flips every node NotReady (+ unreachable taints) ~50 s after start. Hence
# the explicit lease duration (kwokctl's default).
launch kwok --kubeconfig="${KUBECONFIG}" --config="${stages}" \
  --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --node-lease-duration-seconds=40 \
  --server-address="127.0.0.1:${kwok_port}"

for ((i = 0; i < nodes; i++)); do
  cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-${i}
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    type: kwok
    kubernetes.io/hostname: kwok-node-${i}
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
status:
  capacity: {cpu: "32", memory: 256Gi, pods: "110"}
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
EOF
done > "${dir}/nodes.yaml"
if [[ ${nodes} -gt 0 ]]; then
  kubectl create -f "${dir}/nodes.yaml" >/dev/null
fi

ready_nodes() {
  [[ $(kubectl get nodes -l type=kwok \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
    grep -c '^True$') -eq ${nodes} ]]
}
wait_for kwok "${nodes} Ready kwok nodes" ready_nodes
# The service-account controller making "default" proves the KCM works (and
# pods in the default namespace are refused until it exists).
wait_for kube-controller-manager "the default ServiceAccount" kubectl get serviceaccount default -n default
wait_for kube-controller-manager "its /healthz" curl -skf --max-time 2 "https://127.0.0.1:${kcm_port}/healthz"
if ${scheduler}; then
  wait_for kube-scheduler "its /healthz" curl -skf --max-time 2 "https://127.0.0.1:${sched_port}/healthz"
fi

{
  printf 'export KUBECONFIG=%q\n' "${KUBECONFIG}"
  printf 'export CONTROLPLANE_DIR=%q\n' "${dir}"
  printf 'export CONTROLPLANE_APISERVER=%q\n' "${api}"
  printf 'export CONTROLPLANE_CA=%q\n' "${pki}/apiserver-ca.crt"
  printf 'export CONTROLPLANE_PIDS=%q\n' "${pids}"
  printf 'export CONTROLPLANE_BIN=%q\n' "${bin}"
  printf 'export CONTROLPLANE_AUDIT_LOG=%q\n' "${dir}/logs/audit.log"
} > "${dir}/env"

started=true
echo "start.sh: control plane with ${nodes} kwok node(s) ready after $(elapsed); source ${dir}/env"
