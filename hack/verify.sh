#!/usr/bin/env bash
# Fails when anything generated, vendored or gofmt'ed differs from what `make update` writes.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

unformatted=$(git ls-files '*.go' | grep -v '^vendor/' | xargs gofmt -l)
if [[ -n "$unformatted" ]]; then
  echo "gofmt needed on:" >&2
  echo "$unformatted" >&2
  exit 1
fi

# README.md names the Go that the go.mod files need, as hack/prereqs.sh checks it.
go_needed=$(hack/prereqs.sh --go-version)
if ! grep -q "Go ${go_needed} or newer" README.md; then
  echo "README.md must name \"Go ${go_needed} or newer\": the highest go line of the go.mod files (hack/prereqs.sh --go-version)" >&2
  exit 1
fi

# Whether a run is CI is decided in one place: framework.InCI (test/framework/ci.go)
# for Go, in_ci (hack/lib/ci.sh) for scripts.
ci_readers=$(
  git grep --untracked -n -E 'os\.(Getenv|LookupEnv)\("CI"\)' -- '*.go' ':!vendor/' ':!test/framework/ci.go' || true
  git grep --untracked -n -E '\$\{?CI([^A-Za-z0-9_]|$)|\$\(CI\)' -- '*.sh' Makefile .ci/ ':!hack/lib/ci.sh' || true
)
if [[ -n "$ci_readers" ]]; then
  echo "read CI through framework.InCI() (Go) or in_ci of hack/lib/ci.sh (scripts), not directly:" >&2
  echo "$ci_readers" >&2
  exit 1
fi

# Regenerate into the work tree and compare every generated file's content before and after.
generated=(pkg/apis pkg/generated manifests images/bundle.Dockerfile vendor go.mod go.sum)
fingerprint() { git ls-files -co --exclude-standard -- "${generated[@]}" | sort | xargs sha256sum; }
before=$(mktemp)
trap 'rm -f "$before"' EXIT
fingerprint >"$before"
# With an empty module cache, as on a new machine: a generator script that
# relies on a module being downloaded already fails here, not only in CI.
fresh_modcache=$(mktemp -d)
trap 'rm -f "$before"; GOMODCACHE="$fresh_modcache" GOFLAGS="" go clean -modcache; rm -rf "$fresh_modcache"' EXIT
GOMODCACHE="$fresh_modcache" hack/update-codegen.sh >/dev/null
flock /tmp/secondary-scheduler-operator-vendor.lock sh -c 'GOFLAGS= go mod tidy && GOFLAGS= go mod vendor' 
if ! diff -u "$before" <(fingerprint); then
  echo "generated code, CRDs or vendor/ are stale: run 'make update' and commit the result" >&2
  exit 1
fi
go vet ./cmd/... ./pkg/... ./test/...
echo "verify: ok"
