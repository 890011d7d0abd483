# Shared by hack/test-e2e.sh and hack/run-local.sh (source it): install the
# operator on a local control plane (hack/controlplane/start.sh) and run it as a
# host process with the token of its own ServiceAccount, so it has exactly the
# RBAC manifests/ ship.
#
# Expects: root (repository root) and the control plane's env file sourced
# (KUBECONFIG, CONTROLPLANE_BIN, CONTROLPLANE_APISERVER, CONTROLPLANE_CA).

operator_namespace=openshift-secondary-scheduler-operator
operator_sa=secondary-scheduler-operator

# The OpenShift config CRDs the operator reads (hack/openshift-crds.txt).
mapfile -t openshift_crds < <(grep -v '^#' "${root}/hack/openshift-crds.txt")

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*"; }
kc() { "${CONTROLPLANE_BIN}/kubectl" "$@"; }

# A zombie counts as gone. ours PID NAME: the command name still matches (the
# PID was not recycled; the kernel truncates names to 15 characters).
alive() { [[ "$(ps -o stat= -p "$1" 2>/dev/null)" =~ ^[[:space:]]*[^Z[:space:]] ]]; }
ours() { [[ "$(ps -o comm= -p "$1" 2>/dev/null)" == "${2:0:15}" ]]; }

# stop_pidfile FILE NAME: SIGTERM the process recorded in FILE if it is still
# NAME, SIGKILL after 10 s, then remove FILE.
stop_pidfile() {
  local file=$1 name=$2 pid
  [[ -s "${file}" ]] || return 0
  pid=$(< "${file}")
  if alive "${pid}" && ours "${pid}" "${name}"; then
    kill -TERM "${pid}" 2>/dev/null
    for _ in {1..100}; do alive "${pid}" || break; sleep 0.1; done
    if alive "${pid}"; then
      echo "${name} (${pid}) still up 10s after SIGTERM; sending SIGKILL" >&2
      kill -KILL "${pid}" 2>/dev/null
    fi
  fi
  rm -f "${file}"
}

# free_port: a loopback port below the ephemeral range that nothing answers on.
free_port() {
  local p
  while :; do
    p=$((10000 + RANDOM % 22768))
    (exec 3<>"/dev/tcp/127.0.0.1/${p}") 2>/dev/null && continue
    echo "${p}"
    return
  done
}

# heartbeat LABEL CMD...: runs CMD, printing a line every minute while it runs
# (a cold build of kube-apiserver is silent for many minutes).
heartbeat() {
  local label=$1 start=${SECONDS} pid rc
  shift
  "$@" &
  pid=$!
  while alive "${pid}"; do
    for _ in {1..60}; do alive "${pid}" || break; sleep 1; done
    alive "${pid}" && log "... ${label}: still running, $(((SECONDS - start) / 60)) min so far"
  done
  wait "${pid}" && rc=0 || rc=$?
  return "${rc}"
}

# install_manifests OPENSHIFT(true|false): `kubectl apply -f manifests/` (plain
# Kubernetes objects only, as a user would), then with OPENSHIFT what the
# cluster-version operator would add: the config CRDs, and from
# manifests/optional the ClusterOperator and the default SecondaryScheduler
# (managementState Removed). ServiceMonitor and PrometheusRule need the
# Prometheus operator's CRDs, which a local control plane lacks.
install_manifests() {
  local openshift=$1 crd f
  log "kubectl apply -f manifests/"
  kc apply -f "${root}/manifests/"
  if [[ "${openshift}" == true ]]; then
    log "installing the OpenShift config CRDs (ClusterOperator, APIServer, Infrastructure, Scheduler)"
    for crd in "${openshift_crds[@]}"; do
      f="${root}/vendor/github.com/openshift/api/config/v1/zz_generated.crd-manifests/${crd}"
      [[ -f "${f}" ]] || { echo "missing ${f}" >&2; return 1; }
      kc apply -f "${f}"
    done
    kc wait --for=condition=Established --timeout=60s \
      crd/clusteroperators.config.openshift.io crd/apiservers.config.openshift.io \
      crd/infrastructures.config.openshift.io crd/schedulers.config.openshift.io
    kc apply -f "${root}/manifests/optional/0000_50_secondary-scheduler-operator_09_clusteroperator.yaml"
    kc apply -f "${root}/manifests/optional/0000_50_secondary-scheduler-operator_10_secondaryscheduler.cr.yaml"
  fi
}

# operator_kubeconfig FILE [DURATION]: a kubeconfig that is the operator's
# ServiceAccount (TokenRequest via kubectl create token), nothing more.
operator_kubeconfig() {
  local file=$1 duration=${2:-24h} token
  token=$(kc -n "${operator_namespace}" create token "${operator_sa}" --duration="${duration}")
  rm -f "${file}"
  kc config --kubeconfig="${file}" set-cluster local --server="${CONTROLPLANE_APISERVER}" \
    --certificate-authority="${CONTROLPLANE_CA}" --embed-certs=true >/dev/null
  kc config --kubeconfig="${file}" set-credentials "${operator_sa}" --token="${token}" >/dev/null
  kc config --kubeconfig="${file}" set-context operator --cluster=local --user="${operator_sa}" >/dev/null
  kc config --kubeconfig="${file}" use-context operator >/dev/null
  chmod 600 "${file}"
}

# start_operator KUBECONFIG LISTEN LOG PIDFILE: runs the operator in the
# background and waits until its /healthz answers.
# start_operator KUBECONFIG LISTEN LOGFILE PIDFILE [OPERATOR FLAGS...]
start_operator() {
  local kubeconfig=$1 listen=$2 logfile=$3 pidfile=$4 pid
  shift 4
  log "starting the operator: secondary-scheduler-operator operator --listen=${listen} (log ${logfile})"
  OPERATOR_IMAGE_VERSION="${OPERATOR_IMAGE_VERSION:-0.0.1-local}" \
    "${root}/_output/bin/secondary-scheduler-operator" operator \
    --kubeconfig="${kubeconfig}" --namespace="${operator_namespace}" --listen="${listen}" -v=2 "$@" \
    > "${logfile}" 2>&1 &
  pid=$!
  echo "${pid}" > "${pidfile}"
  for _ in {1..600}; do
    if ! alive "${pid}"; then
      echo "the operator exited; last lines of ${logfile}:" >&2
      tail -n 30 "${logfile}" >&2
      return 1
    fi
    curl -skf --max-time 2 "https://${listen}/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "the operator's /healthz did not answer within 60s; last lines of ${logfile}:" >&2
  tail -n 30 "${logfile}" >&2
  return 1
}

# wait_cluster_operator_reports VERSION: as the cluster-version operator waits
# after an install or upgrade, wait until ClusterOperator secondary-scheduler is
# Available and reports operator version VERSION.
wait_cluster_operator_reports() {
  local want=$1 got="" available=""
  for _ in {1..600}; do
    available=$(kc get clusteroperator secondary-scheduler -o jsonpath='{.status.conditions[?(@.type=="Available")].status}' 2>/dev/null)
    got=$(kc get clusteroperator secondary-scheduler -o jsonpath='{.status.versions[?(@.name=="operator")].version}' 2>/dev/null)
    [[ "${available}" == True && "${got}" == "${want}" ]] && return 0
    sleep 0.1
  done
  echo "ClusterOperator secondary-scheduler: Available=${available:-<none>}, operator version ${got:-<none>}, want True and ${want}" >&2
  kc get clusteroperator secondary-scheduler -o yaml >&2
  return 1
}
