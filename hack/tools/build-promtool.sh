#!/usr/bin/env bash
# Builds promtool from the Prometheus module pinned in hack/tools/promtool/go.mod
# into _output/tools/promtool, for `make test-rules` (test/rules).
#
# A stamp of the inputs next to the binary lets a rerun with an up-to-date
# binary return at once; a change of the pins, of this script or of the Go
# toolchain rebuilds it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
module="${here}/promtool"
out="$(cd "${here}/../.." && pwd)/_output/tools"
bin="${out}/promtool"
stamp="${out}/promtool.stamp"

key="go $(go env GOVERSION)
inputs $(cat "${module}/go.mod" "${module}/go.sum" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
if [[ -x "${bin}" && -f "${stamp}" && "$(< "${stamp}")" == "${key}" ]]; then
  echo "promtool: up to date in ${bin}"
  exit 0
fi

# Our own settings win over the user's (the Makefile's -mod=vendor among them):
# this module is not vendored.
export GOWORK=off GOFLAGS=-mod=readonly CGO_ENABLED=0
start=${SECONDS}
echo "promtool: building github.com/prometheus/prometheus/cmd/promtool ..."
mkdir -p "${out}"
# A temp name, so an interrupted build never leaves a half binary.
# remove_all_sd (Prometheus' own build tag) leaves out the cloud service
# discoveries, which rule tests never use: their SDKs were most of a cold
# build (6 minutes on 2 cores) and of its downloads.
(cd "${module}" && go build -trimpath -tags remove_all_sd -ldflags "-s -w" -o "${bin}.tmp" github.com/prometheus/prometheus/cmd/promtool)
mv "${bin}.tmp" "${bin}"
echo "${key}" > "${stamp}"
echo "promtool: built ${bin} in $((SECONDS - start))s"
