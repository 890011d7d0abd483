package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// TrialOptions are the trial command's flags.
type TrialOptions struct {
	Files      []string
	Kubeconfig string
	// BinDir holds the sandbox's etcd and kube-apiserver, and the default schedulers.
	BinDir             string
	Current, Candidate string
	Replay             int
	ReplayPending      int
	Timeout            time.Duration
	MaxNewly           int
	// MaxMovedPercent is nil for no bound.
	MaxMovedPercent *float64
	// MinFidelityPercent is the gate's floor of the recently bound pods the
	// current arm must place (trial.Gate.MinFidelityPercent); 0 sets none.
	MinFidelityPercent float64
	Output             string
	WorkDir            string
	// Snapshot is a file snapshot wrote: the trial reads no cluster.
	Snapshot string
	// ReplayGiven says --replay was given, which a snapshot file refuses.
	ReplayGiven bool
	// ArmsAtOnce is trial.Options.ArmsAtOnce.
	ArmsAtOnce int
	// Inspect is trial.Options.Inspect (tests).
	Inspect func(arm string, sandbox *rest.Config) error
	// NewRuntime runs the arms.
	NewRuntime NewRuntime
}

// NewRuntime is a runtime that runs arms on this machine, their sandboxes
// from binDir, keeping their files in dir.
type NewRuntime func(binDir, dir string) trial.Runtime

// ErrTrialBlocked is returned, after the report is written, when the gate
// blocks the change; the command exits 2.
var ErrTrialBlocked = errors.New("the trial blocks the change")

