# Every build and test uses the committed vendor/ tree. -trimpath for all of
# them: go vet (make verify), the tests and the operator's build then share
# one set of compiled packages (a flag that differs compiles everything again,
# 2 minutes on a cold run), and so do the earlier releases the fault suite
# builds from history.
export GOFLAGS := -mod=vendor -buildvcs=false -trimpath

BIN_DIR := _output/bin
BINARY := $(BIN_DIR)/secondary-scheduler-operator
CTL_BINARY := $(BIN_DIR)/secondary-scheduler-ctl
GIT_VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo v0.0.0-unknown)
GIT_COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
# The build date is the commit's (now, without git, as in the image build): a
# date that changes every second changed the link flags of every make build,
# so that the test tiers' make build linked both binaries again each time.
BUILD_DATE ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
VERSION_PKG := github.com/openshift/secondary-scheduler-operator/pkg/version
LDFLAGS := -X $(VERSION_PKG).versionFromGit=$(GIT_VERSION) -X $(VERSION_PKG).commitFromGit=$(GIT_COMMIT) \
	-X $(VERSION_PKG).buildDate=$(BUILD_DATE)

.PHONY: all build test prereqs promtool test-unit test-bundle test-rules test-configdiff test-integration test-e2e test-faults bench verify update update-codegen vendor controlplane clean

all: build

build:
	go build -ldflags "$(LDFLAGS)" -o $(BINARY) ./cmd/secondary-scheduler-operator
	go build -ldflags "$(LDFLAGS)" -o $(CTL_BINARY) ./cmd/secondary-scheduler-ctl

# The tests the README names: hack/prereqs.sh, unit, then integration and e2e against
# a real control plane. hack/test.sh runs these targets one by one (sequential on
# purpose, even under make -j: integration only after unit passed), each build a
# tier needs as a step of its own (promtool, controlplane, build), and ends, also
# on a failure, with a table of the time each step took.
test:
	MAKE='$(MAKE)' hack/test.sh

# What make test needs from the machine (root able to make network namespaces,
# flock, openssl, curl, make, ip, chromium, the Go of the go.mod files, free disk), one line
# for each thing missing. PREREQS_FLAGS=--install apt-get installs missing packages.
prereqs:
	hack/prereqs.sh $(PREREQS_FLAGS)

# test/reportpage opens the trial report's page in a headless Chromium;
# UPDATE_SCREENSHOT=1 rewrites docs/images/trial-report.png from it.
test-unit:
	go test ./cmd/... ./pkg/... ./test/manifests/... ./test/bench/benchreport/... ./hack/olm-bundle/... ./test/reportpage/...

# The OLM bundle of manifests/olm (make update generates it) through
# operator-framework's own bundle validation, in its own module, not vendored.
# -trimpath as above: the packages it shares with the operator (at the same
# versions, hack/olm-bundle/validate/go.mod) come from the unit tests' builds.
test-bundle:
	cd hack/olm-bundle/validate && GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false -trimpath" go test ./... -count=1

# The alerts of the PrometheusRule in manifests/optional, by a real promtool
# (built from hack/tools/promtool), on the synthetic series in test/rules/testdata.
promtool:
	hack/tools/build-promtool.sh

test-rules: promtool
	PROMTOOL=$(CURDIR)/_output/tools/promtool go test ./test/rules/... -count=1

# The operator's scheduler-config validation against the real kube-scheduler and
# scheduler-plugins' binaries, on the corpus in test/configdiff/testdata/corpus.
test-configdiff: controlplane
	KUBE_SCHEDULER=$(CURDIR)/_output/controlplane/bin/kube-scheduler SCHEDULER_PLUGINS=$(CURDIR)/_output/controlplane/bin/scheduler-plugins \
	  go test -v -timeout 30m ./test/configdiff/... -count=1

# Builds (or reuses) the local control plane binaries under _output/controlplane.
controlplane:
	hack/controlplane/build.sh

# etcd + kube-apiserver (envtest) with our CRDs, and the kube-scheduler binary that
# test/integration/schedulermetrics runs against them. KUBEBUILDER_ASSETS set explicitly
# makes a missing binary fail the tests instead of skipping them (as CI does: framework.InCI).
test-integration: controlplane
	KUBEBUILDER_ASSETS=$(CURDIR)/_output/controlplane/bin go test ./test/framework/... ./test/integration/... -count=1 -timeout 30m

# The full stack (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
# kwok), manifests/ applied, the operator as a host process, go test ./test/e2e/...
# E2E_FLAGS=--no-openshift-crds runs it as on plain Kubernetes.
test-e2e: controlplane build
	hack/test-e2e.sh $(E2E_FLAGS)

# The fault suite on the same stack: the operator killed mid-change, hand
# edits of what it owns. FAULTS_REPEAT (default 3) repeats each kill.
test-faults: controlplane build
	hack/test-e2e.sh --faults $(E2E_FLAGS)

# Every figure of docs/benchmarks.md measured again and the report rewritten
# (about an hour; hack/bench.sh names the sizes it takes from the environment).
bench: controlplane
	hack/bench.sh

# The README's main command: builds, starts everything in _output/local, runs an
# example SecondaryScheduler and schedules demo pods through it.
.PHONY: run-local stop-local
run-local:
	hack/run-local.sh $(RUN_LOCAL_FLAGS)

stop-local:
	hack/stop-local.sh

update: update-codegen vendor
	gofmt -w $(shell git ls-files '*.go' | grep -v '^vendor/')

update-codegen:
	hack/update-codegen.sh

# Several people may vendor at once in one work tree: serialize it.
vendor:
	flock /tmp/secondary-scheduler-operator-vendor.lock sh -c 'GOFLAGS= go mod tidy && GOFLAGS= go mod vendor'


verify:
	hack/verify.sh

clean:
	rm -rf _output/bin
