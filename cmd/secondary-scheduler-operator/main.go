// Command secondary-scheduler-operator runs the operator, renders what it would
// apply, and prints its version.
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/openshift/secondary-scheduler-operator/pkg/cmd"
)

func main() {
	os.Exit(cli.Run(cmd.NewRootCommand()))
}
