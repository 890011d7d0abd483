package integration

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/cmd/ctl"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// diffReaderKubeconfig is a kubeconfig of a ServiceAccount that may only
// read what diff reads.
func (o *operatorUnderTest) diffReaderKubeconfig(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	reader := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "test-diff-reader"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"operator.openshift.io"}, Resources: []string{"secondaryschedulers"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"namespaces", "serviceaccounts", "services", "configmaps", "secrets"}, Verbs: []string{"get"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get"}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles", "clusterrolebindings", "roles", "rolebindings"}, Verbs: []string{"get"}},
	}}
	if _, err := o.admin.Kube.RbacV1().ClusterRoles().Create(ctx, reader, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = o.admin.Kube.RbacV1().ClusterRoles().Delete(context.Background(), reader.Name, metav1.DeleteOptions{})
	})
	return framework.WriteKubeconfig(t, o.env.ServiceAccountConfig(t, "diff-users", "differ", framework.ClusterRole(reader.Name)))
}

// diffInput writes the input the cluster runs, the live SecondaryScheduler
// (changed by mutate) and the user's ConfigMap holding config, to a file.
func (o *operatorUnderTest) diffInput(t *testing.T, config string, mutate func(*secondaryschedulerv1.SecondarySchedulerSpec)) string {
	t.Helper()
	ss, err := o.get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	spec := ss.Spec.DeepCopy()
	spec.ObservedConfig.Raw = nil // diff takes the cluster's observations
	if mutate != nil {
		mutate(spec)
	}
	docs := []any{
		&secondaryschedulerv1.SecondaryScheduler{TypeMeta: metav1.TypeMeta{APIVersion: "operator.openshift.io/v1", Kind: "SecondaryScheduler"},
			ObjectMeta: metav1.ObjectMeta{Name: ss.Name}, Spec: *spec},
		&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: userConfig, Namespace: names.OperandNamespace}, Data: map[string]string{names.ConfigKey: config}},
	}
	var buf bytes.Buffer
	for _, d := range docs {
		data, err := yaml.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	path := filepath.Join(t.TempDir(), "input.yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runDiff runs the diff command on file and returns what it printed.
func runDiff(t *testing.T, kubeconfig, file string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := ctl.Diff(context.Background(), []string{file}, kubeconfig, nil, &out)
	t.Logf("diff (%v):\n%s", err, out.String())
	return out.String(), err
}

func expectFragments(t *testing.T, out string, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(out, f) {
			t.Errorf("the output lacks %q", f)
		}
	}
}

// TestDiffCommand runs `secondary-scheduler-operator diff` against the operator's
// cluster as a ServiceAccount that may only read: the input the cluster runs
// shows no difference and no rollout; a changed ConfigMap shows the changed
// key of the scheduler configuration, the new ConfigMap, the Deployment that
// rolls and the decision to roll out; spec.rbac removed shows the extra Role
// deleted; spec.rbac beyond the ceiling shows the refusal.
func TestDiffCommand(t *testing.T) {
	o := startOperator(t)
	o.setUserConfig(t, baseConfig)
	o.createSecondaryScheduler(t, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: userConfig})
	o.grantNamespacedRule(t, nil)
	o.settled(t)
	ctx := context.Background()
	kubeconfig := o.diffReaderKubeconfig(t)
	input := o.diffInput
	diff := func(t *testing.T, file string) string {
		t.Helper()
		out, err := runDiff(t, kubeconfig, file)
		if err != nil {
			t.Fatalf("diff: %v", err)
		}
		return out
	}
	expect := expectFragments
	served := o.deployment(t).Spec.Template.Annotations[names.ConfigHashAnnotation]

	t.Run("what runs shows no difference", func(t *testing.T) {
		out := diff(t, input(t, baseConfig, nil))
		expect(t, out, "Scheduler configuration: no difference (ConfigMap "+names.ConfigMapNameFor(served)+" is served)", "Objects:\n  no change\n",
			"Decision: no rollout: the Deployment runs configuration "+served[:12]+" already")
	})

	t.Run("a changed configuration", func(t *testing.T) {
		out := diff(t, input(t, baseConfig+"percentageOfNodesToScore: 50\n", nil))
		expect(t, out, "- served now from ConfigMap "+names.ConfigMapNameFor(served), "percentageOfNodesToScore", "+ create ConfigMap "+names.OperandNamespace+"/"+names.ConfigMapName,
			"~ change Deployment "+names.OperandNamespace+"/"+names.OperandName+": the pod template", "the scheduler pods roll, to configuration "+names.ConfigMapName,
			", replacing "+served[:12])
		if strings.Contains(out, "\n  - delete") || strings.Contains(out, "~ change Role") {
			t.Errorf("only the configuration changed:\n%s", out)
		}
	})

	t.Run("a changed configuration under strategy Trial waits for its trial", func(t *testing.T) {
		out := diff(t, input(t, baseConfig+"percentageOfNodesToScore: 50\n", func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.Rollout = &secondaryschedulerv1.RolloutPolicy{Strategy: secondaryschedulerv1.RolloutTrial}
		}))
		expect(t, out, "Decision: would keep configuration "+served[:12]+" until a trial allows configuration ",
			"(spec.rollout.strategy Trial)", "A trial of configuration ", "is starting")
	})

	t.Run("spec.rbac removed", func(t *testing.T) {
		out := diff(t, input(t, baseConfig, func(s *secondaryschedulerv1.SecondarySchedulerSpec) { s.RBAC = nil }))
		expect(t, out, "Scheduler configuration: no difference", "- delete Role "+names.OperandNamespace+"/"+names.ExtraRBACName,
			"- delete RoleBinding "+names.OperandNamespace+"/"+names.ExtraRBACName)
	})

	t.Run("spec.rbac beyond the ceiling", func(t *testing.T) {
		out, err := runDiff(t, kubeconfig, input(t, baseConfig, func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
			s.RBAC = &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}}}}
		}))
		if err == nil {
			t.Error("diff exits 0 on an input the operator refuses")
		}
		expect(t, out, "Decision: would be refused: RBACRefused", "spec.rbac.clusterRules[0]: grants list secrets")
	})

	t.Run("read-only: nothing changed in the cluster", func(t *testing.T) {
		if got := o.deployment(t).Spec.Template.Annotations[names.ConfigHashAnnotation]; got != served {
			t.Errorf("the Deployment's configuration changed from %s to %s", served, got)
		}
		if _, err := o.admin.Kube.RbacV1().Roles(names.OperandNamespace).Get(ctx, names.ExtraRBACName, metav1.GetOptions{}); err != nil {
			t.Errorf("the extra Role: %v", err)
		}
	})
}
