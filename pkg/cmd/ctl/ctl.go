// Package ctl holds the administrator's commands: render, diff, trial,
// snapshot and version. The operator binary serves render, diff and version too;
// secondary-scheduler-ctl serves them all, without the controllers, and
// trial with a runtime of its own (package trial/local), which the operator
// binary does not link.
package ctl

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openshift/secondary-scheduler-operator/pkg/version"
)

// NewRootCommand is secondary-scheduler-ctl: NewRoot's commands, trial,
// whose arms newRuntime runs on this machine, and snapshot, which writes what
// a trial reads of the cluster to a file.
func NewRootCommand(newRuntime NewRuntime) *cobra.Command {
	root := NewRoot("secondary-scheduler-ctl", "Renders, compares and tries a SecondaryScheduler change before the operator applies it")
	root.AddCommand(newTrialCommand(newRuntime), newSnapshotCommand())
	return root
}

// NewRoot is a root command named use with the administrator's commands
// that need no runtime of their own: render, diff and version.
func NewRoot(use, short string) *cobra.Command {
	root := &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(c *cobra.Command, _ []string) error {
			return c.Help()
		},
		SilenceUsage: true,
	}
	root.AddCommand(newRenderCommand(), newDiffCommand(), newVersionCommand())
	return root
}

// newVersionCommand is version: the build's version as JSON.
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
