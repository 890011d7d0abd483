package framework

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestInCI: the values of CI that make a CI run, for InCI and for in_ci of
// hack/lib/ci.sh alike.
func TestInCI(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(root, "hack", "lib", "ci.sh")
	if _, err := os.Stat(lib); err != nil {
		t.Fatal(err)
	}
	for value, want := range map[string]bool{
		"true": true, "TRUE": true, "True": true, "1": true, "yes": true, "Yes": true, " true ": true,
		"": false, "false": false, "0": false, "no": false, "t": false, "on": false, "ci": false,
	} {
		t.Setenv("CI", value)
		if got := InCI(); got != want {
			t.Errorf("CI=%q: InCI() = %t, want %t", value, got, want)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		err := exec.CommandContext(ctx, "bash", "-c", `. "$1" && in_ci`, "bash", lib).Run()
		cancel()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		if got := err == nil; got != want {
			t.Errorf("CI=%q: in_ci of hack/lib/ci.sh says %t, InCI %t", value, got, want)
		}
	}
}
