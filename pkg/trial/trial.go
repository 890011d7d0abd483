package trial

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Options say what to try.
type Options struct {
	// Snapshot is what both sandboxes are seeded with (Take).
	Snapshot *Snapshot
	// Current is the scheduler that runs now, Candidate the one that would replace it.
	Current, Candidate Arm
	// Runtime runs the arms.
	Runtime Runtime
	// Timeout bounds each arm's scheduling; 0 means DefaultTimeout.
	Timeout time.Duration
	Gate    Gate
	// Inspect, when set, is called with each arm's sandbox once its
	// scheduler has placed the replay set, before the sandbox stops.
	Inspect func(arm string, sandbox *rest.Config) error
	// ArmsAtOnce is how many arms run at the same time: 0 (or 3 and more)
	// all three. Each arm's sandbox and scheduler hold the whole snapshot, so
	// one at a time needs a third of the memory and takes about the sum of
	// the arms' times.
	ArmsAtOnce int
}

// DefaultTimeout is how long an arm may take by default.
const DefaultTimeout = 2 * time.Minute

// ArmReport is what one arm did.
type ArmReport struct {
	Arm
	Bound         int `json:"bound"`
	Unschedulable int `json:"unschedulable"`
	// Undecided pods were neither bound nor reported within the timeout.
	Undecided int `json:"undecided"`
	// Log is where the scheduler's log is kept ("" when the runtime keeps none).
	Log string `json:"log,omitempty"`
	// ImageID is the image the scheduler ran, as the runtime resolved it
	// (ImageIdentifier); "" when the runtime does not say.
	ImageID string `json:"imageID,omitempty"`
	// Fence is whether its scheduler was known to see the whole seed before
	// the replay set reached it, and when ("" with nothing to fence).
	Fence string `json:"fence,omitempty"`
	// Settled says how its scheduler was judged done: its queues idle by its
	// own metrics, or its pods taken at their word where the metrics could
	// not be read.
	Settled string `json:"settled,omitempty"`
	// Start, Seed and Schedule are how long its sandbox took to start and
	// seed, and its scheduler to place the replay set.
	Start    time.Duration `json:"startNanos"`
	Seed     time.Duration `json:"seedNanos"`
	Schedule time.Duration `json:"scheduleNanos"`
}

// Report is a trial's result.
type Report struct {
	Current   ArmReport `json:"current"`
	Candidate ArmReport `json:"candidate"`
	// Rerun is the current configuration's second run (RerunArm).
	Rerun ArmReport `json:"rerun"`
	// Snapshot counts what the sandboxes were seeded with.
	Snapshot SnapshotCounts `json:"snapshot"`
	Comparison
	// Gate is what Verdict was judged by.
	Gate    Gate    `json:"gate"`
	Verdict Verdict `json:"verdict"`
	Timings Timings `json:"timings"`
}

// SnapshotCounts summarises a snapshot.
type SnapshotCounts struct {
	Nodes  int `json:"nodes"`
	Pods   int `json:"pods"`
	Replay int `json:"replay"`
	// Sample is how the replay set was drawn from each namespace.
	Sample Sample `json:"sample"`
}

// Timings are the parts of a trial. The arms run side by side: Start, Seed
// and Schedule are the slower arm's.
type Timings struct {
	// Snapshot is set by the caller that took it.
	Snapshot time.Duration `json:"snapshotNanos"`
	Start    time.Duration `json:"startNanos"`
	Seed     time.Duration `json:"seedNanos"`
	Schedule time.Duration `json:"scheduleNanos"`
	Compare  time.Duration `json:"compareNanos"`
	// Total is from Run's start to the verdict.
	Total time.Duration `json:"totalNanos"`
}

