package trial

import (
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// PodGroupLabel puts a pod in a scheduler-plugins PodGroup: the pods of one
// group are one unit of the comparison (a gang fits whole or not at all), as
// are those naming one PodGroup of Kubernetes' own (scheduling.k8s.io) in
// spec.schedulingGroup.
const PodGroupLabel = "scheduling.x-k8s.io/pod-group"

// Placement is what one arm did with a replayed pod.
type Placement struct {
	// Node is where it was bound; "" when it was not.
	Node string `json:"node,omitempty"`
	// Reason is the scheduler's message for a pod it did not bind.
	Reason string `json:"reason,omitempty"`
	// Plugins are the plugins Reason names or implies, comma-separated.
	Plugins string `json:"plugins,omitempty"`
	// Undecided: the arm neither bound it nor reported it unschedulable.
	Undecided bool `json:"undecided,omitempty"`
}

// Outcome is an arm's placements by "namespace/name".
type Outcome map[string]Placement

// Change is how a unit fared under the candidate, against the current scheduler.
type Change string

const (
	Same               Change = "same"
	Moved              Change = "moved"
	NewlyUnschedulable Change = "newly-unschedulable"
	NewlySchedulable   Change = "newly-schedulable"
	StillUnschedulable Change = "unschedulable"
	// Undecided units were left without a decision by an arm: they say
	// nothing of the change, and any makes the trial inconclusive.
	Undecided Change = "undecided"
)

// PodResult is one replayed pod in every arm.
type PodResult struct {
	Pod string `json:"pod"`
	// Gang is its PodGroup ("namespace/name"), scheduler-plugins' or
	// Kubernetes' own, if any.
	Gang      string    `json:"gang,omitempty"`
	Current   Placement `json:"current"`
	Candidate Placement `json:"candidate"`
	// Rerun is the current configuration's second run (RerunArm).
	Rerun Placement `json:"rerun"`
}

// Unit is a pod, or the pods of a gang, and its change.
type Unit struct {
	Name   string `json:"name"`
	Gang   bool   `json:"gang,omitempty"`
	Pods   int    `json:"pods"`
	Change Change `json:"change"`
	// TieBreakNoise marks a moved unit that the current configuration, run
	// twice, also placed differently: its move says nothing of the change.
	TieBreakNoise bool `json:"tieBreakNoise,omitempty"`
	// Reason and Plugins are the candidate's (newly unschedulable) or the
	// current scheduler's (newly schedulable) message for one of its pods.
	Reason  string `json:"reason,omitempty"`
	Plugins string `json:"plugins,omitempty"`
}

// Counts are the units by change.
type Counts struct {
	Units int `json:"units"`
	Same  int `json:"same"`
	// Moved counts every unit the two arms placed on different nodes;
	// TieBreakNoise those of them the current configuration's two runs placed
	// differently too, and MovedByChange the rest: only those are judged.
	Moved              int `json:"moved"`
	TieBreakNoise      int `json:"tieBreakNoise"`
	MovedByChange      int `json:"movedByChange"`
	NewlyUnschedulable int `json:"newlyUnschedulable"`
	NewlySchedulable   int `json:"newlySchedulable"`
	StillUnschedulable int `json:"unschedulable"`
	Undecided          int `json:"undecided"`
}

// MovedPercent is the share of the units placed by both arms that moved,
// tie-break noise included. It is 0 when neither placed any.
func (c Counts) MovedPercent() float64 { return c.percentOfPlaced(c.Moved) }

// MovedByChangePercent is the share of the units placed by both arms that
// the change moved: MaxMovedPercent bounds it.
func (c Counts) MovedByChangePercent() float64 { return c.percentOfPlaced(c.MovedByChange) }

func (c Counts) percentOfPlaced(n int) float64 {
	if c.Same+c.Moved == 0 {
		return 0
	}
	return 100 * float64(n) / float64(c.Same+c.Moved)
}

// NodeSpread is how many replayed pods each arm bound to a node.
type NodeSpread struct {
	Node      string `json:"node"`
	Current   int    `json:"current"`
	Candidate int    `json:"candidate"`
	Rerun     int    `json:"rerun"`
}

// MaxSpreadNodes bounds Comparison.Spread: a trial of 5,000 nodes would list
// them all, and a reader (or a chart) sees only the largest changes anyway.
const MaxSpreadNodes = 30

// Comparison is Compare's result.
type Comparison struct {
	Pods   []PodResult `json:"pods"`
	Units  []Unit      `json:"units"`
	Counts Counts      `json:"counts"`
	// Spread holds the MaxSpreadNodes nodes whose count of replayed pods
	// differs most between the arms, largest difference first.
	Spread []NodeSpread `json:"spread"`
	// SpreadLeftOut is how many more nodes held replayed pods (their
	// placements are in Pods).
	SpreadLeftOut int `json:"spreadLeftOut,omitempty"`
	// Fidelity holds the current arm against the live cluster
	// (MeasureFidelity); Compare leaves it unmeasured.
	Fidelity Fidelity `json:"fidelity"`
}

// Compare sets the candidate's placements of the replay set against the
// current scheduler's, per pod and per unit, and counts the pods per node
// (Spread: the nodes that changed most).
// rerun is the current configuration's second run: a moved unit it places
// differently from the first is tie-break noise (kube-scheduler picks among
// equal scores at random). A pod missing from an outcome is undecided there;
// a nil rerun marks no move as noise.
func Compare(replay []corev1.Pod, current, candidate, rerun Outcome) Comparison {
	var c Comparison
	units := map[string]*Unit{}
	state := map[string]*unitState{}
	var order []string
	spread := spreadCounter{}
	for _, p := range replay {
		key := p.Namespace + "/" + p.Name
		r := PodResult{Pod: key, Current: current.of("current", key), Candidate: candidate.of("candidate", key), Rerun: rerun.of(RerunArm, key)}
		// Units are keyed by kind: a pod named like a PodGroup of its
		// namespace is not one of the gang's pods.
		id, name, gang := "pod/"+key, key, false
		if g := gangOf(&p); g != "" {
			name, gang = p.Namespace+"/"+g, true
			id, r.Gang = "gang/"+name, name
		}
		c.Pods = append(c.Pods, r)
		spread.add(r)
		if units[id] == nil {
			units[id] = &Unit{Name: name, Gang: gang}
			state[id] = &unitState{currentBound: true, candidateBound: true, rerunBound: true}
			order = append(order, id)
		}
		units[id].Pods++
		state[id].add(r)
	}
	for _, id := range order {
		u := units[id]
		u.Change, u.Reason, u.Plugins = state[id].change()
		u.TieBreakNoise = u.Change == Moved && state[id].noise()
		c.Units = append(c.Units, *u)
		c.Counts.add(*u)
	}
	c.Spread, c.SpreadLeftOut = largestChanges(spread, MaxSpreadNodes)
	return c
}

// gangOf is the PodGroup p is in: Kubernetes' own (spec.schedulingGroup),
// which kube-scheduler reads, else scheduler-plugins' (PodGroupLabel); ""
// for none. Two groups of one name in a namespace, one of each kind, are
// one unit.
func gangOf(p *corev1.Pod) string {
	if g := podGroupName(p); g != "" {
		return g
	}
	return p.Labels[PodGroupLabel]
}

// spreadCounter counts the replayed pods each arm bound, by node.
type spreadCounter map[string]*NodeSpread

func (s spreadCounter) add(r PodResult) {
	for _, a := range []struct {
		node string
		n    func(*NodeSpread) *int
	}{
		{r.Current.Node, func(ns *NodeSpread) *int { return &ns.Current }},
		{r.Candidate.Node, func(ns *NodeSpread) *int { return &ns.Candidate }},
		{r.Rerun.Node, func(ns *NodeSpread) *int { return &ns.Rerun }},
	} {
		if a.node == "" {
			continue
		}
		if s[a.node] == nil {
			s[a.node] = &NodeSpread{Node: a.node}
		}
		*a.n(s[a.node])++
	}
}

// largestChanges is the n nodes whose counts differ most between the arms
// (then the busiest, then by name, so that the order is stable), and how many
// were left out.
func largestChanges(spread map[string]*NodeSpread, n int) ([]NodeSpread, int) {
	all := make([]NodeSpread, 0, len(spread))
	for _, s := range spread {
		all = append(all, *s)
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if da, db := a.difference(), b.difference(); da != db {
			return da > db
		}
		if ta, tb := a.Current+a.Candidate, b.Current+b.Candidate; ta != tb {
			return ta > tb
		}
		return a.Node < b.Node
	})
	if len(all) <= n {
		return all, 0
	}
	return all[:n:n], len(all) - n
}

