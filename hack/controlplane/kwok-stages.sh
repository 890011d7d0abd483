#!/usr/bin/env bash
# Writes kwok's "fast" stages (node-initialize, node-heartbeat-with-lease,
# pod-ready, pod-complete, pod-delete) from the pinned kwok module into
# _output/controlplane/kwok-stages.yaml: the kwok binary embeds none.
#
#   hack/controlplane/kwok-stages.sh
#
# build.sh runs it. Its stamp is its own (kwok's pin and checksums, and this
# script), apart from the binaries': changing which pods kwok leaves alone
# rewrites this file in a second and rebuilds nothing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="$(cd "${here}/../.." && pwd)/_output/controlplane"
stamp="${out}/stamps/kwok-stages.yaml"
key="stages $(cat "${here}/kwok/go.mod" "${here}/kwok/go.sum" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
if [[ -e "${out}/kwok-stages.yaml" && -f "${stamp}" && "$(< "${stamp}")" == "${key}" ]]; then
  exit 0
fi

# A fresh clone has no _output yet: this runs before any binary is built.
mkdir -p "${out}/stamps"
kwok_dir=$(cd "${here}/kwok" && GOWORK=off GOFLAGS=-mod=readonly go mod download -json sigs.k8s.io/kwok | awk -F'"' '$2 == "Dir" { print $4 }')
[[ -d "${kwok_dir}" ]] || { echo "kwok-stages.sh: cannot locate the sigs.k8s.io/kwok module" >&2; exit 1; }
stages=(node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease
  pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete)
# One change: pod-ready leaves alone the Pods whose containers the e2e harness
# runs itself (test/e2e/operandrunner) and reports from what runs: Simulator
# Pods and trial Pods. kwok would mark them Ready before anything answers.
# A label and the value that excludes a pod ("-": any value).
excluded=(simulation.kube-scheduler-simulator.x-k8s.io/simulator)
excluded_values=(-)
# Trial Pods share the app.kubernetes.io/name key with other pods: match its value.
excluded+=(app.kubernetes.io/name)
excluded_values+=(secondary-scheduler-trial)
{
  for s in "${stages[@]}"; do
    echo "---"
    if [[ "${s}" != pod/fast/pod-ready ]]; then
      cat "${kwok_dir}/kustomize/stage/${s}.yaml"
      continue
    fi
    awk -v labels="${excluded[*]}" -v values="${excluded_values[*]}" '{ print }
      /^    matchExpressions:$/ && !done {
        n = split(labels, l, " "); split(values, v, " ")
        for (i = 1; i <= n; i++) {
          print "    - key: '"'"'.metadata.labels[\"" l[i] "\"]'"'"'"
          if (v[i] == "-") {
            print "      operator: '"'"'DoesNotExist'"'"'"
          } else {
            print "      operator: '"'"'NotIn'"'"'"
            print "      values:"
            print "      - '"'"'" v[i] "'"'"'"
          }
        }
        done = 1
      }' "${kwok_dir}/kustomize/stage/${s}.yaml"
  done
} > "${out}/kwok-stages.yaml.tmp"
for l in "${excluded[@]}"; do
  grep -q "${l}" "${out}/kwok-stages.yaml.tmp" || { echo "kwok-stages.sh: kwok's pod-ready stage changed shape; cannot exclude pods labelled ${l}" >&2; exit 1; }
done
mv "${out}/kwok-stages.yaml.tmp" "${out}/kwok-stages.yaml"
echo "${key}" > "${stamp}"
echo "controlplane: wrote ${out}/kwok-stages.yaml"
