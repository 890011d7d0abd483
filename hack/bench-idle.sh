#!/usr/bin/env bash
# Measures the operator as a host process against the full local stack:
# requests it sends while idle, and its RSS idle and after pods it does not own.
# Prints figures; asserts nothing.
#   hack/bench-idle.sh [IDLE_SECONDS] [PODS]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
idle=${1:-300}
pods=${2:-3000}
dir=$(mktemp -d /tmp/secondary-scheduler-bench.XXXXXX)
operator_pid=""
cleanup() {
  set +e
  [[ -n "$operator_pid" ]] && kill "$operator_pid" 2>/dev/null && wait "$operator_pid" 2>/dev/null
  "$root/hack/controlplane/stop.sh" "$dir/cluster" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT

"$root/hack/controlplane/build.sh" >/dev/null
(cd "$root" && make -s build)
"$root/hack/controlplane/start.sh" "$dir/cluster" --nodes 3 >/dev/null
# shellcheck source=/dev/null
. "$dir/cluster/env"
kubectl() { "$CONTROLPLANE_BIN/kubectl" "$@"; }

kubectl apply -f "$root/manifests/" >/dev/null 2>&1 || kubectl apply -f "$root/manifests/" >/dev/null
token=$(kubectl -n openshift-secondary-scheduler-operator create token secondary-scheduler-operator --duration=2h)
kubectl config view --raw --minify --flatten >"$dir/operator.kubeconfig"
KUBECONFIG="$dir/operator.kubeconfig" kubectl config set-credentials operator --token="$token" >/dev/null
KUBECONFIG="$dir/operator.kubeconfig" kubectl config set-context --current --user=operator >/dev/null

port=$(( (RANDOM % 20000) + 10000 ))
"$root/_output/bin/secondary-scheduler-operator" operator --kubeconfig="$dir/operator.kubeconfig" \
  --namespace=openshift-secondary-scheduler-operator --listen="127.0.0.1:$port" -v=6 >"$dir/operator.log" 2>&1 &
operator_pid=$!

kubectl apply -f - >/dev/null <<YAML
apiVersion: operator.openshift.io/v1
kind: SecondaryScheduler
metadata:
  name: cluster
spec:
  managementState: Managed
  # Trace is -v=6, at which client-go logs every request: that is what is counted.
  operatorLogLevel: Trace
  schedulerImage: registry.k8s.io/kube-scheduler:v1.36.2
YAML
for _ in $(seq 1 120); do
  kubectl -n openshift-secondary-scheduler get deployment/secondary-scheduler >/dev/null 2>&1 && break
  sleep 1
done
kubectl -n openshift-secondary-scheduler rollout status deployment/secondary-scheduler --timeout=120s >/dev/null || {
  tail -20 "$dir/operator.log"; exit 1; }
sleep 20 # let the operator settle after the rollout

rss() { awk '/^VmRSS|^RssAnon|^RssFile/ {printf "%s %.1f MiB ", $1, $2/1024}' "/proc/$operator_pid/status"; }

start_lines=$(wc -l <"$dir/operator.log")
echo "operator memory idle: $(rss)"
sleep "$idle"
echo "requests in ${idle} idle seconds:"
tail -n +"$((start_lines + 1))" "$dir/operator.log" | grep '"Response"' | grep -oE 'verb="[A-Z]+" url="[^"?]+' |
  sed 's|url="https://[^/]*||' | sort | uniq -c | sort -rn || echo "  none"
grep -m1 '"Response"' "$dir/operator.log" >/dev/null || echo "  (the log holds no client-go request lines: is -v=6 honoured?)"

kubectl create namespace bench-unowned >/dev/null
for i in $(seq 1 "$pods"); do
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: p%s, namespace: bench-unowned}\nspec: {containers: [{name: c, image: example.com/none}], nodeSelector: {type: kwok}}\n---\n' "$i"
done | kubectl apply -f - >/dev/null
sleep 30
echo "operator memory after $pods pods it does not own: $(rss)"