// Run seeds a sandbox per arm with the snapshot, runs each arm's scheduler in
// its own (the current one twice: Arm.Rerun), compares the placements and
// judges them by the gate. An error
// means the trial could not run (a sandbox did not start, a scheduler
// exited): it says nothing of the candidate.
func Run(ctx context.Context, o Options) (*Report, error) {
	start := time.Now()
	if o.Snapshot == nil || o.Runtime == nil {
		return nil, errors.New("trial: a snapshot and a runtime are needed")
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	arms := []Arm{o.Current, o.Candidate, o.Current.Rerun()}
	load := LoadOf(o.Snapshot)
	for i := range arms {
		arms[i].Holds = load
	}
	reports := make([]ArmReport, len(arms))
	runs := make([]Outcome, len(arms))
	errs := make([]error, len(arms))
	atOnce := o.ArmsAtOnce
	if atOnce <= 0 || atOnce > len(arms) {
		atOnce = len(arms)
	}
	slots := make(chan struct{}, atOnce)
	var wg sync.WaitGroup
	for i := range arms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			reports[i], runs[i], errs[i] = runArm(ctx, o, arms[i])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	compareStart := time.Now()
	c := Compare(o.Snapshot.Replay, runs[0], runs[1], runs[2])
	c.Fidelity = MeasureFidelity(c.Pods, o.Snapshot.LiveNodes)
	r := &Report{Current: reports[0], Candidate: reports[1], Rerun: reports[2], Comparison: c, Gate: o.Gate, Verdict: o.Gate.Check(c),
		Snapshot: SnapshotCounts{Nodes: len(o.Snapshot.Nodes), Pods: o.Snapshot.Pods.Len(), Replay: len(o.Snapshot.Replay),
			Sample: summarize(o.Snapshot.Sampled)}}
	r.Timings.Compare = time.Since(compareStart)
	for _, a := range reports {
		r.Timings.Start = max(r.Timings.Start, a.Start)
		r.Timings.Seed = max(r.Timings.Seed, a.Seed)
		r.Timings.Schedule = max(r.Timings.Schedule, a.Schedule)
	}
	r.Timings.Total = time.Since(start)
	return r, nil
}

// runArm starts, seeds and stops one sandbox around one scheduler.
func runArm(ctx context.Context, o Options, arm Arm) (ArmReport, Outcome, error) {
	rep := ArmReport{Arm: arm}
	t := time.Now()
	sb, storage, written, err := start(ctx, o, arm)
	if err != nil {
		return rep, nil, err
	}
	rep.Log = sb.Log()
	stop := func(err error) error {
		// Stopped even when ctx is done: nothing may outlive the trial.
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
		defer cancel()
		return errors.Join(err, sb.Stop(stopCtx))
	}
	// What was written into the storage counts as seeding, not as the start.
	rep.Start, t = time.Since(t)-written, time.Now().Add(-written)
	s, err := newSeeder(sb.Config())
	if err != nil {
		return rep, nil, stop(err)
	}
	if err := seedArm(ctx, s, sb, storage, o.Snapshot, &rep); err != nil {
		return rep, nil, stop(errors.Join(fmt.Errorf("%s sandbox: %w", arm.Name, err), sb.Failed(ctx)))
	}
	rep.Seed, t = time.Since(t), time.Now()
	run, settled, err := schedule(ctx, sb, s, arm, len(o.Snapshot.Replay), o.Timeout)
	if err != nil {
		return rep, nil, stop(err)
	}
	rep.Schedule, rep.Settled = time.Since(t), settled
	rep.count(run, len(o.Snapshot.Replay))
	if id, ok := sb.(ImageIdentifier); ok {
		rep.ImageID = id.ImageID(ctx)
	}
	if o.Inspect != nil {
		if err := o.Inspect(arm.Name, sb.Config()); err != nil {
			return rep, nil, stop(fmt.Errorf("inspecting the %s sandbox: %w", arm.Name, err))
		}
	}
	return rep, run, stop(nil)
}

// seedArm seeds a started sandbox and lets its scheduler at the replayed
// pods once it has seen the rest (fence): into its storage in one write when
// it has one (storage), else through its API, gated and released one by one.
func seedArm(ctx context.Context, s *seeder, sb Sandbox, storage *Storage, snap *Snapshot, rep *ArmReport) error {
	var err error
	if err = s.seed(ctx, snap, storage != nil); err != nil {
		return err
	}
	if rep.Fence, err = s.fence(ctx, snap); err != nil {
		return err
	}
	if storage == nil {
		return s.release(ctx, snap.Replay)
	}
	return sb.(StorageSandbox).Store(ctx, storage.Replay())
}

// start starts arm's sandbox, with the snapshot written into its storage
// when the runtime can (StorageRuntime, storage then says what was not yet
// written); written is how long that took, 0 when the sandbox starts empty
// and is seeded through its API.
func start(ctx context.Context, o Options, arm Arm) (sb Sandbox, storage *Storage, written time.Duration, err error) {
	rt, ok := o.Runtime.(StorageRuntime)
	if !ok {
		sb, err = o.Runtime.Start(ctx, arm)
		return sb, nil, 0, err
	}
	storage = o.Snapshot.Storage(time.Now())
	objects := storage.Objects()
	sb, err = rt.StartStored(ctx, arm, func(put func(key string, value []byte) error) error {
		t := time.Now()
		defer func() { written = max(time.Since(t), time.Nanosecond) }()
		return objects(put)
	})
	return sb, storage, written, err
}

// count counts an outcome of want replayed pods: a pod it lacks is undecided
// (Compare says so too).
func (rep *ArmReport) count(outcome Outcome, want int) {
	for _, p := range outcome {
		switch {
		case p.Node != "":
			rep.Bound++
		case p.Undecided:
			rep.Undecided++
		default:
			rep.Unschedulable++
		}
	}
	rep.Undecided += max(0, want-len(outcome))
}

// stopTimeout bounds stopping one arm.
const stopTimeout = time.Minute
