package render

import (
	"bufio"
	"bytes"
	"strings"
	"sync"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

// KubeSchedulerFlagsAsset lists the flags kube-scheduler and scheduler-plugins'
// scheduler accept, one "name type" a line, as their --help prints them.
// test/configdiff checks it against both binaries.
const KubeSchedulerFlagsAsset = "assets/config/kube-scheduler-flags.txt"

// ownedFlags are the kube-scheduler flags that would take back what the
// operator owns; each says why it is the operator's. kube-scheduler lets a flag
// override its config file, so one of these in the args would bypass the
// validated configuration, the operator's lease or the pod's identity.
var ownedFlags = func() map[string]string {
	const (
		config     = "the scheduler runs the merged, validated configuration the operator mounts; put your settings in the ConfigMap named by spec.schedulerConfig"
		connection = "the scheduler talks to the API server as its pod's ServiceAccount, through the kubeconfig the operator writes"
		election   = "leader election uses the operator's lease secondary-scheduler in namespace openshift-secondary-scheduler, the only lease the scheduler's RBAC grants"
		delegation = "the secure port authenticates and authorizes requests against the cluster with the pod's identity"
		exits      = "kube-scheduler would print or write something and exit instead of scheduling"
	)
	owned := map[string]string{
		"config": config, "write-config-to": exits, "help": exits, "version": exits,
		"kubeconfig": connection, "master": connection,
		"authentication-kubeconfig": delegation, "authorization-kubeconfig": delegation,
	}
	for _, f := range []string{"leader-elect", "leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-retry-period",
		"leader-elect-resource-lock", "leader-elect-resource-name", "leader-elect-resource-namespace"} {
		owned[f] = election
	}
	return owned
}()

// knownFlags are KubeSchedulerFlagsAsset's flags, each mapped to whether it is
// a boolean (a boolean takes no separate value argument).
var knownFlags = sync.OnceValue(func() map[string]bool {
	known := map[string]bool{}
	s := bufio.NewScanner(bytes.NewReader(bindata.MustAsset(KubeSchedulerFlagsAsset)))
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, typ, _ := strings.Cut(line, " ")
		known[name] = typ == "bool"
	}
	return known
})

// checkSchedulerArgs refuses, in spec.schedulerContainer.args and the
// arguments of its command, every flag the operator owns; and, when the image's
// own kube-scheduler runs (no command override), every flag kube-scheduler does
// not know and every positional argument, which it would refuse at start.
func checkSchedulerArgs(src string, sc *secondaryschedulerv1.SchedulerContainer, errs *problem.List) {
	if sc == nil {
		return
	}
	if len(sc.Command) > 1 {
		checkArgs(src, "spec.schedulerContainer.command", sc.Command, 1, false, errs)
	}
	checkArgs(src, "spec.schedulerContainer.args", sc.Args, 0, len(sc.Command) == 0, errs)
}

func checkArgs(src, field string, args []string, from int, strict bool, errs *problem.List) {
	for i := from; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if strict && i+1 < len(args) {
				errs.Addf(src, problem.Index(field, i+1), "kube-scheduler takes no positional arguments; remove %q", args[i+1])
			}
			return
		}
		name, hasValue, ok := flagName(a)
		if !ok {
			if strict {
				errs.Addf(src, problem.Index(field, i), "kube-scheduler takes no positional arguments: %q is not a flag, nor the value of one (write --flag=value)", a)
			}
			continue
		}
		isBool, known := knownFlags()[name]
		if why, owned := ownedFlags[name]; owned {
			errs.Addf(src, problem.Index(field, i), "--%s is the operator's and cannot be set here: %s; remove it", name, why)
			if !isBool && !hasValue {
				i++ // its value
			}
			continue
		}
		if !strict {
			continue
		}
		switch {
		case !known:
			errs.Addf(src, problem.Index(field, i), "--%s is not a kube-scheduler flag: check its spelling against kube-scheduler --help, "+
				"or set spec.schedulerContainer.command if your image's scheduler takes other flags", name)
		case !isBool && !hasValue:
			i++ // the next argument is this flag's value
		}
	}
}

// flagName returns the normalized name of a flag argument (-f, --f, -f=x,
// --f=x) and whether it carries its value. kube-scheduler reads "_" in a
// flag name as "-", so both spellings of a flag are the same flag.
func flagName(arg string) (name string, hasValue, ok bool) {
	if len(arg) < 2 || arg[0] != '-' {
		return "", false, false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, hasValue = strings.Cut(name, "=")
	if name == "" {
		return "", false, false
	}
	return strings.ReplaceAll(name, "_", "-"), hasValue, true
}

// trialOwnedFlags are the flags a trial sets itself (its configuration, no
// serving) or that name files only the scheduler's pod mounts.
var trialOwnedFlags = map[string]bool{
	"config": true, "secure-port": true, "bind-address": true, "cert-dir": true,
	"tls-cert-file": true, "tls-private-key-file": true, "tls-min-version": true, "tls-cipher-suites": true,
	"client-ca-file": true, "kubeconfig": true, "authentication-kubeconfig": true, "authorization-kubeconfig": true,
	// Who may read the arm's metrics, by which the trial knows it has settled.
	"authentication-skip-lookup": true, "authorization-always-allow-paths": true,
}

// TrialArgs are a scheduler container's args without the flags a trial owns,
// so that a trial runs the same feature gates and settings as the pods.
func TrialArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		name, hasValue, ok := flagName(args[i])
		if !ok || !trialOwnedFlags[name] {
			out = append(out, args[i])
			continue
		}
		if !hasValue && !knownFlags()[name] && i+1 < len(args) {
			i++ // its value
		}
	}
	return out
}
