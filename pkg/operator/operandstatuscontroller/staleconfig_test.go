package operandstatuscontroller

import (
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

func TestStaleConfig(t *testing.T) {
	const desired, lkg = "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"
	deployment := func(hash string) *appsv1.Deployment {
		d := &appsv1.Deployment{}
		d.Spec.Template.Annotations = map[string]string{names.ConfigHashAnnotation: hash}
		return d
	}
	pod := func(name, hash string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{names.ConfigHashAnnotation: hash}}}
	}
	deleting := pod("going", lkg)
	deleting.DeletionTimestamp = &metav1.Time{}

	for _, tc := range []struct {
		name       string
		d          *appsv1.Deployment
		pods       []*corev1.Pod
		rollingOut bool
		want       int
		fragments  []string
	}{
		{name: "all on the merged config", d: deployment(desired), pods: []*corev1.Pod{pod("a", desired), deleting}},
		{name: "old pods during a rollout are expected", d: deployment(desired), pods: []*corev1.Pod{pod("a", lkg)}, rollingOut: true},
		{name: "rolled back", d: deployment(lkg), pods: []*corev1.Pod{pod("b", lkg), pod("a", lkg)}, want: 2,
			fragments: []string{"2 scheduler pods", "merged one (ConfigMap " + names.ConfigMapNameFor(desired) + ")",
				names.ConfigMapNameFor(lkg) + " (a, b)", "rolled-back configuration"}},
		{name: "a pod outlived its rollout", d: deployment(desired), pods: []*corev1.Pod{pod("a", desired), pod("old", "")}, want: 1,
			fragments: []string{"no recorded configuration (old)", "outlived"}},
		{name: "no Deployment", pods: []*corev1.Pod{pod("a", lkg)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cond, n := staleConfig(tc.d, tc.pods, desired, tc.rollingOut)
			if n != tc.want || (cond.Status == operatorv1.ConditionTrue) != (tc.want > 0) || cond.Type != ConditionStaleConfig {
				t.Fatalf("got %d, %+v; want %d", n, cond, tc.want)
			}
			for _, f := range tc.fragments {
				if !strings.Contains(cond.Message, f) {
					t.Errorf("message %q lacks %q", cond.Message, f)
				}
			}
		})
	}
}
