// Package cmd is secondary-scheduler-operator: the operator command, and
// the administrator's commands of package ctl that need no trial runtime.
package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	"github.com/openshift/secondary-scheduler-operator/pkg/cmd/ctl"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator"
	"github.com/openshift/secondary-scheduler-operator/pkg/version"
)

// NewRootCommand returns the secondary-scheduler-operator command with its subcommands.
func NewRootCommand() *cobra.Command {
	root := ctl.NewRoot("secondary-scheduler-operator", "Runs a secondary kube-scheduler and KEP-159 scheduler simulators on OpenShift and Kubernetes")
	root.AddCommand(newOperatorCommand())
	return root
}

func newOperatorCommand() *cobra.Command {
	opts := operator.DefaultOptions()
	// The flags below set opts before the command runs.
	run := func(ctx context.Context, cc *controllercmd.ControllerContext) error {
		return operator.RunOperator(ctx, cc, opts)
	}
	cfg := controllercmd.NewControllerCommandConfig("secondary-scheduler-operator", version.Get(), run, clock.RealClock{})
	c := cfg.NewCommandWithContext(context.Background())
	c.Use = "operator"
	c.Short = "Start the operator"
	c.Flags().DurationVar(&opts.UnservedPodGrace, "unserved-pod-grace", opts.UnservedPodGrace,
		"how long a pending pod of a schedulerName other than default-scheduler may wait before it is reported as unserved")
	// Unset, library-go picks the timings by control-plane topology (HA: a
	// 137s lease, so a replica that replaces a killed one waits up to 163s).
	c.Flags().DurationVar(&cfg.LeaseDuration.Duration, "leader-elect-lease-duration", 0,
		"how long a replica waits for a leader that stopped renewing before it takes over (0: library-go's default for the cluster's topology)")
	c.Flags().DurationVar(&cfg.RenewDeadline.Duration, "leader-elect-renew-deadline", 0,
		"how long the leader retries renewing before it gives up leading (0: the default)")
	c.Flags().DurationVar(&cfg.RetryPeriod.Duration, "leader-elect-retry-period", 0,
		"how often a replica tries to take or renew the lease (0: the default)")
	return c
}
