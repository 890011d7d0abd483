package trial

import (
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// PodGroupLabel puts a pod in a scheduler-plugins PodGroup: the pods of one
// group are one unit of the comparison (a gang fits whole or not at all).
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

// PodResult is one replayed pod in both arms.
type PodResult struct {
	Pod string `json:"pod"`
	// Gang is its PodGroup ("namespace/name"), if any.
	Gang      string    `json:"gang,omitempty"`
	Current   Placement `json:"current"`
	Candidate Placement `json:"candidate"`
}

// Unit is a pod, or the pods of a gang, and its change.
type Unit struct {
	Name   string `json:"name"`
	Gang   bool   `json:"gang,omitempty"`
	Pods   int    `json:"pods"`
	Change Change `json:"change"`
	// Reason and Plugins are the candidate's (newly unschedulable) or the
	// current scheduler's (newly schedulable) message for one of its pods.
	Reason  string `json:"reason,omitempty"`
	Plugins string `json:"plugins,omitempty"`
}

// Counts are the units by change.
type Counts struct {
	Units              int `json:"units"`
	Same               int `json:"same"`
	Moved              int `json:"moved"`
	NewlyUnschedulable int `json:"newlyUnschedulable"`
	NewlySchedulable   int `json:"newlySchedulable"`
	StillUnschedulable int `json:"unschedulable"`
	Undecided          int `json:"undecided"`
}

// MovedPercent is the share of the units placed by both arms that moved.
// It is 0 when neither placed any.
func (c Counts) MovedPercent() float64 {
	if c.Same+c.Moved == 0 {
		return 0
	}
	return 100 * float64(c.Moved) / float64(c.Same+c.Moved)
}

// NodeSpread is how many replayed pods each arm bound to a node.
type NodeSpread struct {
	Node      string `json:"node"`
	Current   int    `json:"current"`
	Candidate int    `json:"candidate"`
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
}

// Compare sets the candidate's placements of the replay set against the
// current scheduler's, per pod and per unit, and counts the pods per node
// (Spread: the nodes that changed most).
// A pod missing from an outcome is undecided there.
func Compare(replay []corev1.Pod, current, candidate Outcome) Comparison {
	var c Comparison
	units := map[string]*Unit{}
	var order []string
	spread := map[string]*NodeSpread{}
	count := func(node string, add func(*NodeSpread)) {
		if node == "" {
			return
		}
		if spread[node] == nil {
			spread[node] = &NodeSpread{Node: node}
		}
		add(spread[node])
	}
	state := map[string]*unitState{}
	for _, p := range replay {
		key := p.Namespace + "/" + p.Name
		r := PodResult{Pod: key, Current: current.of(key), Candidate: candidate.of(key)}
		name, gang := key, false
		if g := p.Labels[PodGroupLabel]; g != "" {
			r.Gang, name, gang = p.Namespace+"/"+g, p.Namespace+"/"+g, true
		}
		c.Pods = append(c.Pods, r)
		count(r.Current.Node, func(s *NodeSpread) { s.Current++ })
		count(r.Candidate.Node, func(s *NodeSpread) { s.Candidate++ })
		if units[name] == nil {
			units[name] = &Unit{Name: name, Gang: gang}
			state[name] = &unitState{currentBound: true, candidateBound: true}
			order = append(order, name)
		}
		units[name].Pods++
		state[name].add(r)
	}
	for _, name := range order {
		u := units[name]
		u.Change, u.Reason, u.Plugins = state[name].change()
		c.Units = append(c.Units, *u)
		c.Counts.add(u.Change)
	}
	c.Spread, c.SpreadLeftOut = largestChanges(spread, MaxSpreadNodes)
	return c
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
func (o Outcome) of(key string) Placement {
	p, ok := o[key]
	if !ok {
		return Placement{Reason: "the arm never reported this pod", Undecided: true}
	}
	return p
}

type unitState struct {
	currentBound, candidateBound, moved bool
	undecided                           *Placement
	currentReason, candidateReason      Placement
}

func (s *unitState) add(r PodResult) {
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
	if r.Current.Node != r.Candidate.Node {
		s.moved = true
	}
}

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

func (c *Counts) add(ch Change) {
	c.Units++
	switch ch {
	case Same:
		c.Same++
	case Moved:
		c.Moved++
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
