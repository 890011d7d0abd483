// Package trial tries a scheduler configuration before it is rolled out: it
// copies what scheduling reads from a live cluster (Take, read-only there and
// trimmed to scheduling-relevant fields), has its Runtime start a sandbox
// (etcd and kube-apiserver) per arm with the arm's scheduler, seeds it with
// the snapshot, hands the scheduler the replayed pods in their order once it
// has seen the rest (fence), waits until every one is bound or reported
// unschedulable, compares the placements (Compare) and judges the counts by a
// Gate.
//
// It is a library: a Runtime runs the arms, and the runtimes live with their
// users (package local runs processes on this machine for the trial command;
// the operator's trial controller runs a Pod per arm). It knows nothing of the
// operator.
//
// Run does all of it; the stages are exported so that a caller which takes the
// snapshot elsewhere (a controller, a benchmark) can run the rest.
package trial
