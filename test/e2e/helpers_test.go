package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

const (
	// crName is the singleton SecondaryScheduler.
	crName = "cluster"
	// reconcileTimeout bounds a rollout: the operator, the Deployment and
	// ReplicaSet controllers, the default scheduler and kwok, on 2 loaded cores.
	reconcileTimeout = 2 * time.Minute
	// recoveryTimeout bounds a rollout after kube-apiserver or etcd was
	// down. Every watcher then retries its failed watches and lists after
	// client-go's reflector back-off, which grows to [30, 60) s while the API
	// server fails them; a change passes two such watchers in a row
	// (kube-controller-manager's, then the operator's), which can add up to
	// 2 minutes before the rollout's own time.
	recoveryTimeout = reconcileTimeout + 2*time.Minute
	// commandTimeout bounds each run of a command that exits by itself
	// (kubectl, a script): past it, the command is killed and its error says so.
	commandTimeout = 2 * time.Minute
)

// kubectl runs the control plane's kubectl as the admin and returns its
// combined output. It is killed after commandTimeout: no call here waits
// longer (kubectl wait --timeout included), and a hung one must fail the
// test that made it, not the whole suite at go test's timeout.
func (c *cluster) kubectl(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(c.bin, "kubectl"), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// repoPath is a path in the repository.
func repoPath(t testing.TB, elem ...string) string {
	t.Helper()
	root, err := framework.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

// applyExample applies examples/<name>/ with `kubectl apply -f`, as the
// examples tell users to.
func (c *cluster) applyExample(t *testing.T, name string) {
	t.Helper()
	out, err := c.kubectl("apply", "-f", repoPath(t, "examples", name)+"/")
	if err != nil {
		t.Fatalf("kubectl apply -f examples/%s/: %v\n%s", name, err, out)
	}
	t.Logf("kubectl apply -f examples/%s/:\n%s", name, strings.TrimSpace(out))
}

// binPackingRolledOut applies examples/bin-packing, waits until the operator
// has rolled it out, and returns a new namespace prefix-<random> for the
// test's pods.
func (c *cluster) binPackingRolledOut(t *testing.T, prefix string) string {
	t.Helper()
	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)
	return c.createNamespace(t, prefix)
}

// getCR reads the SecondaryScheduler.
func (c *cluster) getCR(ctx context.Context) (*secondaryschedulerv1.SecondaryScheduler, error) {
	return c.admin.Operator.OperatorV1().SecondarySchedulers().Get(ctx, crName, metav1.GetOptions{})
}

// updateSpec changes the SecondaryScheduler's spec with mutate (retrying on
// conflicts with the operator's writes).
func (c *cluster) updateSpec(t *testing.T, mutate func(*secondaryschedulerv1.SecondarySchedulerSpec)) {
	t.Helper()
	if err := c.admin.UpdateSecondaryScheduler(context.Background(), mutate); err != nil {
		t.Fatalf("updating SecondaryScheduler %s: %v", crName, err)
	}
}

// condition returns the condition of type t, or nil.
func condition(conds []operatorv1.OperatorCondition, t string) *operatorv1.OperatorCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// hasCondition says whether the condition of type t has status s.
func hasCondition(conds []operatorv1.OperatorCondition, t string, s operatorv1.ConditionStatus) error {
	c := condition(conds, t)
	if c == nil {
		return fmt.Errorf("no condition %s", t)
	}
	if c.Status != s {
		return fmt.Errorf("%s is %s (%s: %s), want %s", t, c.Status, c.Reason, c.Message, s)
	}
	return nil
}

// waitReconciled waits until the cluster holds what render.Render makes of the
// SecondaryScheduler as it is now (and the ConfigMap it names): the merged
// configuration, the Deployment's pod (containers, images, replicas), the extra
// RBAC; until the Deployment has rolled out with every pod available (so the
// ReplicaSet could create them in the restricted operand namespace); and until
// the CR says Available, not Progressing, not Degraded for its generation.
func (c *cluster) waitReconciled(t *testing.T) *appsv1.Deployment {
	t.Helper()
	return c.waitReconciledWithin(t, reconcileTimeout)
}

// waitReconciledWithin is waitReconciled with another bound.
func (c *cluster) waitReconciledWithin(t *testing.T, timeout time.Duration) *appsv1.Deployment {
	t.Helper()
	var d *appsv1.Deployment
	framework.WaitForWithin(context.Background(), t, timeout, "the operator to roll out the SecondaryScheduler", func() (bool, error) {
		var err error
		d, err = c.reconciled(context.Background())
		return err == nil, err
	})
	return d
}

// render is what render.Render makes of the SecondaryScheduler as it is now
// (and the ConfigMap it names).
func (c *cluster) render(ctx context.Context) (*secondaryschedulerv1.SecondaryScheduler, *render.Objects, error) {
	kube := c.admin.Kube
	ss, err := c.getCR(ctx)
	if err != nil {
		return nil, nil, err
	}
	var userConfig *corev1.ConfigMap
	if name := ss.Spec.SchedulerConfig; name != "" {
		userConfig, err = kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("the ConfigMap spec.schedulerConfig names: %w", err)
		}
	}
	_, err = kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.ServingCertSecretName, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, nil, err
	}
	want, err := render.Render(render.Inputs{SecondaryScheduler: ss, UserConfig: userConfig, ServingCertAvailable: err == nil})
	if err != nil {
		return nil, nil, fmt.Errorf("the SecondaryScheduler does not render: %w", err)
	}
	return ss, want, nil
}

