// Command secondary-scheduler-ctl renders a SecondaryScheduler change, shows
// what it would change in a cluster and tries it on a copy of the cluster,
// as the operator would: the operator binary's render, diff and trial,
// without the controllers.
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/openshift/secondary-scheduler-operator/pkg/cmd/ctl"
)

func main() {
	os.Exit(cli.Run(ctl.NewRootCommand()))
}
