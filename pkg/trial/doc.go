// Package trial tries a scheduler configuration before it is rolled out: it
// copies what scheduling reads from a live cluster (Take, read-only there and
// trimmed to scheduling-relevant fields), seeds two sandboxes (etcd and
// kube-apiserver started from local binaries) with it, runs the current and
// the candidate scheduler each against its own sandbox until every replayed
// pod is bound or reported unschedulable, and compares the placements
// (Compare) against a gate (Gate.Check).
//
// Run does all of it; the stages are exported so that a caller which takes the
// snapshot elsewhere (a controller, a benchmark) can run the rest.
package trial
