package targetconfigcontroller

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/kubecache"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// fakeOperatorClient serves one SecondaryScheduler and records the status
// this controller applies; the sync uses nothing else of the interface.
type fakeOperatorClient struct {
	operatorclient.Interface
	ss      *secondaryschedulerv1.SecondaryScheduler
	applied []*secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration
}

func (f *fakeOperatorClient) Get() (*secondaryschedulerv1.SecondaryScheduler, error) {
	return f.ss, nil
}
func (f *fakeOperatorClient) EnsureFinalizer(context.Context, string) error { return nil }
func (f *fakeOperatorClient) Informer() cache.SharedIndexInformer           { return nil }
func (f *fakeOperatorClient) ApplyStatus(_ context.Context, _ string, s *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration) (bool, error) {
	f.applied = append(f.applied, s)
	return true, nil
}

// condition is the TargetConfigControllerDegraded condition last applied.
func (f *fakeOperatorClient) condition(t *testing.T) (operatorv1.ConditionStatus, string, string) {
	t.Helper()
	if len(f.applied) == 0 {
		t.Fatal("no status applied")
	}
	for _, c := range f.applied[len(f.applied)-1].Conditions {
		if *c.Type == ConditionType {
			return *c.Status, *c.Reason, *c.Message
		}
	}
	t.Fatal("the applied status has no " + ConditionType)
	return "", "", ""
}

// syncFixture is the controller over fake clientsets holding objects, with
// its informers synced and Render counted.
type syncFixture struct {
	c       *targetConfigController
	kube    *fake.Clientset
	op      *fakeOperatorClient
	renders int
}

func newSyncFixture(t *testing.T, ss *secondaryschedulerv1.SecondaryScheduler, objects ...runtime.Object) *syncFixture {
	t.Helper()
	return newSyncFixtureReading(t, false, ss, objects...)
}

// newSyncFixtureReading is newSyncFixture; with cachedReads, the controller
// reads as in the operator, through kubecache's client.
func newSyncFixtureReading(t *testing.T, cachedReads bool, ss *secondaryschedulerv1.SecondaryScheduler, objects ...runtime.Object) *syncFixture {
	t.Helper()
	kube := fake.NewClientset(objects...)
	kubeInformers := v1helpers.NewKubeInformersForNamespaces(kube, "", names.OperandNamespace)
	grantable := informers.NewSharedInformerFactory(kube, 0)
	f := &syncFixture{kube: kube, op: &fakeOperatorClient{ss: ss}}
	var client kubernetes.Interface = kube
	if cachedReads {
		client = kubecache.NewCachedKubeClient(kube, kubeInformers)
	}
	f.c = newController(f.op, client, kubeInformers, grantable.Rbac().V1().ClusterRoles(), func(context.Context, events.Recorder) error { return nil }, 0)
	f.c.recorderOn = func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder {
		return events.NewInMemoryRecorder("test", f.c.clock)
	}
	f.c.render = func(in render.Inputs) (*render.Objects, error) {
		f.renders++
		return render.Render(in)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	kubeInformers.Start(ctx.Done())
	grantable.Start(ctx.Done())
	for ns, synced := range kubeInformers.InformersFor("").WaitForCacheSync(ctx.Done()) {
		if !synced {
			t.Fatalf("informer %v did not sync", ns)
		}
	}
	kubeInformers.InformersFor(names.OperandNamespace).WaitForCacheSync(ctx.Done())
	grantable.WaitForCacheSync(ctx.Done())
	return f
}

// sync runs one sync and checks that it rendered at most once.
func (f *syncFixture) sync(t *testing.T) error {
	t.Helper()
	before := f.renders
	err := f.c.sync(context.Background(), factory.NewSyncContext("test", events.NewInMemoryRecorder("test", f.c.clock)))
	if n := f.renders - before; n > 1 {
		t.Errorf("one sync rendered %d times, want at most once", n)
	}
	return err
}

// writes are the create, update and delete requests the sync sent.
func (f *syncFixture) writes() []string {
	var out []string
	for _, a := range f.kube.Actions() {
		switch a.GetVerb() {
		case "create", "update", "delete", "patch":
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

func newSecondaryScheduler() *secondaryschedulerv1.SecondaryScheduler {
	ss := &secondaryschedulerv1.SecondaryScheduler{ObjectMeta: metav1.ObjectMeta{Name: secondaryschedulerv1.SingletonName, UID: "uid-1"}}
	ss.Spec.ManagementState = operatorv1.Managed
	ss.Spec.SchedulerImage = "registry.example/scheduler:1"
	return ss
}

func operandNamespace() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names.OperandNamespace, Labels: render.PodSecurityLabels}}
}

func TestSyncRollsOut(t *testing.T) {
	f := newSyncFixture(t, newSecondaryScheduler(), operandNamespace())
	counted := countRollouts(t)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	expectRolled(t, "the first rollout", counted, 1, 0)
	status, reason, _ := f.op.condition(t)
	if status != operatorv1.ConditionFalse || reason != "AsExpected" {
		t.Errorf("condition %s %s, want False AsExpected", status, reason)
	}
	d, err := f.kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("no Deployment rolled out: %v", err)
	}
	hash := d.Spec.Template.Annotations[names.ConfigHashAnnotation]
	if _, err := f.kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(context.Background(), names.ConfigMapNameFor(hash), metav1.GetOptions{}); err != nil {
		t.Errorf("the ConfigMap of the Deployment's configuration: %v", err)
	}
	if f.renders != 1 {
		t.Errorf("rendered %d times, want 1", f.renders)
	}
	// Whether or not the cache has the Deployment yet, nothing new rolls.
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	expectRolled(t, "the first rollout, synced again", counted, 1, 0)
}

