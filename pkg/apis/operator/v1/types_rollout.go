package v1

// The rollout of a change: spec.rollout, and what status records of its
// trials and rollbacks.

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RolloutStrategy is how a new configuration or image rolls out.
// +kubebuilder:validation:Enum=Direct;Trial
type RolloutStrategy string

const (
	// RolloutDirect rolls a change out as soon as it is valid.
	RolloutDirect RolloutStrategy = "Direct"
	// RolloutTrial first schedules the pending and recently bound pods with the
	// running and the new scheduler, each in a sandbox seeded with a copy of the
	// cluster, and rolls out only when the difference is within the gate.
	RolloutTrial RolloutStrategy = "Trial"
)

// RolloutPolicy says how changes roll out.
type RolloutPolicy struct {
	// strategy is Direct or Trial. Defaults to Direct.
	// +optional
	// +kubebuilder:default=Direct
	Strategy RolloutStrategy `json:"strategy,omitempty"`

	// trial configures the trial; it is read only with strategy Trial.
	// +optional
	Trial *TrialPolicy `json:"trial,omitempty"`
}

// DefaultTrialReplayBound is replayBound's default.
const DefaultTrialReplayBound = 100

// DefaultTrialReplayPending is replayPending's default.
const DefaultTrialReplayPending = 1000

// DefaultTrialTimeoutSeconds is timeoutSeconds' default.
const DefaultTrialTimeoutSeconds = 300

// DefaultTrialVerdictTTLSeconds is verdictTTLSeconds' default.
const DefaultTrialVerdictTTLSeconds = 86400

// DefaultTrialMinFidelityPercent is minFidelityPercent's default.
const DefaultTrialMinFidelityPercent = 95

// TrialPolicy configures a trial and its gate.
type TrialPolicy struct {
	// replayBound is how many of the pods the scheduler bound most recently are
	// scheduled again in the trial, besides the pending pods of its profiles
	// (replayPending). Defaults to 100.
	// +optional
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2000
	ReplayBound *int32 `json:"replayBound,omitempty"`

	// replayPending is how many of the pods pending for the scheduler are
	// scheduled in the trial, taken round-robin across namespaces (the oldest
	// of each first), so that no namespace's pods can crowd out the others'.
	// The bound pods sampled by replayBound are shared the same way. The
	// trial's report names what it sampled of each namespace. Defaults to 1000.
	// +optional
	// +kubebuilder:default=1000
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=5000
	ReplayPending *int32 `json:"replayPending,omitempty"`

	// maxNewlyUnschedulable is how many pods (a gang counts once) may be
	// unschedulable with the new scheduler while the running one places them.
	// Defaults to 0.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	MaxNewlyUnschedulable *int32 `json:"maxNewlyUnschedulable,omitempty"`

	// maxMovedPercent is the share of the replayed units placed by both
	// schedulers that the new one may place on another node than the running
	// one does. Moves the running configuration also makes when run twice
	// (tie-break noise) are not counted. Unset: no limit.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	MaxMovedPercent *int32 `json:"maxMovedPercent,omitempty"`

	// minFidelityPercent is the least share, in percent, of the recently
	// bound pods replayed (replayBound) that the running configuration must
	// place again on the trial's copy of the cluster. Below it the copy does
	// not hold what the live scheduler placed them with, and the trial is
	// Inconclusive, naming the pods it could not place. A trial that replays
	// no bound pod does not measure it. A change takes effect from the next
	// trial. Defaults to 95.
	// +optional
	// +kubebuilder:default=95
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	MinFidelityPercent *int32 `json:"minFidelityPercent,omitempty"`

	// timeoutSeconds bounds a trial, from its start to the verdict; a trial
	// that runs out of time fails and nothing rolls out. Defaults to 300.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=30
	// +kubebuilder:validation:Maximum=3600
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`

	// verdictTTLSeconds is how long a verdict holds: a change whose trial
	// finished longer ago is tried again, since the cluster it was tried on
	// has moved on. Defaults to 86400 (one day).
	// +optional
	// +kubebuilder:default=86400
	// +kubebuilder:validation:Minimum=60
	// +kubebuilder:validation:Maximum=2592000
	VerdictTTLSeconds *int32 `json:"verdictTTLSeconds,omitempty"`

	// sandboxImages replace the images of the sandbox's etcd and kube-apiserver,
	// for a disconnected cluster's mirror. The kube-apiserver must be at least as
	// new as the scheduler images tried.
	// +optional
	SandboxImages *SandboxImages `json:"sandboxImages,omitempty"`
}

// SandboxImages are the images a trial's sandbox runs.
type SandboxImages struct {
	// etcd is the etcd image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Etcd string `json:"etcd,omitempty"`

	// kubeAPIServer is the kube-apiserver image.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	KubeAPIServer string `json:"kubeAPIServer,omitempty"`
}

// TrialVerdict is a trial's outcome.
// +kubebuilder:validation:Enum=Running;Allowed;Blocked;Failed;Inconclusive
type TrialVerdict string

const (
	// TrialRunning: the trial has started and has no verdict yet.
	TrialRunning TrialVerdict = "Running"
	// TrialAllowed: the difference is within the gate; the change rolls out.
	TrialAllowed TrialVerdict = "Allowed"
	// TrialBlocked: the difference is beyond the gate; nothing rolls out.
	TrialBlocked TrialVerdict = "Blocked"
	// TrialFailed: the trial could not run; nothing rolls out.
	TrialFailed TrialVerdict = "Failed"
	// TrialInconclusive: an arm left units undecided, or the running
	// configuration placed fewer of the recently bound pods than
	// minFidelityPercent, so the counts prove nothing; nothing rolls out.
	TrialInconclusive TrialVerdict = "Inconclusive"
)

// TrialRequest is a change to try: the scheduler the live Deployment runs
// against the one that would replace it, and the gate that judges them.
type TrialRequest struct {
	// key identifies the two schedulers: lastTrial.key names the request it
	// answers.
	// +required
	// +kubebuilder:validation:MaxLength=64
	Key string `json:"key"`

	// current is the scheduler that runs now.
	// +required
	Current TrialArm `json:"current"`

	// candidate is the scheduler that would replace it.
	// +required
	Candidate TrialArm `json:"candidate"`

	// gate is spec.rollout.trial's gate, with its defaults.
	// +required
	Gate TrialGate `json:"gate"`
}

// TrialArm is one scheduler of a trial, as its pods run it.
type TrialArm struct {
	// configHash names the merged configuration, which ConfigMap
	// secondary-scheduler-config-<first 12 characters> holds.
	// +required
	// +kubebuilder:validation:MaxLength=64
	ConfigHash string `json:"configHash"`

	// image is the scheduler container's image.
	// +required
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image"`

	// command is the scheduler container's command.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=4096
	Command []string `json:"command,omitempty"`

	// args are the scheduler container's arguments, without the flags the
	// operator sets itself (configuration, identity, serving).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=4096
	Args []string `json:"args,omitempty"`

	// environmentHash is the SHA-256 of the scheduler container's env,
	// envFrom and volumeMounts, with the pod volumes they mount: a change of
	// any of them changes the scheduler process, so it is tried like a change
	// of its image or arguments.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	EnvironmentHash string `json:"environmentHash,omitempty"`
}

