package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
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
	Timeout            time.Duration
	MaxNewly           int
	// MaxMovedPercent is nil for no bound.
	MaxMovedPercent *float64
	Output          string
	WorkDir         string
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
		Use:   "trial -f FILE [-f FILE ...] [--kubeconfig FILE]",
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
change: the command exits 2. It exits 1 when the trial cannot run. docs/trial.md
says what a trial can and cannot predict.`,
		Args: cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			if maxMoved >= 0 {
				o.MaxMovedPercent = &maxMoved
			}
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
	f.DurationVar(&o.Timeout, "timeout", trial.DefaultTimeout, "how long each scheduler may take to place the replayed pods")
	f.IntVar(&o.MaxNewly, "max-newly-unschedulable", 0, "the gate: how many units may become unschedulable")
	f.Float64Var(&maxMoved, "max-moved-percent", -1, "the gate: the share of units that may move, in percent (negative: no bound)")
	f.StringVarP(&o.Output, "output", "o", "text", "text, json or html (one self-contained page)")
	f.StringVar(&o.WorkDir, "work-dir", "", "keep each arm's configuration and scheduler log here (default: a temporary directory, removed)")
	return c
}

// RunTrial is the trial command. It returns an error wrapping ErrTrialBlocked,
// after the report is written, when the gate blocks the change.
func RunTrial(ctx context.Context, o *TrialOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.Output != "text" && o.Output != "json" && o.Output != "html" {
		return fmt.Errorf("--output: %q is not text, json or html", o.Output)
	}
	if o.Replay < 0 {
		return fmt.Errorf("--replay: %d is negative", o.Replay)
	}
	ch, err := loadChange(ctx, o.Files, o.Kubeconfig, stdin)
	if err != nil {
		return err
	}
	objs, servedFrom := ch.objs, ch.servedFrom
	if servedFrom == "" {
		return fmt.Errorf("no scheduler runs in the cluster (no Deployment %s/%s): there is nothing to try the change against",
			names.OperandNamespace, names.OperandName)
	}
	binDir, err := trialBinDir(o.BinDir)
	if err != nil {
		return err
	}
	current, candidate, err := trialArms(ctx, ch.kube, o, binDir, ch.served, objs)
	if err != nil {
		return err
	}
	snap, took, err := takeSnapshot(ctx, ch, current, o.Replay, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "trial: %d nodes, %d bound pods, %d to replay; current: ConfigMap %s on %s, candidate: ConfigMap %s on %s\n",
		len(snap.Nodes), snap.Pods.Len(), len(snap.Replay), servedFrom, current.Binary, objs.ConfigMap.Name, candidate.Binary)
	gate := trial.Gate{MaxNewlyUnschedulable: o.MaxNewly, MaxMovedPercent: o.MaxMovedPercent}
	dir, removeDir, err := workDir(o.WorkDir)
	if err != nil {
		return err
	}
	defer removeDir()
	report, err := trial.Run(ctx, trial.Options{Snapshot: snap, Current: current, Candidate: candidate,
		Runtime: o.NewRuntime(binDir, dir), Timeout: o.Timeout, Gate: gate, Inspect: o.Inspect})
	if err != nil {
		return err
	}
	if o.WorkDir == "" { // the logs went with the temporary directory
		report.Current.Log, report.Candidate.Log = "", ""
	}
	report.Timings.Snapshot = took
	report.Timings.Total += took
	switch o.Output {
	case "json":
		err = report.WriteJSON(stdout)
	case "html":
		err = report.WriteHTML(stdout)
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

// takeSnapshot takes the snapshot of the cluster for the profiles of both
// configurations, and says how long it took.
func takeSnapshot(ctx context.Context, ch *change, current trial.Arm, replay int, stderr io.Writer) (*trial.Snapshot, time.Duration, error) {
	names, err := trial.SchedulerNames(current.Config)
	if err != nil {
		return nil, 0, fmt.Errorf("the served configuration (ConfigMap %s): %w", ch.servedFrom, err)
	}
	names = append(names, ch.objs.SchedulerNames...)
	slices.Sort(names)
	names = slices.Compact(names)
	// envtest logs through controller-runtime, which warns when no logger is set.
	ctrllog.SetLogger(klog.NewKlogr().WithName("trial-sandbox"))
	dyn, err := dynamic.NewForConfig(ch.config)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	fmt.Fprintf(stderr, "trial: taking the snapshot (schedulers %s, replaying the last %d bound)\n", strings.Join(names, ", "), replay)
	snap, err := trial.Take(ctx, trial.Source{Kube: ch.kube, Dynamic: dyn}, names, replay)
	if err != nil {
		return nil, 0, fmt.Errorf("taking the snapshot: %w", err)
	}
	return snap, time.Since(start), nil
}

// trialArms are the current scheduler (the served configuration, the running
// image's binary) and the candidate (the rendered ones).
func trialArms(ctx context.Context, kube kubernetes.Interface, o *TrialOptions, binDir, served string, objs *render.Objects) (trial.Arm, trial.Arm, error) {
	d, err := kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		return trial.Arm{}, trial.Arm{}, err
	}
	// The arguments as the pods run them: the feature gates the operator's trial passes too.
	current := trial.Arm{Name: "current", Binary: o.Current, Config: []byte(served), Args: rollout.TrialArm(d, "").Args}
	candidate := trial.Arm{Name: "candidate", Binary: o.Candidate, Config: []byte(objs.ConfigMap.Data[names.ConfigKey]),
		Args: rollout.TrialArm(objs.Deployment, "").Args}
	for _, a := range []struct {
		arm  *trial.Arm
		d    *appsv1.Deployment
		flag string
	}{{&current, d, "--current-scheduler"}, {&candidate, objs.Deployment, "--candidate-scheduler"}} {
		if a.arm.Binary == "" {
			if a.arm.Binary, err = schedulerBinary(binDir, rollout.SchedulerImage(a.d)); err != nil {
				return trial.Arm{}, trial.Arm{}, fmt.Errorf("%s: %w", a.flag, err)
			}
		}
	}
	return current, candidate, nil
}

// schedulerBinary is the local build of an image: scheduler-plugins' for its
// images, kube-scheduler otherwise; in binDir, or else on $PATH.
func schedulerBinary(binDir, image string) (string, error) {
	name := "kube-scheduler"
	if strings.Contains(image, "/scheduler-plugins/") {
		name = "scheduler-plugins"
	}
	p := filepath.Join(binDir, name)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("image %s runs %s, which is neither in %s nor on $PATH; name a binary", image, name, binDir)
}

// trialBinDir resolves --bin-dir's default.
func trialBinDir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if d := os.Getenv("KUBEBUILDER_ASSETS"); d != "" {
		return d, nil
	}
	var candidates []string
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			candidates = append(candidates, filepath.Join(dir, "_output", "controlplane", "bin"))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", "controlplane", "bin"))
	}
	for _, d := range candidates {
		if fi, err := os.Stat(filepath.Join(d, "kube-apiserver")); err == nil && !fi.IsDir() {
			return d, nil
		}
	}
	return "", errors.New("--bin-dir: no kube-apiserver found in _output/controlplane/bin of the working directory's repository " +
		"nor beside this executable; build them with hack/controlplane/build.sh or name the directory")
}