func TestSyncRemoved(t *testing.T) {
	ss := newSecondaryScheduler()
	ss.Spec.ManagementState = operatorv1.Removed
	live := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: names.OperandName, Namespace: names.OperandNamespace}}
	f := newSyncFixture(t, ss, operandNamespace(), live)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if status, reason, _ := f.op.condition(t); status != operatorv1.ConditionFalse || reason != "Removed" {
		t.Errorf("condition %s %s, want False Removed", status, reason)
	}
	if _, err := f.kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), names.OperandName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the Deployment is still there (%v)", err)
	}
	if f.renders != 0 {
		t.Errorf("Removed rendered %d times", f.renders)
	}
}

func TestSyncInvalidInput(t *testing.T) {
	ss := newSecondaryScheduler()
	ss.Spec.SchedulerConfig = "missing"
	f := newSyncFixture(t, ss, operandNamespace())
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	status, reason, msg := f.op.condition(t)
	if status != operatorv1.ConditionTrue || reason != reasonInvalidInput || !strings.Contains(msg, "missing") {
		t.Errorf("condition %s %s %q, want True InvalidInput naming the ConfigMap", status, reason, msg)
	}
	if w := f.writes(); len(w) != 0 {
		t.Errorf("an invalid input wrote %v", w)
	}
}

func TestSyncRBACRefused(t *testing.T) {
	ss := newSecondaryScheduler()
	ss.Spec.RBAC = &secondaryschedulerv1.SchedulerRBAC{ClusterRules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}},
	}}
	grantable := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: names.GrantableClusterRole},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}
	// Granted under a wider ceiling, now narrowed: revoked.
	granted := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: names.ExtraRBACName}, Rules: ss.Spec.RBAC.ClusterRules}
	f := newSyncFixture(t, ss, operandNamespace(), grantable, granted)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	status, reason, msg := f.op.condition(t)
	if status != operatorv1.ConditionTrue || reason != reasonRBACRefused || !strings.Contains(msg, "spec.rbac.clusterRules[0]: grants get secrets") {
		t.Errorf("condition %s %s %q, want True RBACRefused naming the rule", status, reason, msg)
	}
	if w := strings.Join(f.writes(), ","); w != "delete clusterroles" {
		t.Errorf("writes %q, want only the revocation of the uncovered role", w)
	}
}

func TestSyncApplyFailedAfterConflicts(t *testing.T) {
	f := newSyncFixture(t, newSecondaryScheduler(), operandNamespace())
	f.kube.PrependReactor("create", "deployments", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, names.OperandName, fmt.Errorf("modified"))
	})
	for i := 1; i < conflictsBeforeDegraded; i++ {
		if err := f.sync(t); !apierrors.IsConflict(err) {
			t.Fatalf("sync %d: %v, want the conflict back for a retry", i, err)
		}
		if len(f.op.applied) != 0 {
			t.Fatalf("sync %d reported a conflict that a retry may clear", i)
		}
	}
	if err := f.sync(t); !apierrors.IsConflict(err) {
		t.Fatalf("sync %d: %v", conflictsBeforeDegraded, err)
	}
	if status, reason, _ := f.op.condition(t); status != operatorv1.ConditionTrue || reason != reasonApplyFailed {
		t.Errorf("after %d conflicts: %s %s, want True ApplyFailed", conflictsBeforeDegraded, status, reason)
	}
}