// difference is how many more or fewer replayed pods the candidate put there.
func (s NodeSpread) difference() int {
	if s.Candidate > s.Current {
		return s.Candidate - s.Current
	}
	return s.Current - s.Candidate
}

// of is the placement of key; undecided when the arm never reported it.
func (o Outcome) of(arm, key string) Placement {
	p, ok := o[key]
	if !ok {
		return Placement{Reason: "the " + arm + " arm never reported this pod", Undecided: true}
	}
	return p
}

type unitState struct {
	currentBound, candidateBound, moved bool
	// rerunBound and rerunMoved: the rerun bound every pod, and some on
	// another node than the current arm did.
	rerunBound, rerunMoved         bool
	undecided                      *Placement
	currentReason, candidateReason Placement
}

func (s *unitState) add(r PodResult) {
	// The rerun's undecided pods only keep a move from being called noise.
	for _, p := range []Placement{r.Current, r.Candidate} {
		if p.Undecided && s.undecided == nil {
			s.undecided = &p
		}
	}
	if r.Current.Node == "" {
		s.currentBound = false
		if s.currentReason.Reason == "" {
			s.currentReason = r.Current
		}
	}
	if r.Candidate.Node == "" {
		s.candidateBound = false
		if s.candidateReason.Reason == "" {
			s.candidateReason = r.Candidate
		}
	}
	s.rerunBound = s.rerunBound && r.Rerun.Node != ""
	s.moved = s.moved || r.Current.Node != r.Candidate.Node
	s.rerunMoved = s.rerunMoved || r.Current.Node != r.Rerun.Node
}