// newTrialCommand is trial: a change tried on a copy of the cluster.
func newTrialCommand(newRuntime NewRuntime) *cobra.Command {
	o := &TrialOptions{NewRuntime: newRuntime}
	maxMoved := -1.0
	c := &cobra.Command{
		Use:   "trial -f FILE [-f FILE ...] [--kubeconfig FILE | --snapshot FILE]",
		Short: "Try a SecondaryScheduler change on a copy of the cluster: which placements move, which pods become unschedulable",
		Long: `Reads the same input as render and diff (a SecondaryScheduler, the ConfigMap
its spec.schedulerConfig names), renders the scheduler configuration the
operator would roll out, and tries it against the one the cluster serves now:

  - takes a snapshot of the cluster (read-only there): nodes, bound pods,
    volumes, classes, namespaces, PodGroups and ElasticQuotas, trimmed to what
    scheduling reads (no env value, no Secret or ConfigMap reference);
  - replays the pending pods of the scheduler's profiles and the last --replay
    pods it bound, in two sandboxes (etcd and kube-apiserver from --bin-dir):
    one scheduled by the current scheduler with the served configuration, one
    by the candidate with the rendered configuration;
  - prints per pod (a PodGroup's pods count as one unit): same node, moved,
    newly unschedulable (with the scheduler's reason and plugin), newly
    schedulable, and the pods per node.

The gate: more than --max-newly-unschedulable newly unschedulable units, or
more than --max-moved-percent of the units placed by both moved, blocks the
change: the command exits 2 (and when units are left undecided, or when the
current scheduler places fewer than --min-fidelity-percent of the recently
bound pods replayed: the copy does not hold what the live scheduler placed
them with, and the trial is inconclusive). It exits 1 when the trial cannot
run. docs/trial.md says what a trial can and cannot
predict.

With --snapshot FILE, the cluster is read from a file the snapshot command
wrote (its snapshot, replay set, the scheduler that serves and what the change
is rendered with), and no kubeconfig is needed: a trial in CI.`,
		Args: cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			if maxMoved >= 0 {
				o.MaxMovedPercent = &maxMoved
			}
			o.ReplayGiven = c.Flags().Changed("replay") || c.Flags().Changed("replay-pending")
			err := RunTrial(c.Context(), o, c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr())
			switch {
			case errors.Is(err, ErrTrialBlocked):
				fmt.Fprintln(c.ErrOrStderr(), "error: "+err.Error())
				exit(2)
			case err != nil:
				printRenderError(c.ErrOrStderr(), err)
				exit(1)
			}
		},
	}
	f := c.Flags()
	f.StringArrayVarP(&o.Files, "filename", "f", nil, "a YAML file of input objects; - reads standard input")
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "the cluster's kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
	f.StringVar(&o.BinDir, "bin-dir", "", "the directory of etcd and kube-apiserver for the sandboxes, and of the default schedulers "+
		"(default: $KUBEBUILDER_ASSETS, else _output/controlplane/bin of the repository holding the working directory, "+
		"else ../controlplane/bin beside this executable, as make build and make controlplane lay them out)")
	f.StringVar(&o.Current, "current-scheduler", "", "the current scheduler's binary (default: by the running image: "+
		"scheduler-plugins for a scheduler-plugins image, else kube-scheduler, in --bin-dir or else on $PATH)")
	f.StringVar(&o.Candidate, "candidate-scheduler", "", "the candidate scheduler's binary (default: by spec.schedulerImage, as --current-scheduler)")
	f.IntVar(&o.Replay, "replay", secondaryschedulerv1.DefaultTrialReplayBound, "how many of the pods the scheduler bound last to replay, besides the pending ones "+
		"(spec.rollout.trial.replayBound)")
	f.IntVar(&o.ReplayPending, "replay-pending", secondaryschedulerv1.DefaultTrialReplayPending, "how many of the pending pods to replay, "+
		"taken round-robin across namespaces (spec.rollout.trial.replayPending)")
	f.DurationVar(&o.Timeout, "timeout", trial.DefaultTimeout, "how long each scheduler may take to place the replayed pods")
	f.IntVar(&o.MaxNewly, "max-newly-unschedulable", 0, "the gate: how many units may become unschedulable")
	f.Float64Var(&maxMoved, "max-moved-percent", -1, "the gate: the share of units that may move, in percent (negative: no bound)")
	f.Float64Var(&o.MinFidelityPercent, "min-fidelity-percent", secondaryschedulerv1.DefaultTrialMinFidelityPercent,
		"the least share of the recently bound pods replayed that the current scheduler must place again, in percent, "+
			"or the trial is inconclusive (spec.rollout.trial.minFidelityPercent; 0: no floor)")
	f.StringVarP(&o.Output, "output", "o", "text", "text, json, junit (a testsuite: a blocked change fails, an inconclusive or failed trial is in error) or html (one self-contained page)")
	f.StringVar(&o.Snapshot, "snapshot", "", "try the change on a file the snapshot command wrote, reading no cluster (instead of --kubeconfig)")
	f.IntVar(&o.ArmsAtOnce, "arms-at-once", 3, "how many of the three arms (current, candidate, the current one again) run at the same time; "+
		"each holds the whole snapshot in its etcd, kube-apiserver and scheduler, so 1 needs a third of the memory and takes about three times as long")
	f.StringVar(&o.WorkDir, "work-dir", "", "keep each arm's configuration and scheduler log here (default: a temporary directory, removed)")
	return c
}

// trialOutputs are the formats of -o, each a writer of the report.
var trialOutputs = []string{"text", "json", "junit", "html"}

// RunTrial is the trial command. It returns an error wrapping ErrTrialBlocked,
// after the report is written, when the gate blocks the change. With -o
// junit, a trial that cannot run is written as a testcase in error too.
func RunTrial(ctx context.Context, o *TrialOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	err := runTrial(ctx, o, stdin, stdout, stderr)
	if err != nil && o.Output == "junit" && !errors.Is(err, ErrTrialBlocked) {
		return errors.Join(err, trial.WriteJUnitError(stdout, err))
	}
	return err
}