// A change reaches the Deployment in one request, a patch, which needs no
// resourceVersion: the deployment controller's writes never make it conflict,
// and what they wrote stays.
func TestSyncPatchesTheDeploymentKeepingOthersWrites(t *testing.T) {
	ss := newSecondaryScheduler()
	f := newSyncFixtureReading(t, true, ss, operandNamespace())
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	deployments := f.c.deployments
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, err := deployments.Get(names.OperandName)
		return err == nil, nil
	}); err != nil {
		t.Fatal("the created Deployment never reached the cache")
	}
	// The deployment controller's writes, which the cache may not have seen:
	// an update would carry the cached resourceVersion and conflict.
	live := f.kube.AppsV1().Deployments(names.OperandNamespace)
	d, err := live.Get(context.Background(), names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Annotations["deployment.kubernetes.io/revision"] = "7"
	d.Status.ObservedGeneration = d.Generation
	if err := f.kube.Tracker().Update(appsv1.SchemeGroupVersion.WithResource("deployments"), d, d.Namespace); err != nil {
		t.Fatal(err)
	}
	ss.Spec.LogLevel = operatorv1.Debug
	f.kube.ClearActions()
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	var requests []string
	for _, a := range f.kube.Actions() {
		if a.GetResource().Resource == "deployments" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			requests = append(requests, a.GetVerb())
		}
	}
	if got := strings.Join(requests, ","); got != "patch" {
		t.Errorf("Deployment requests %q, want one patch", got)
	}
	d, err = live.Get(context.Background(), names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(d.Spec.Template.Spec.Containers[0].Args, "-v=4") {
		t.Errorf("the patched Deployment's args %v, want the new log level (-v=4)", d.Spec.Template.Spec.Containers[0].Args)
	}
	if got := d.Annotations["deployment.kubernetes.io/revision"]; got != "7" {
		t.Errorf("the deployment controller's revision annotation is %q after the patch, want 7", got)
	}
	if status, reason, _ := f.op.condition(t); status != operatorv1.ConditionFalse || reason != "AsExpected" {
		t.Errorf("condition %s %s, want False AsExpected", status, reason)
	}
}

// A rollout whose pods crash is taken back to the last configuration that
// ran: the Deployment gets that configuration's template, and the failure is
// reported and recorded.
func TestSyncRolloutFailedRollsBack(t *testing.T) {
	ss := newSecondaryScheduler()
	// What ran before: the same spec, another user configuration.
	before := ss.DeepCopy()
	before.Spec.LogLevel = operatorv1.Normal
	good := mustRender(t, render.Inputs{SecondaryScheduler: before, UserConfig: userConfig("profiles:\n- schedulerName: before\n")})
	ss.Spec.SchedulerConfig = "user"
	user := userConfig("profiles:\n- schedulerName: after\n")
	desired := mustRender(t, render.Inputs{SecondaryScheduler: ss, UserConfig: user})
	ss.Status.LastKnownGood = &secondaryschedulerv1.Rollout{ConfigHash: good.ConfigHash, TemplateHash: good.TemplateHash}

	live := desired.Deployment.DeepCopy()
	live.Generation, live.Status = 2, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 1, AvailableReplicas: 1}
	crashing := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "new", Namespace: names.OperandNamespace, Labels: live.Spec.Template.Labels,
			Annotations: map[string]string{names.TemplateHashAnnotation: desired.TemplateHash}},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: names.OperandName,
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Message: "plugin Nope does not exist"}}}}},
	}
	f := newSyncFixture(t, ss, operandNamespace(), user, good.ConfigMap, desired.ConfigMap, live, crashing)
	f.c.clock = clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	counted := countRollouts(t)
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	expectRolled(t, "a rollback", counted, 0, 1)
	status, reason, msg := f.op.condition(t)
	if status != operatorv1.ConditionTrue || reason != reasonRolloutFailed || !strings.Contains(msg, "plugin Nope does not exist") ||
		!strings.Contains(msg, "Rolled back to configuration "+good.ConfigHash[:12]) {
		t.Errorf("condition %s %s %q, want True RolloutFailed, rolled back, with the pod's error", status, reason, msg)
	}
	d, err := f.kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), names.OperandName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Spec.Template.Annotations[names.ConfigHashAnnotation]; got != good.ConfigHash {
		t.Errorf("the Deployment runs configuration %s, want the last known good %s", got, good.ConfigHash)
	}
	if f.c.own.record.FailedRollout == nil || f.c.own.record.FailedRollout.TemplateHash != desired.TemplateHash {
		t.Errorf("failed rollout recorded as %+v", f.c.own.record.FailedRollout)
	}
	// The next sync finds the rolled-back template, or a cache still behind
	// the patch: the rollback is not counted again either way.
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	expectRolled(t, "a rollback, synced again", counted, 0, 1)
}

