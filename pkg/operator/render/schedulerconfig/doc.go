// Package schedulerconfig is the scheduler-configuration engine of render: it
// merges the layers of a KubeSchedulerConfiguration and checks them, and the
// result, as kube-scheduler would. It is pure; render reads the layers from a
// SecondaryScheduler and its ConfigMap (see render's package doc for which).
//
// # Layers
//
// Merge puts the caller's layers between two of its own: below, the embedded
// default (bindata assets/config/defaultconfig.yaml: one profile,
// schedulerName secondary-scheduler); on top, the operator-owned fields
// (assets/config/operator-owned.yaml: the leader-election lease and
// clientConnection.kubeconfig "").
//
// Each layer is full or sparse, in YAML or JSON; apiVersion and kind may be left
// out, and when set must be kubescheduler.config.k8s.io/v1 and
// KubeSchedulerConfiguration. Objects merge recursively and null deletes a key.
// Lists of named entries merge entry by entry: profiles by schedulerName,
// pluginConfig (inside a profile) by name, extenders by urlPrefix. Every other
// list (plugins' enabled/disabled sets, args' lists) is replaced by the later
// layer, as in a JSON merge patch.
//
// A layer with ReplaceProfiles lists exactly the profiles served when it lists
// profiles: a profile named like one below it merges over it, and a profile it
// does not name is dropped.
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
// binaries on a shared corpus, each case rendered by render.
//
// What no check here can know is what only the scheduler build knows: the
// names of out-of-tree plugins, the extension points they implement and their
// args, and what an older release's own plugins lack. A configuration that
// passes here but that the scheduler refuses at start-up is caught by the
// rollout instead (the target config controller rolls it back). All problems
// are returned together, each with its subject in the merged document (the
// field path or plugin kube-scheduler names for it), and with the merged
// document itself: a layer with problems still merges, unchecked, unless it is
// no object at all. render returns them in an *InputError.
//
// # Bounds
//
// Every document is held to CheckDocument before it is decoded: at most
// MaxDocumentBytes, at most MaxIndicators of the characters that begin
// entries and values, and no YAML anchors or aliases.
package schedulerconfig