// trialInput is what a trial runs: the change rendered, the scheduler that
// serves (its configuration from ConfigMap servedFrom) and the snapshot,
// from the cluster or from a snapshot file.
type trialInput struct {
	objs       *render.Objects
	current    trial.Arm
	servedFrom string
	snap       *trial.Snapshot
	took       time.Duration
}

func runTrial(ctx context.Context, o *TrialOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := o.check(); err != nil {
		return err
	}
	var in *trialInput
	var err error
	if o.Snapshot != "" {
		in, err = trialFromFile(o.Snapshot, o.Files, stdin)
	} else {
		in, err = trialFromCluster(ctx, o, stdin, stderr)
	}
	if err != nil {
		return err
	}
	binDir, err := trialBinDir(o.BinDir)
	if err != nil {
		return err
	}
	current, candidate, err := trialArms(o, binDir, in.current, in.objs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "trial: %d nodes, %d bound pods, %d to replay; current: ConfigMap %s on %s, candidate: ConfigMap %s on %s\n",
		len(in.snap.Nodes), in.snap.Pods.Len(), len(in.snap.Replay), in.servedFrom, current.Binary, in.objs.ConfigMap.Name, candidate.Binary)
	gate := trial.Gate{MaxNewlyUnschedulable: o.MaxNewly, MaxMovedPercent: o.MaxMovedPercent, MinFidelityPercent: o.MinFidelityPercent}
	dir, removeDir, err := workDir(o.WorkDir)
	if err != nil {
		return err
	}
	defer removeDir()
	report, err := trial.Run(ctx, trial.Options{Snapshot: in.snap, Current: current, Candidate: candidate,
		Runtime: o.NewRuntime(binDir, dir), Timeout: o.Timeout, Gate: gate, Inspect: o.Inspect, ArmsAtOnce: o.ArmsAtOnce})
	if err != nil {
		return err
	}
	if o.WorkDir == "" { // the logs went with the temporary directory
		report.Current.Log, report.Candidate.Log, report.Rerun.Log = "", "", ""
	}
	report.Timings.Snapshot = in.took
	report.Timings.Total += in.took
	switch o.Output {
	case "json":
		err = report.WriteJSON(stdout)
	case "html":
		err = report.WriteHTML(stdout)
	case "junit":
		err = report.WriteJUnit(stdout)
	default:
		err = report.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if !report.Verdict.Allowed {
		return fmt.Errorf("%w: %s", ErrTrialBlocked, report.Verdict.Message)
	}
	return nil
}

// check refuses flags that cannot go together, before anything is read.
func (o *TrialOptions) check() error {
	switch {
	case !slices.Contains(trialOutputs, o.Output):
		return fmt.Errorf("--output: %q is none of %s", o.Output, strings.Join(trialOutputs, ", "))
	case o.Replay < 0:
		return fmt.Errorf("--replay: %d is negative", o.Replay)
	case o.ReplayPending < 0:
		return fmt.Errorf("--replay-pending: %d is negative", o.ReplayPending)
	case o.ArmsAtOnce < 0 || o.ArmsAtOnce > 3:
		return fmt.Errorf("--arms-at-once: %d is not 1, 2 or 3 (0: all three)", o.ArmsAtOnce)
	case o.MinFidelityPercent < 0 || o.MinFidelityPercent > 100:
		return fmt.Errorf("--min-fidelity-percent: %g is not a percent from 0 to 100", o.MinFidelityPercent)
	case o.Snapshot != "" && o.Kubeconfig != "":
		return errors.New("--snapshot and --kubeconfig: a trial reads the cluster from one of them; give one")
	case o.Snapshot != "" && o.ReplayGiven:
		return errors.New("--replay: the replay set comes from the --snapshot file; take the snapshot with --replay instead")
	}
	return nil
}

// trialFromCluster reads the change's cluster: renders the change for it,
// reads the scheduler that serves and takes the snapshot.
func trialFromCluster(ctx context.Context, o *TrialOptions, stdin io.Reader, stderr io.Writer) (*trialInput, error) {
	ch, err := loadChange(ctx, o.Files, o.Kubeconfig, stdin)
	if err != nil {
		return nil, err
	}
	current, err := servedArm(ctx, ch.kube, ch.served, ch.servedFrom)
	if err != nil {
		return nil, err
	}
	names, err := replayedProfiles(current, ch.servedFrom, ch.objs.SchedulerNames)
	if err != nil {
		return nil, err
	}
	snap, took, err := takeSnapshot(ctx, ch.config, ch.kube, names, trial.ReplayBounds{Pending: o.ReplayPending, Bound: o.Replay}, stderr)
	if err != nil {
		return nil, err
	}
	return &trialInput{objs: ch.objs, current: current, servedFrom: ch.servedFrom, snap: snap, took: took}, nil
}

// servedArm is the scheduler the Deployment runs, with served, its
// configuration from ConfigMap servedFrom ("" when no Deployment exists).
func servedArm(ctx context.Context, kube kubernetes.Interface, served, servedFrom string) (trial.Arm, error) {
	if servedFrom == "" {
		return trial.Arm{}, fmt.Errorf("no scheduler runs in the cluster (no Deployment %s/%s): there is nothing to try the change against",
			names.OperandNamespace, names.OperandName)
	}
	// Read from the cluster: bounded before anything parses it (the profiles replayed, the sandbox's configuration).
	if err := schedulerconfig.CheckDocument([]byte(served)); err != nil {
		return trial.Arm{}, fmt.Errorf("the served configuration (ConfigMap %s/%s): %w", names.OperandNamespace, servedFrom, err)
	}
	d, err := kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		return trial.Arm{}, err
	}
	// The arguments as the pods run them: the feature gates the operator's trial passes too.
	a := rollout.TrialArm(d, "")
	return trial.Arm{Name: "current", Image: a.Image, Command: a.Command, Args: a.Args, Config: []byte(served)}, nil
}

