// Package cmd holds the cobra commands of secondary-scheduler-operator.
package cmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator"
	"github.com/openshift/secondary-scheduler-operator/pkg/version"
)

// NewRootCommand returns the secondary-scheduler-operator command with its subcommands.
func NewRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "secondary-scheduler-operator",
		Short: "Runs a secondary kube-scheduler and KEP-159 scheduler simulators on OpenShift and Kubernetes",
		RunE: func(c *cobra.Command, _ []string) error {
			return c.Help()
		},
		SilenceUsage: true,
	}
	root.AddCommand(newOperatorCommand(), newRenderCommand(), newDiffCommand(), newVersionCommand())
	return root
}

func newOperatorCommand() *cobra.Command {
	c := controllercmd.NewControllerCommandConfig("secondary-scheduler-operator", version.Get(), operator.RunOperator, clock.RealClock{}).
		NewCommandWithContext(context.Background())
	c.Use = "operator"
	c.Short = "Start the operator"
	c.Flags().DurationVar(&operator.UnservedPodGrace, "unserved-pod-grace", operator.UnservedPodGrace,
		"how long a pending pod of a schedulerName other than default-scheduler may wait before it is reported as unserved")
	return c
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of this build",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			out, err := json.MarshalIndent(version.Get(), "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(c.OutOrStdout(), string(out))
			return err
		},
	}
}
