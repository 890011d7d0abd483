package main

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// The operator runs its trials as Pods: it links neither the local runtime
// of the trial command nor envtest, which that runtime starts sandboxes with.
func TestLinksNoLocalRuntime(t *testing.T) {
	// A go list stuck on a lock must fail the test, not hang until go test's own timeout.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list (timeout 2m): %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller") {
		t.Fatalf("the operator does not link its trial controller; the list is wrong:\n%s", out)
	}
	for _, dep := range deps {
		if strings.HasPrefix(dep, "sigs.k8s.io/controller-runtime/pkg/envtest") || dep == "github.com/openshift/secondary-scheduler-operator/pkg/trial/local" {
			t.Errorf("secondary-scheduler-operator links %s", dep)
		}
	}
}