// TrialGate is what a trial may change before it holds a rollout back.
type TrialGate struct {
	// maxNewlyUnschedulable is spec.rollout.trial.maxNewlyUnschedulable.
	// +optional
	MaxNewlyUnschedulable int32 `json:"maxNewlyUnschedulable"`

	// maxMovedPercent is spec.rollout.trial.maxMovedPercent; unset bounds no moves.
	// +optional
	MaxMovedPercent *int32 `json:"maxMovedPercent,omitempty"`
}

// TrialResult is what a trial found.
type TrialResult struct {
	// key is the key of the trial request this trial answers.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	Key string `json:"key,omitempty"`

	// gate is the gate the counts were judged by; a request with another gate
	// has them judged again, without a new trial.
	// +optional
	Gate *TrialGate `json:"gate,omitempty"`

	// configHash is the hash of the configuration tried.
	// +required
	// +kubebuilder:validation:MaxLength=64
	ConfigHash string `json:"configHash"`

	// image is the scheduler image tried.
	// +required
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image"`

	// candidateImageID is the image the candidate arm's trial Pod ran, as its
	// scheduler container's status.containerStatuses[].imageID reported it
	// (a digest when the runtime resolved one). An allowed image given by tag
	// rolls out by this digest: what was tried is what runs.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	CandidateImageID string `json:"candidateImageID,omitempty"`

	// currentImageID is the image the current arm's trial Pod ran, as
	// candidateImageID.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	CurrentImageID string `json:"currentImageID,omitempty"`

	// verdict is Running, Allowed, Blocked, Failed or Inconclusive.
	// +required
	Verdict TrialVerdict `json:"verdict"`

	// message says why, with the counts and the first reasons.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Message string `json:"message,omitempty"`

	// counts are the replayed units (a gang counts once) by what changed.
	// +optional
	Counts *TrialCounts `json:"counts,omitempty"`

	// fidelity is how the running configuration, on the trial's copy of the
	// cluster, placed the recently bound pods replayed, against the nodes the
	// live scheduler bound them to. Absent when no bound pod was replayed.
	// +optional
	Fidelity *TrialFidelity `json:"fidelity,omitempty"`

	// report names the ConfigMap, in the scheduler's namespace, that holds the
	// full report (report.json).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Report string `json:"report,omitempty"`

	// failedAttempts counts the trials of this key in a row that were Failed
	// or Inconclusive, this one included. The next is tried 5 minutes after
	// the first such verdict, the wait doubling with each one after it, up to
	// an hour.
	// +optional
	// +kubebuilder:validation:Minimum=0
	FailedAttempts int32 `json:"failedAttempts,omitempty"`

	// startedAt is when the trial started.
	// +required
	StartedAt metav1.Time `json:"startedAt"`

	// finishedAt is when it reached its verdict.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
}

