package main

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift/secondary-scheduler-operator/pkg/cmd/ctl"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
)

// secondary-scheduler-ctl starts fast because it links neither the
// operator's controllers nor library-go's command that serves them (and its
// API server packages), nor library-go's resource readers and appliers and
// its config observers (which import them): their init builds schemes of
// every OpenShift and Kubernetes group, a third of the command's init. One
// import of any would bring back their packages' initialisation.
func TestLinksNoController(t *testing.T) {
	// A go list stuck on a lock must fail the test, not hang until go test's own timeout.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list (timeout 2m): %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, controllers := range []string{
		"github.com/openshift/secondary-scheduler-operator/pkg/operator",
		"github.com/openshift/library-go/pkg/controller/controllercmd",
	} {
		if slices.Contains(deps, controllers) {
			t.Errorf("secondary-scheduler-ctl links %s", controllers)
		}
	}
	for _, dep := range deps {
		for _, schemes := range []string{
			"github.com/openshift/library-go/pkg/operator/resource/",
			"github.com/openshift/library-go/pkg/operator/configobserver",
			"github.com/openshift/library-go/pkg/operator/resourcesynccontroller",
		} {
			if strings.HasPrefix(dep, schemes) {
				t.Errorf("secondary-scheduler-ctl links %s", dep)
			}
		}
	}
	if !slices.Contains(deps, "github.com/openshift/secondary-scheduler-operator/pkg/operator/render") {
		t.Errorf("secondary-scheduler-ctl does not link the operator's render; the list is wrong:\n%s", out)
	}
}

func TestServesTheAdministratorsCommands(t *testing.T) {
	var got []string
	for _, c := range ctl.NewRootCommand(local.New).Commands() {
		got = append(got, c.Name())
	}
	if want := []string{"diff", "render", "snapshot", "trial", "version"}; !slices.Equal(got, want) {
		t.Errorf("commands %v, want %v", got, want)
	}
}
