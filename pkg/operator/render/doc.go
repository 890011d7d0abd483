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
// Each layer is full or sparse, in YAML or JSON; apiVersion and kind may be left
// out, and when set must be kubescheduler.config.k8s.io/v1 and
// KubeSchedulerConfiguration. Objects merge recursively and null deletes a key.
// Lists of named entries merge entry by entry: profiles by schedulerName,
// pluginConfig (inside a profile) by name, extenders by urlPrefix. Every other
// list (plugins' enabled/disabled sets, args' lists) is replaced by the later
// layer, as in a JSON merge patch.
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
// Each layer is decoded strictly as a v1 KubeSchedulerConfiguration on its own,
// so a problem names the layer and the path, e.g.
//
//	ConfigMap openshift-secondary-scheduler/my-config config.yaml: profiles[1].schedulerName: duplicate "foo"
//
// Args of kube-scheduler's own plugins are decoded strictly too; args of
// out-of-tree plugins only have to be objects. A layer checks: a listed profile
// list is not empty, no list entry is null, schedulerNames are set, unique and
// not default-scheduler, pluginConfig names, plugin names and extender
// urlPrefixes are set and unique, and no score weight is negative
// (kube-scheduler takes one only on the last score plugin it sums). The merged
// configuration is decoded strictly again and every profile must use the same
// queueSort plugin with the same args (kube-scheduler has one queue).
//
// Then the merged configuration goes through kube-scheduler's own code: it is
// loaded as kube-scheduler loads its --config file (the strict, defaulting
// decoder of k8s.io/kubernetes/pkg/scheduler/apis/config/scheme) and checked by
// its validation package, plus the args check NodeResourcesFit runs when it
// starts (kube-scheduler's validation table misses it). Importing these costs
// ten small packages of k8s.io/kubernetes, pinned to the k8s.io libraries the
// operator already uses; copying the rules by hand would drift with every
// release. Each of its problems is traced to the layer and path that set the
// value.
//
// Last come the checks kube-scheduler makes only when it builds each profile's
// framework, on the defaulted profiles (kube-scheduler's default plugins merged
// in): every plugin enabled at an extension point implements it, no plugin is
// listed twice at a point or in multiPoint, and every profile keeps a queueSort
// and a bind plugin. Which extension points kube-scheduler's own plugins
// implement is data, bindata assets/config/in-tree-plugins.yaml, which
// test/configdiff writes from the kube-scheduler binary and checks against it
// and scheduler-plugins' build. test/configdiff checks all of it against both
// binaries on a shared corpus, each case rendered here.
//
// What no check here can know is what only the scheduler build knows: the
// names of out-of-tree plugins, the extension points they implement and their
// args, and what an older release's own plugins lack. A configuration that
// passes here but that the scheduler refuses at start-up is caught by the
// rollout instead (the target config controller rolls it back). All problems
// are returned together in an *InputError.
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