func userConfig(profiles string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "user", Namespace: names.OperandNamespace},
		Data: map[string]string{names.ConfigKey: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" + profiles}}
}

func mustRender(t *testing.T, in render.Inputs) *render.Objects {
	t.Helper()
	if in.UserConfig != nil && in.SecondaryScheduler.Spec.SchedulerConfig == "" {
		in.SecondaryScheduler.Spec.SchedulerConfig = in.UserConfig.Name
	}
	objs, err := render.Render(in)
	if err != nil {
		t.Fatal(err)
	}
	objs.ConfigMap.Immutable = ptr.To(true)
	return objs
}

// A new SecondaryScheduler's first rollout waits for the config observer's
// first pass that succeeded, and no longer than observerWait.
func TestSyncWaitsForTheObserver(t *testing.T) {
	now := time.Unix(1000, 0)
	ss := newSecondaryScheduler()
	ss.CreationTimestamp = metav1.NewTime(now)
	f := newSyncFixture(t, ss, operandNamespace())
	f.c.observerWait, f.c.clock = 30*time.Second, clocktesting.NewFakePassiveClock(now.Add(time.Second))
	deployed := func() bool {
		_, err := f.kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), names.OperandName, metav1.GetOptions{})
		return err == nil
	}
	// A pass whose spec write failed observed nothing.
	ss.Status.Conditions = []operatorv1.OperatorCondition{{Type: "ConfigObservationDegraded", Status: operatorv1.ConditionTrue}}
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if status, reason, _ := f.op.condition(t); deployed() || status != operatorv1.ConditionFalse || reason != "WaitingForObservedConfig" {
		t.Fatalf("before the observer's pass: deployed %v, condition %s %s; want no Deployment, WaitingForObservedConfig", deployed(), status, reason)
	}
	ss.Status.Conditions[0].Status = operatorv1.ConditionFalse
	if err := f.sync(t); err != nil || !deployed() {
		t.Fatalf("after the observer's pass: %v, deployed %v", err, deployed())
	}
}

// Without the observer's pass, the wait ends at observerWait.
func TestSyncWaitIsBounded(t *testing.T) {
	now := time.Unix(1000, 0)
	ss := newSecondaryScheduler()
	ss.CreationTimestamp = metav1.NewTime(now)
	f := newSyncFixture(t, ss, operandNamespace())
	f.c.observerWait, f.c.clock = 30*time.Second, clocktesting.NewFakePassiveClock(now.Add(31*time.Second))
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if _, err := f.kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), names.OperandName, metav1.GetOptions{}); err != nil {
		t.Fatalf("no Deployment %s after the wait's bound: %v", time.Second*31, err)
	}
}

// klogAt captures klog's output at verbosity v for the rest of the test.
func klogAt(t *testing.T, v string) *strings.Builder {
	t.Helper()
	var flags flag.FlagSet
	klog.InitFlags(&flags)
	for name, value := range map[string]string{"v": v, "logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		old := flags.Lookup(name).Value.String()
		if err := flags.Set(name, value); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = flags.Set(name, old) })
	}
	var out strings.Builder
	klog.SetOutput(&out)
	t.Cleanup(func() { klog.SetOutput(os.Stderr) })
	return &out
}

func TestSyncLogsTheStepsOfASlowSync(t *testing.T) {
	out := klogAt(t, "2")
	f := newSyncFixture(t, newSecondaryScheduler(), operandNamespace())
	f.c.slowSync = time.Hour
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "target-config sync") {
		t.Fatalf("a sync under the threshold logged its trace:\n%s", out)
	}
	f.c.slowSync = time.Nanosecond
	f.op.ss.Spec.LogLevel = operatorv1.Debug // a change: every step runs
	if err := f.sync(t); err != nil {
		t.Fatal(err)
	}
	klog.Flush()
	logged := out.String()
	want := []string{`"target-config sync"`, `"finalizer ensured"`, `"gathered"`, `"rendered"`, `"decided" action:`, `"extra RBAC applied"`,
		`"ConfigMap applied"`, `"Pod Security labels ensured"`, `"Deployment applied"`, `"ConfigMaps pruned"`, `"former bindings deleted"`, `"status applied"`}
	at := 0
	for _, w := range want {
		i := strings.Index(logged[at:], w)
		if i < 0 {
			t.Fatalf("the trace of a slow sync has no %s after offset %d:\n%s", w, at, logged)
		}
		at += i + len(w)
	}
}