// noise: both runs of the current configuration placed the unit, differently.
func (s *unitState) noise() bool { return s.currentBound && s.rerunBound && s.rerunMoved }

// change: a unit is placed when all its pods are bound.
func (s *unitState) change() (Change, string, string) {
	switch {
	case s.undecided != nil:
		return Undecided, s.undecided.Reason, ""
	case s.currentBound && s.candidateBound && s.moved:
		return Moved, "", ""
	case s.currentBound && s.candidateBound:
		return Same, "", ""
	case s.currentBound:
		return NewlyUnschedulable, s.candidateReason.Reason, s.candidateReason.Plugins
	case s.candidateBound:
		return NewlySchedulable, s.currentReason.Reason, s.currentReason.Plugins
	}
	return StillUnschedulable, s.candidateReason.Reason, s.candidateReason.Plugins
}

func (c *Counts) add(u Unit) {
	c.Units++
	switch u.Change {
	case Same:
		c.Same++
	case Moved:
		c.Moved++
		if u.TieBreakNoise {
			c.TieBreakNoise++
		} else {
			c.MovedByChange++
		}
	case NewlyUnschedulable:
		c.NewlyUnschedulable++
	case NewlySchedulable:
		c.NewlySchedulable++
	case StillUnschedulable:
		c.StillUnschedulable++
	case Undecided:
		c.Undecided++
	}
}

// pluginMessages are the failure messages of the plugins, as the scheduler
// puts them into a PodScheduled condition ("0/3 nodes are available: 3
// node(s) didn't match ...").
var pluginMessages = []struct{ text, plugin string }{
	{"didn't match scheduler-enforced node affinity", "NodeAffinity"},
	{"didn't match Pod's node affinity/selector", "NodeAffinity"},
	{"Insufficient ", "NodeResourcesFit"},
	{"Too many pods", "NodeResourcesFit"},
	{"had untolerated taint", "TaintToleration"},
	{"were unschedulable", "NodeUnschedulable"},
	{"didn't have free ports", "NodePorts"},
	{"didn't match the requested node name", "NodeName"},
	{"didn't match pod topology spread constraints", "PodTopologySpread"},
	{"didn't match pod affinity rules", "InterPodAffinity"},
	{"didn't match pod anti-affinity rules", "InterPodAffinity"},
	{"didn't satisfy existing pods anti-affinity rules", "InterPodAffinity"},
	{"didn't find available persistent volumes to bind", "VolumeBinding"},
	{"had volume node affinity conflict", "VolumeBinding"},
	{"unbound immediate PersistentVolumeClaims", "VolumeBinding"},
	{"bound to non-existent pv", "VolumeBinding"},
	{"had no available disk", "VolumeRestrictions"},
	{"ReadWriteOncePod access mode", "VolumeRestrictions"},
	{"exceed max volume count", "NodeVolumeLimits"},
	{"had no available volume zone", "VolumeZone"},
	{"cannot allocate all claims", "DynamicResources"},
	{"resourceclaim not available on the node", "DynamicResources"},
	{"resourceclaim in use", "DynamicResources"},
	{"cannot schedule extended resource claim", "DynamicResources"},
	// Kubernetes' own gangs (GangScheduling, with the GenericWorkload gate).
	{"cannot be satisfied: ", "GangScheduling"},
	{"waiting for minCount pods from a gang", "GangScheduling"},
	{"pod group \"", "GangScheduling"},
	{"pgName", "Coscheduling"},
	{"podGroup ", "Coscheduling"},
	{"PodGroup", "Coscheduling"},
	// Coscheduling's rejection of a gang's pods waiting at Permit, once
	// another pod of the gang fails: the message does not name the plugin.
	{"optimistic rejection in PostFilter", "Coscheduling"},
	{"ElasticQuota", "CapacityScheduling"},
}

// pluginNamed finds `plugin "Name"` or `plugin Name` in a message.
var pluginNamed = regexp.MustCompile(`plugin "?([A-Z][A-Za-z0-9]+)"?`)

// PluginsOf names the plugins a scheduler's message points at, sorted and
// comma-separated; "" when it names none known.
func PluginsOf(message string) string {
	set := map[string]bool{}
	for _, m := range pluginNamed.FindAllStringSubmatch(message, -1) {
		set[m[1]] = true
	}
	for _, pm := range pluginMessages {
		if strings.Contains(message, pm.text) {
			set[pm.plugin] = true
		}
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
