package local

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// The sandbox's kube-apiserver serves Workloads and PodGroups only for a
// snapshot that holds them: one that does not know their API version or
// feature gate would refuse to start on the flags.
func TestAPIServerFlags(t *testing.T) {
	etcd := &envtest.Etcd{URL: &url.URL{Scheme: "http", Host: "127.0.0.1:2379"}}
	const runtimeConfig, gate = "--runtime-config=scheduling.k8s.io/v1beta1=true", "--feature-gates=GenericWorkload=true"
	plain := &trial.Snapshot{Replay: []corev1.Pod{{}}}
	gang := &trial.Snapshot{GangVersion: "v1beta1", Replay: []corev1.Pod{{Spec: corev1.PodSpec{SchedulingGroup: &corev1.PodSchedulingGroup{}}}}}
	for _, c := range []struct {
		name     string
		snap     *trial.Snapshot
		withGang bool
	}{{"no gangs", plain, false}, {"a pod in a PodGroup", gang, true}} {
		args := newAPIServer("/bin", etcd, trial.LoadOf(c.snap).APIServerFlags()).Configure().AsStrings(nil)
		if !slices.Contains(args, "--disable-admission-plugins=ServiceAccount,PodSecurity") {
			t.Errorf("%s: %q lacks the sandbox's own admission flag", c.name, args)
		}
		if got := slices.Contains(args, runtimeConfig) && slices.Contains(args, gate); got != c.withGang {
			t.Errorf("%s: serves scheduling.k8s.io/v1beta1 %t, want %t: %q", c.name, got, c.withGang, args)
		}
		setsAPIs := slices.ContainsFunc(args, func(a string) bool {
			return strings.HasPrefix(a, "--runtime-config=") || strings.HasPrefix(a, "--feature-gates=")
		})
		if !c.withGang && setsAPIs {
			t.Errorf("%s: %q sets what no snapshot needs", c.name, args)
		}
	}
}
