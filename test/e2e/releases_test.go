package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// release is an earlier release of the operator that the fault suite
// upgrades from. There are no tags: a release is a commit of main.
type release struct {
	commit string
	// args are the operator flags that release's own e2e harness passed.
	args []string
	// why this commit: what it holds that a later one changed.
	why string
	// formerConfigMap: the operator wrote the mutable config ConfigMap
	// secondary-scheduler-config, which HEAD replaces by content-named ones.
	formerConfigMap bool
	// noSimulatorNetworkPolicy: the release made no NetworkPolicy per
	// Simulator; the upgrade creates one (docs/security.md).
	noSimulatorNetworkPolicy bool
	// newStatus are SecondaryScheduler status fields HEAD writes that this
	// release did not have.
	newStatus []string
}

// upgradeReleases are the releases TestFaultUpgradeFromRelease starts from,
// oldest first.
var upgradeReleases = []release{
	{
		commit: "0a53fe037a7de6736b8e0fea1e10cca4067551ed",
		why: "the first release (end of the first round, 2026-11-30): one mutable config ConfigMap " +
			"secondary-scheduler-config, the operand bound to system:kube-scheduler and system:volume-scheduler, " +
			"no Simulator admission policy, no NetworkPolicy per Simulator, no rollback records, no leader-election flags",
		formerConfigMap:          true,
		noSimulatorNetworkPolicy: true,
		newStatus:                []string{"lastKnownGood"},
	},
	{
		commit: "897c0a4f96c3be4e1726be952c8ed0ce7fb5faf1",
		args:   []string{"--unserved-pod-grace=5s", "--leader-elect-lease-duration=15s", "--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=2s"},
		why: "the next release that changed the API and the owned objects (end of the second round, 2026-12-01): " +
			"content-named immutable config ConfigMaps, rollback records, the Simulator admission policy; " +
			"still the bindings to the system scheduler roles, no operand ClusterRole, no projected token volume, " +
			"no Pod Security labels, Simulator objects without the managed-by label",
	},
}

func (r release) short() string { return r.commit[:7] }

// releaseBuild returns the operator binary of r and a directory holding r's
// manifests/ and examples/, built from this clone's history (git archive, then
// go build with r's vendor/) into _output/releases/<commit>/ once: a rerun
// finds them there. The Go build cache is the one every build shares.
func releaseBuild(t *testing.T, r release) (binary, tree string) {
	t.Helper()
	out := repoPath(t, "_output", "releases", r.commit)
	binary = filepath.Join(out, "secondary-scheduler-operator")
	if _, err := os.Stat(binary); err == nil {
		return binary, out
	}
	root := repoPath(t, ".")
	ctx, cancel := context.WithTimeout(t.Context(), commandTimeout)
	defer cancel()
	if err := exec.CommandContext(ctx, "git", "-C", root, "cat-file", "-e", r.commit+"^{commit}").Run(); err != nil {
		shallow, _ := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--is-shallow-repository").Output()
		t.Fatalf("release %s is not in this clone (shallow: %s): run `git fetch --unshallow` (CI clones main with its full history)",
			r.short(), strings.TrimSpace(string(shallow)))
	}
	started := time.Now()
	src := filepath.Join(out, "src")
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.CommandContext(ctx, "bash", "-c", `set -o pipefail; git -C "$1" archive "$2" | tar -x -C "$3"`, "archive", root, r.commit, src)
	if output, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s: %v\n%s", r.short(), err, output)
	}
	// -trimpath: the compiled packages do not depend on where the tree is, so
	// releases that vendor the same libraries share them in the build cache.
	goBuildOperator(t, src, binary+".tmp", "-trimpath")
	for _, dir := range []string{"manifests", "examples"} {
		if err := os.RemoveAll(filepath.Join(out, dir)); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(src, dir), filepath.Join(out, dir)); err != nil {
			t.Fatal(err)
		}
	}
	// The binary last: its presence says the whole release is there.
	if err := os.Rename(binary+".tmp", binary); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	t.Logf("built release %s in %s (cached in %s)", r.short(), time.Since(started).Round(time.Second), out)
	return binary, out
}

// goBuildOperator builds ./cmd/secondary-scheduler-operator of the module in
// dir into out, from its vendor/, with extra go build flags.
func goBuildOperator(t *testing.T, dir, out string, flags ...string) {
	t.Helper()
	args := append([]string{"build", "-mod=vendor", "-buildvcs=false"}, flags...)
	// A cold build compiles every vendored package of the release: minutes on 2 cores.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(args, "-o", out, "./cmd/secondary-scheduler-operator")...)
	cmd.Dir = dir
	if output, err := cmd.CombinedOutput(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("exit %d", exit.ExitCode())
		}
		t.Fatalf("go build in %s: %v\n%s", dir, err, output)
	}
}