// replayedProfiles are the scheduler names of the current configuration's
// profiles and of more, sorted: the pods of either arm are replayed.
func replayedProfiles(current trial.Arm, servedFrom string, more []string) ([]string, error) {
	profiles, err := trial.SchedulerNames(current.Config)
	if err != nil {
		return nil, fmt.Errorf("the served configuration (ConfigMap %s): %w", servedFrom, err)
	}
	profiles = append(profiles, more...)
	slices.Sort(profiles)
	return slices.Compact(profiles), nil
}

// workDir is flag, or a temporary directory that remove removes.
func workDir(flag string) (dir string, remove func(), err error) {
	if flag != "" {
		return flag, func() {}, nil
	}
	if dir, err = os.MkdirTemp("", "secondary-scheduler-trial-"); err != nil {
		return "", nil, err
	}
	return dir, func() { _ = os.RemoveAll(dir) }, nil
}

// takeSnapshot takes the snapshot of the cluster for the profiles of
// schedulerNames, and says how long it took.
func takeSnapshot(ctx context.Context, config *rest.Config, kube kubernetes.Interface, schedulerNames []string, bounds trial.ReplayBounds, stderr io.Writer) (*trial.Snapshot, time.Duration, error) {
	// envtest logs through controller-runtime, which warns when no logger is set.
	ctrllog.SetLogger(klog.NewKlogr().WithName("trial-sandbox"))
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	fmt.Fprintf(stderr, "trial: taking the snapshot (schedulers %s, replaying up to %d pending and the last %d bound)\n",
		strings.Join(schedulerNames, ", "), bounds.Pending, bounds.Bound)
	snap, err := trial.Take(ctx, trial.Source{Kube: kube, Dynamic: dyn}, schedulerNames, bounds)
	if err != nil {
		return nil, 0, fmt.Errorf("taking the snapshot: %w", err)
	}
	return snap, time.Since(start), nil
}