func (c *cluster) reconciled(ctx context.Context) (*appsv1.Deployment, error) {
	kube := c.admin.Kube
	ss, want, err := c.render(ctx)
	if err != nil {
		return nil, err
	}
	cm, err := kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, want.ConfigMap.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(cm.Data, want.ConfigMap.Data) {
		return nil, fmt.Errorf("ConfigMap %s does not hold the rendered configuration", want.ConfigMap.Name)
	}
	d, err := kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if got := d.Spec.Template.Annotations[names.ConfigHashAnnotation]; got != want.ConfigHash {
		return nil, fmt.Errorf("the Deployment's config hash is %q, want %q", got, want.ConfigHash)
	}
	if got, exp := containerImages(d.Spec.Template.Spec), containerImages(want.Deployment.Spec.Template.Spec); got != exp {
		return nil, fmt.Errorf("the Deployment runs %s, want %s", got, exp)
	}
	replicas := *want.Deployment.Spec.Replicas
	if d.Spec.Replicas == nil || *d.Spec.Replicas != replicas {
		return nil, fmt.Errorf("the Deployment has %v replicas, want %d", d.Spec.Replicas, replicas)
	}
	if !reflect.DeepEqual(d.Spec.Template.Spec.NodeSelector, want.Deployment.Spec.Template.Spec.NodeSelector) {
		return nil, fmt.Errorf("the Deployment's nodeSelector is %v, want %v", d.Spec.Template.Spec.NodeSelector, want.Deployment.Spec.Template.Spec.NodeSelector)
	}
	s := d.Status
	if s.ObservedGeneration < d.Generation || s.UpdatedReplicas != replicas || s.Replicas != replicas || s.AvailableReplicas != replicas {
		return nil, fmt.Errorf("the Deployment is rolling out: generation %d observed %d, %d replicas, %d updated, %d available, want %d",
			d.Generation, s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.AvailableReplicas, replicas)
	}
	if err := c.extraRBACMatches(ctx, want); err != nil {
		return nil, err
	}
	st := ss.Status
	if st.ObservedGeneration != ss.Generation {
		return nil, fmt.Errorf("the SecondaryScheduler's status is for generation %d, want %d", st.ObservedGeneration, ss.Generation)
	}
	if st.ConfigHash != want.ConfigHash || !reflect.DeepEqual(st.SchedulerNames, want.SchedulerNames) {
		return nil, fmt.Errorf("the SecondaryScheduler's status has config %q for %v, want %q for %v",
			st.ConfigHash, st.SchedulerNames, want.ConfigHash, want.SchedulerNames)
	}
	for t, s := range map[string]operatorv1.ConditionStatus{
		"Available": operatorv1.ConditionTrue, "Progressing": operatorv1.ConditionFalse, "Degraded": operatorv1.ConditionFalse,
	} {
		if err := hasCondition(st.Conditions, t, s); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// containerImages lists "name=image" of init containers and containers.
func containerImages(spec corev1.PodSpec) string {
	var out []string
	for _, c := range spec.InitContainers {
		out = append(out, "init:"+c.Name+"="+c.Image)
	}
	for _, c := range spec.Containers {
		out = append(out, c.Name+"="+c.Image)
	}
	return strings.Join(out, ",")
}

// extraRBACMatches checks the spec.rbac ClusterRole and Role: present with the
// rendered rules, or absent when nothing is rendered.
func (c *cluster) extraRBACMatches(ctx context.Context, want *render.Objects) error {
	rbac := c.admin.Kube.RbacV1()
	var wantCluster, wantNamespaced []rbacv1.PolicyRule
	if r := want.Extra.ClusterRole; r != nil {
		wantCluster = r.Rules
	}
	if r := want.Extra.Role; r != nil {
		wantNamespaced = r.Rules
	}
	cr, err := rbac.ClusterRoles().Get(ctx, names.ExtraRBACName, metav1.GetOptions{})
	if err := rulesMatch("ClusterRole "+names.ExtraRBACName, cr, err, func() []rbacv1.PolicyRule { return cr.Rules }, wantCluster); err != nil {
		return err
	}
	r, err := rbac.Roles(names.OperandNamespace).Get(ctx, names.ExtraRBACName, metav1.GetOptions{})
	return rulesMatch("Role "+names.ExtraRBACName, r, err, func() []rbacv1.PolicyRule { return r.Rules }, wantNamespaced)
}

func rulesMatch[T any](what string, obj *T, err error, rules func() []rbacv1.PolicyRule, want []rbacv1.PolicyRule) error {
	switch {
	case apierrors.IsNotFound(err):
		if len(want) > 0 {
			return fmt.Errorf("%s does not exist yet", what)
		}
		return nil
	case err != nil:
		return err
	case len(want) == 0:
		return fmt.Errorf("%s still exists; spec.rbac grants nothing", what)
	case !reflect.DeepEqual(rules(), want):
		return fmt.Errorf("%s has rules %v, want %v", what, rules(), want)
	}
	return nil
}

// createNamespace creates a namespace prefix-<random>, deleted (by the
// namespace controller) when the test ends.
func (c *cluster) createNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns, err := c.admin.Kube.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.admin.Kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	return ns.Name
}

// runningScheduler is the kube-scheduler the harness runs for the operand.
type runningScheduler struct {
	mu      sync.Mutex
	current *operandrunner.Scheduler
	starts  int
}

// Current is the scheduler started last, or nil.
func (r *runningScheduler) Current() *operandrunner.Scheduler {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.current
}

// Log is everything the scheduler logged so far (all restarts).
func (r *runningScheduler) Log(t *testing.T) string {
	t.Helper()
	s := r.Current()
	if s == nil {
		return ""
	}
	data, err := os.ReadFile(s.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// testDir is the directory of the run's work directory for the test's files of
// one kind (prefix).
func (c *cluster) testDir(t *testing.T, prefix string) string {
	return filepath.Join(c.dir, prefix+"-"+regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-"))
}

// playKubelet runs the operand's scheduler as a host process (operandrunner)
// until the test ends.
func (c *cluster) playKubelet(t *testing.T) *runningScheduler {
	t.Helper()
	dir := c.testDir(t, "operand")
	r := &runningScheduler{}
	framework.RunInBackground(t, func(ctx context.Context) {
		err := operandrunner.Run(ctx, operandrunner.Options{
			Admin:            c.config,
			KubeScheduler:    filepath.Join(c.bin, "kube-scheduler"),
			SchedulerPlugins: filepath.Join(c.bin, "scheduler-plugins"),
			Dir:              dir,
			Logf:             t.Logf,
		}, func(s *operandrunner.Scheduler) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.current = s
			r.starts++
		})
		if err != nil {
			t.Errorf("playing kubelet: %v", err)
		}
	})
	return r
}
