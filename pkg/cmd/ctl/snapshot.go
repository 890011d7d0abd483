package ctl

// The snapshot command, and the trial of a snapshot file: a trial taken in
// two steps, the snapshot where the cluster can be read, the trial where it
// cannot (a CI job without credentials).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/gather"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// SnapshotOptions are the snapshot command's flags.
type SnapshotOptions struct {
	Kubeconfig string
	// Output is the file written; "-" is standard output.
	Output        string
	Replay        int
	ReplayPending int
	// SchedulerNames are profiles replayed besides the served configuration's.
	SchedulerNames []string
}

func newSnapshotCommand() *cobra.Command {
	o := &SnapshotOptions{}
	c := &cobra.Command{
		Use:   "snapshot -o FILE [--kubeconfig FILE]",
		Short: "Write the snapshot a trial takes of the cluster to a file, for trial --snapshot where the cluster cannot be reached",
		Long: `Takes the snapshot trial takes (read-only on the cluster, trimmed to what
scheduling reads: no env value, no Secret or ConfigMap reference), with the
scheduler that serves and what the change is rendered with (the cluster's
observed configuration, the serving certificate's presence, the operand
namespace's Pod Security level, the rules spec.rbac is held to), and writes it
to FILE as a gzip-compressed TrialSnapshot (docs/trial.md, "Trials in CI").

The replay set is chosen now: the pending pods of the served configuration's
profiles (and of --scheduler-name), and the last --replay pods they bound.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return RunSnapshot(c.Context(), o, c.OutOrStdout(), c.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "the file to write (- for standard output)")
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "the cluster's kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
	f.IntVar(&o.Replay, "replay", secondaryschedulerv1.DefaultTrialReplayBound, "how many of the pods the scheduler bound last to replay, besides the pending ones "+
		"(spec.rollout.trial.replayBound)")
	f.IntVar(&o.ReplayPending, "replay-pending", secondaryschedulerv1.DefaultTrialReplayPending, "how many of the pending pods to replay, "+
		"taken round-robin across namespaces (spec.rollout.trial.replayPending)")
	f.StringArrayVar(&o.SchedulerNames, "scheduler-name", nil, "replay the pods of this profile too (for a change that adds a profile)")
	return c
}

// RunSnapshot is the snapshot command.
func RunSnapshot(ctx context.Context, o *SnapshotOptions, stdout, stderr io.Writer) error {
	if o.Output == "" {
		return errors.New("--output: name the file to write the snapshot to (- for standard output)")
	}
	if o.Replay < 0 {
		return fmt.Errorf("--replay: %d is negative", o.Replay)
	}
	if o.ReplayPending < 0 {
		return fmt.Errorf("--replay-pending: %d is negative", o.ReplayPending)
	}
	config, err := clusterConfig(o.Kubeconfig)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	cluster, current, err := readCluster(ctx, config, kube)
	if err != nil {
		return err
	}
	profiles, err := replayedProfiles(current, cluster.ServedFrom, o.SchedulerNames)
	if err != nil {
		return err
	}
	snap, _, err := takeSnapshot(ctx, config, kube, profiles, trial.ReplayBounds{Pending: o.ReplayPending, Bound: o.Replay}, stderr)
	if err != nil {
		return err
	}
	section, err := json.Marshal(cluster)
	if err != nil {
		return err
	}
	f := &trial.SnapshotFile{TakenAt: metav1.Now().Rfc3339Copy(), SchedulerNames: profiles, Replay: trial.ReplayBounds{Pending: o.ReplayPending, Bound: o.Replay},
		Current: current, Cluster: section, Snapshot: snap}
	if err := writeSnapshot(o.Output, stdout, f); err != nil {
		return fmt.Errorf("--output %s: %w", o.Output, err)
	}
	fmt.Fprintf(stderr, "snapshot: %d nodes, %d bound pods, %d to replay written to %s\n", len(snap.Nodes), snap.Pods.Len(), len(snap.Replay), o.Output)
	return nil
}

// writeSnapshot writes f to path, whole or not at all, or to stdout for "-".
func writeSnapshot(path string, stdout io.Writer, f *trial.SnapshotFile) error {
	if path == "-" {
		return trial.WriteSnapshotFile(stdout, f)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if err := errors.Join(trial.WriteSnapshotFile(tmp, f), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// snapshotCluster is the cluster section of a snapshot file: what a trial
// reads of the cluster besides the snapshot and the scheduler that serves,
// which the candidate is rendered with (the inputs of render.Inputs that come
// from the cluster). No Secret is read but for its presence.
type snapshotCluster struct {
	// ServedFrom is the ConfigMap the current configuration was read from.
	ServedFrom string `json:"servedFrom"`
	// ObservedConfig is the cluster's SecondaryScheduler's spec.observedConfig.
	ObservedConfig json.RawMessage `json:"observedConfig,omitempty"`
	// ServingCertAvailable says the serving certificate's Secret exists.
	ServingCertAvailable bool `json:"servingCertAvailable"`
	// PodSecurityEnforce is the operand namespace's enforced level.
	PodSecurityEnforce string `json:"podSecurityEnforce,omitempty"`
	// GrantableRules are the rules spec.rbac is held to; absent when their
	// ClusterRole does not exist.
	GrantableRules *[]rbacv1.PolicyRule `json:"grantableRules,omitempty"`
}

// readCluster reads what a snapshot file holds besides the snapshot: the
// cluster section, from the inputs the operator's sync gathers, and the
// scheduler that serves.
func readCluster(ctx context.Context, config *rest.Config, kube kubernetes.Interface) (*snapshotCluster, trial.Arm, error) {
	crs, err := versioned.NewForConfig(config)
	if err != nil {
		return nil, trial.Arm{}, err
	}
	live, err := liveScheduler(ctx, crs)
	if err != nil {
		return nil, trial.Arm{}, err
	}
	served, servedFrom, err := servedConfig(ctx, kube)
	if err != nil {
		return nil, trial.Arm{}, err
	}
	current, err := servedArm(ctx, kube, served, servedFrom)
	if err != nil {
		return nil, trial.Arm{}, err
	}
	// A SecondaryScheduler naming no ConfigMap: Gather reads only what comes from the cluster.
	bare := &secondaryschedulerv1.SecondaryScheduler{}
	gathered, err := gather.Gather(bare, rollout.Record{}, liveSources(ctx, kube, &renderInput{scheduler: bare}))
	if err != nil {
		return nil, trial.Arm{}, err
	}
	r := gathered.Render
	c := &snapshotCluster{ServedFrom: servedFrom, ServingCertAvailable: r.ServingCertAvailable, PodSecurityEnforce: r.PodSecurityEnforce}
	if live != nil {
		c.ObservedConfig = live.Spec.ObservedConfig.Raw
	}
	if r.Ceiling != nil && r.Ceiling.Role != nil {
		c.GrantableRules = &r.Ceiling.Role.Rules
	}
	return c, current, nil
}

// renderInputs are the render inputs of the change in, for the cluster c
// describes: the inverse of readCluster.
func (c *snapshotCluster) renderInputs(in *renderInput) (render.Inputs, error) {
	if err := observeCluster(in, c.ObservedConfig); err != nil {
		return render.Inputs{}, err
	}
	ceiling := &render.Ceiling{}
	if c.GrantableRules != nil {
		ceiling.Role = &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: names.GrantableClusterRole}, Rules: *c.GrantableRules}
	}
	ss := in.scheduler
	return render.Inputs{SecondaryScheduler: ss, UserConfig: in.userConfig(ss.Spec.SchedulerConfig),
		ServingCertAvailable: c.ServingCertAvailable, PodSecurityEnforce: c.PodSecurityEnforce, Ceiling: ceiling}, nil
}

// trialFromFile reads the change of files and the snapshot file path, and
// renders the change for the cluster the file describes; no cluster is read.
func trialFromFile(path string, files []string, stdin io.Reader) (*trialInput, error) {
	start := time.Now()
	f, err := readSnapshotFlag(path)
	if err != nil {
		return nil, err
	}
	cluster := &snapshotCluster{}
	d := json.NewDecoder(bytes.NewReader(f.Cluster))
	d.DisallowUnknownFields()
	if err := d.Decode(cluster); err != nil {
		return nil, fmt.Errorf("--snapshot %s: its cluster section: %w", path, err)
	}
	in, err := readChange(files, stdin)
	if err != nil {
		return nil, err
	}
	inputs, err := cluster.renderInputs(in)
	if err != nil {
		return nil, err
	}
	objs, err := render.Render(inputs)
	if err != nil {
		return nil, err
	}
	for _, name := range objs.SchedulerNames {
		if !slices.Contains(f.SchedulerNames, name) {
			return nil, fmt.Errorf("--snapshot %s: the change's profile %s is not replayed by the snapshot (taken for %s): "+
				"take it again with --scheduler-name %s", path, name, strings.Join(f.SchedulerNames, ", "), name)
		}
	}
	return &trialInput{objs: objs, current: f.Current, servedFrom: cluster.ServedFrom, snap: f.Snapshot, took: time.Since(start)}, nil
}

// readSnapshotFlag reads the file of --snapshot, its errors naming the flag.
func readSnapshotFlag(path string) (*trial.SnapshotFile, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--snapshot: %w", err)
	}
	defer file.Close()
	f, err := trial.ReadSnapshotFile(file)
	if err != nil {
		return nil, fmt.Errorf("--snapshot %s: %w; write one with secondary-scheduler-ctl snapshot -o FILE", path, err)
	}
	// Its documents are parsed later (the cluster section here, the current
	// configuration by the sandbox's): bounded first, as the operator's are.
	for _, doc := range []struct {
		what string
		data []byte
	}{{"its cluster section", f.Cluster}, {"its currentConfig", f.Current.Config}} {
		if err := schedulerconfig.CheckDocument(doc.data); err != nil {
			return nil, fmt.Errorf("--snapshot %s: %s: %w; take the snapshot again with secondary-scheduler-ctl snapshot -o FILE", path, doc.what, err)
		}
	}
	return f, nil
}
