// Package trial tries a scheduler configuration before it is rolled out: it
// copies what scheduling reads from a live cluster (Take, read-only there and
// trimmed to scheduling-relevant fields), starts a sandbox (etcd and
// kube-apiserver) per arm with the arm's scheduler against it, seeds it with
// the snapshot, releases the replayed pods, waits until every one is bound or
// reported unschedulable, and compares the placements (Compare) against a
// gate (Gate.Check).
//
// A Runtime runs the arms: LocalRuntime as processes on this machine (the
// trial command), PodRuntime as a Pod per arm in the cluster (the operator).
//
// Run does all of it; the stages are exported so that a caller which takes the
// snapshot elsewhere (a controller, a benchmark) can run the rest.
package trial