// TrialCounts count a trial's replayed units by what changed.
type TrialCounts struct {
	// +optional
	Units int32 `json:"units"`
	// +optional
	Same int32 `json:"same"`
	// moved are the units both arms placed, on different nodes.
	// +optional
	Moved int32 `json:"moved"`
	// tieBreakNoise are the moved units that the current configuration, run
	// a second time on its own sandbox, also placed differently:
	// kube-scheduler breaks equal scores at random, so they moved by chance.
	// moved minus tieBreakNoise were moved by the change; only those count
	// against spec.rollout.trial.maxMovedPercent.
	// +optional
	TieBreakNoise int32 `json:"tieBreakNoise"`
	// +optional
	NewlyUnschedulable int32 `json:"newlyUnschedulable"`
	// +optional
	NewlySchedulable int32 `json:"newlySchedulable"`
	// +optional
	StillUnschedulable int32 `json:"stillUnschedulable"`
	// undecided are the units an arm neither placed nor reported
	// unschedulable within the timeout; any makes the trial Inconclusive.
	// +optional
	Undecided int32 `json:"undecided"`
}

// TrialFidelity holds the current arm of a trial against the live cluster.
type TrialFidelity struct {
	// boundReplayed are the recently bound pods the trial replayed.
	// +optional
	BoundReplayed int32 `json:"boundReplayed"`

	// placed are those of them the current arm placed at all.
	// +optional
	Placed int32 `json:"placed"`

	// placedPercent is placed of boundReplayed, in percent, rounded down:
	// 100 only when every one was placed.
	// +optional
	PlacedPercent int32 `json:"placedPercent"`

	// sameNode are the placed pods that the current arm put on the node the
	// live scheduler chose, of sameNodeCompared: the placed pods but those of
	// units the current configuration, run twice, placed differently
	// (tie-break noise, which says nothing of the copy).
	// +optional
	SameNode int32 `json:"sameNode"`
	// +optional
	SameNodeCompared int32 `json:"sameNodeCompared"`

	// sameNodePercent is sameNode of sameNodeCompared, in percent, rounded
	// down; absent when sameNodeCompared is 0.
	// +optional
	SameNodePercent *int32 `json:"sameNodePercent,omitempty"`

	// minFidelityPercent is the floor placedPercent was held to
	// (spec.rollout.trial.minFidelityPercent when the trial ran).
	// +optional
	MinFidelityPercent int32 `json:"minFidelityPercent"`
}

// Rollout identifies one pod template of the scheduler Deployment.
type Rollout struct {
	// configHash is the hash of the merged configuration the template runs.
	// +required
	// +kubebuilder:validation:MaxLength=64
	ConfigHash string `json:"configHash"`

	// templateHash is the template's operator.openshift.io/template-hash.
	// +required
	// +kubebuilder:validation:MaxLength=64
	TemplateHash string `json:"templateHash"`
}

// FailedRollout is a rollout the operator took back.
type FailedRollout struct {
	// configHash is the hash of the merged configuration the failed template runs.
	// +required
	// +kubebuilder:validation:MaxLength=64
	ConfigHash string `json:"configHash"`

	// templateHash is the failed template's operator.openshift.io/template-hash.
	// +required
	// +kubebuilder:validation:MaxLength=64
	TemplateHash string `json:"templateHash"`

	// message is why it failed: the scheduler's own error (its termination
	// message) or the deadline that passed.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	Message string `json:"message,omitempty"`

	// failedAt is when the operator saw it fail.
	// +required
	FailedAt metav1.Time `json:"failedAt"`
}
