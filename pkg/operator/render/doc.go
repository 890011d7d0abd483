// Package render turns a SecondaryScheduler into every object the operator
// applies. It is pure (no clients, informers or network), so the controllers and
// the `render` command call the same Render and golden files pin its output.
//
// # Scheduler configuration layers
//
// The ConfigMap secondary-scheduler-config (key config.yaml) is built from five
// layers, each later one over the earlier ones:
//
//  1. the embedded default (bindata assets/config/defaultconfig.yaml): one
//     profile, schedulerName secondary-scheduler;
//  2. spec.observedConfig.kubeSchedulerConfiguration, written by the config
//     observer from schedulers.config.openshift.io/cluster;
//  3. the user's ConfigMap named by spec.schedulerConfig, key config.yaml;
//  4. spec.unsupportedConfigOverrides, itself a sparse KubeSchedulerConfiguration;
//  5. the operator-owned fields (assets/config/operator-owned.yaml): the
//     leader-election lease (leases, openshift-secondary-scheduler/secondary-scheduler,
//     always on, because the operator's RBAC grants only that lease) and
//     clientConnection.kubeconfig "" (the pod's service account). Other
//     leaderElection and clientConnection fields stay the user's.
//
// Package schedulerconfig merges and checks the layers (merge rules, checks,
// document bounds); render reads them from the SecondaryScheduler and its
// ConfigMap and puts the result in the ConfigMap.
//
// # Which profiles are served
//
// When the user's ConfigMap lists profiles, those are exactly the profiles the
// scheduler serves: a profile named like one below it (usually
// secondary-scheduler) merges over it and so keeps the default and observed
// settings, while a profile it does not name, including the default
// secondary-scheduler, is dropped. This is what an administrator who writes
// `profiles: [{schedulerName: coscheduling, ...}]` expects. Adding their profile
// beside the default one instead would serve a second scheduler name nobody
// asked for and, because kube-scheduler has one queue, make every Coscheduling
// or Fluence profile (which brings its own queueSort) clash with the default
// profile's PrioritySort. The cluster scheduling profile (observed layer) thus
// shapes only the default profile, which is the operator's; a profile the
// administrator writes is taken as written.
//
// spec.unsupportedConfigOverrides is a surgical escape hatch, so its profiles
// always merge by schedulerName: it can change one profile and leave the others.
//
// # Checks
//
// Besides the scheduler configuration (package schedulerconfig), Render checks
// the spec as admission would and across fields, the args of the scheduler
// container, pod security and the spec.rbac ceiling. All problems of the
// inputs are returned together in an *InputError, each naming where and
// which path, e.g.
//
//	ConfigMap openshift-secondary-scheduler/my-config config.yaml: profiles[1].schedulerName: duplicate "foo"
//
// A problem of the scheduler configuration also names its subject in the
// merged configuration (profiles[1].schedulerName here, or a plugin), and the
// InputError keeps the merged document the problems were found in, so a test
// can ask a scheduler binary about the very document the operator refused.
//
// # Observed config
//
// spec.observedConfig holds servingInfo.minTLSVersion and servingInfo.cipherSuites
// (library-go's layout for the APIServer TLS security profile; the scheduler gets
// --tls-min-version and --tls-cipher-suites) and kubeSchedulerConfiguration (the
// layer 2 above). ObservedMinTLSVersionPath and friends name the paths.
//
// # Rolling the pods
//
// Everything that changes the pod is in the pod template, except the merged
// configuration, which the scheduler reads from a mounted ConfigMap at start-up:
// its hash is the pod template annotation operator.openshift.io/config-hash. A
// change that does not alter the pod (managementState, operatorLogLevel, rbac)
// leaves the Deployment as it was.
package render
