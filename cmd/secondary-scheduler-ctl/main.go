// Command secondary-scheduler-ctl renders a SecondaryScheduler change, shows
// what it would change in a cluster and tries it on a copy of the cluster,
// as the operator would: the operator binary's render and diff, and trial,
// whose sandboxes run on this machine (the operator runs its trials as Pods).
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/openshift/secondary-scheduler-operator/pkg/cmd/ctl"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/local"
)

func main() {
	os.Exit(cli.Run(ctl.NewRootCommand(local.New)))
}
