package bench

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/util/retry"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/targetconfigcontroller"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// BenchmarkOperatorReactions runs the operator in-process (under the RBAC it
// ships) and times, over a watch, how long it takes from a change to the
// operator's answer: drift repairs and rollouts. Figures only:
//
//	KUBEBUILDER_ASSETS=$PWD/_output/controlplane/bin go test ./test/bench/ -run '^$' -bench BenchmarkOperatorReactions -benchtime 1x
func BenchmarkOperatorReactions(b *testing.B) {
	samples := envInt(b, "REACTION_BENCH_SAMPLES", 100)
	env := framework.Shared(b)
	framework.RunOperator(b, env.OperatorConfig(b))
	ctx := context.Background()
	kube := env.Admin.Kube
	ns := names.OperandNamespace
	userConfig := benchConfig
	if _, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, userConfig(0), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	env.CreateSecondaryScheduler(b, secondaryschedulerv1.SecondarySchedulerSpec{SchedulerConfig: "bench-config"})
	deployments := fromNow(kube.AppsV1().Deployments(ns).List, kube.AppsV1().Deployments(ns).Watch, names.OperandName)
	framework.WaitFor(ctx, b, "the operand Deployment", func() (bool, error) {
		_, err := kube.AppsV1().Deployments(ns).Get(ctx, names.OperandName, metav1.GetOptions{})
		return err == nil, nil
	})

	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		report(b, "deployment-restored", measure(b, samples, deployments,
			func() error {
				return kube.AppsV1().Deployments(ns).Delete(ctx, names.OperandName, metav1.DeleteOptions{})
			},
			func(e watch.Event) bool { return e.Type == watch.Added }))
		report(b, "serviceaccount-restored", measure(b, samples,
			fromNow(kube.CoreV1().ServiceAccounts(ns).List, kube.CoreV1().ServiceAccounts(ns).Watch, names.OperandName),
			func() error {
				return kube.CoreV1().ServiceAccounts(ns).Delete(ctx, names.OperandName, metav1.DeleteOptions{})
			},
			func(e watch.Event) bool { return e.Type == watch.Added }))
		report(b, "clusterrolebinding-restored", measure(b, samples,
			fromNow(kube.RbacV1().ClusterRoleBindings().List, kube.RbacV1().ClusterRoleBindings().Watch, render.OperandBindingName()),
			func() error {
				return kube.RbacV1().ClusterRoleBindings().Delete(ctx, render.OperandBindingName(), metav1.DeleteOptions{})
			},
			func(e watch.Event) bool {
				_, ok := e.Object.(*rbacv1.ClusterRoleBinding)
				return ok && e.Type == watch.Added
			}))
		report(b, "cr-change-to-template", crChangeToTemplate(b, env.Admin, samples, nil))
		// The Deployment moved to another configuration: its template's config
		// hash differs from the one before the change.
		version, before := 0, ""
		report(b, "configmap-change-to-rollout", measure(b, samples, deployments,
			func() error {
				d, err := kube.AppsV1().Deployments(ns).Get(ctx, names.OperandName, metav1.GetOptions{})
				if err != nil {
					return err
				}
				before = d.Spec.Template.Annotations[names.ConfigHashAnnotation]
				version++
				_, err = kube.CoreV1().ConfigMaps(ns).Update(ctx, userConfig(version), metav1.UpdateOptions{})
				return err
			},
			func(e watch.Event) bool {
				d, ok := e.Object.(*appsv1.Deployment)
				hash := ""
				if ok {
					hash = d.Spec.Template.Annotations[names.ConfigHashAnnotation]
				}
				return ok && e.Type == watch.Modified && hash != "" && hash != before
			}))
		added := func(e watch.Event) bool { return e.Type == watch.Added }
		report(b, "service-restored", measure(b, samples,
			fromNow(kube.CoreV1().Services(ns).List, kube.CoreV1().Services(ns).Watch, metricsService),
			func() error { return kube.CoreV1().Services(ns).Delete(ctx, metricsService, metav1.DeleteOptions{}) },
			added))
		report(b, "role-restored", measure(b, samples,
			fromNow(kube.RbacV1().Roles(ns).List, kube.RbacV1().Roles(ns).Watch, leaderElection),
			func() error { return kube.RbacV1().Roles(ns).Delete(ctx, leaderElection, metav1.DeleteOptions{}) },
			added))
		report(b, "rolebinding-restored", measure(b, samples,
			fromNow(kube.RbacV1().RoleBindings(ns).List, kube.RbacV1().RoleBindings(ns).Watch, leaderElection),
			func() error {
				return kube.RbacV1().RoleBindings(ns).Delete(ctx, leaderElection, metav1.DeleteOptions{})
			},
			added))
		// percentageOfNodesToScore is a percentage: kube-scheduler refuses 101 and more.
		refused := badConfigToDegraded(b, env.Admin, samples, nil, userConfig, func(i int) string {
			return fmt.Sprintf("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: %d\n", 101+i)
		})
		report(b, "bad-config-to-degraded", refused.refused)
		report(b, "simulator-change-to-pod", simulatorChangeToPod(b, env, samples))
		report(b, "failed-rollout-rolled-back", failedRolloutToRolledBack(b, env, samples, userConfig))
	}
}

// verbosityFlag is the scheduler argument each spec.logLevel renders to.
var verbosityFlag = map[operatorv1.LogLevel]string{operatorv1.Normal: "-v=2", operatorv1.Debug: "-v=4", operatorv1.Trace: "-v=6"}

// benchConfig is the i-th good version of the user's ConfigMap bench-config.
func benchConfig(i int) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bench-config", Namespace: names.OperandNamespace}, Data: map[string]string{
		names.ConfigKey: fmt.Sprintf("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: %d\n", 10+i%90),
	}}
}

// crChangeToTemplate times a change of the pod template, not of the
// Deployment's spec alone: spec.logLevel becomes the scheduler's -v. The
// change is a merge patch, as kubectl apply, edit and patch send one: a
// read and an update would time the bench's own retries whenever the
// operator's status writes made the update conflict. settle runs between
// changes (nil: measure's pause).
func crChangeToTemplate(b *testing.B, admin *framework.Clients, samples int, settle func()) []time.Duration {
	b.Helper()
	ctx := context.Background()
	deployments := admin.Kube.AppsV1().Deployments(names.OperandNamespace)
	crs := admin.Operator.OperatorV1().SecondarySchedulers()
	levels := []operatorv1.LogLevel{operatorv1.Debug, operatorv1.Trace, operatorv1.Normal}
	level := 0
	return measureSettled(b, samples, settle, fromNow(deployments.List, deployments.Watch, names.OperandName),
		func() error {
			level = (level + 1) % len(levels)
			patch := fmt.Appendf(nil, `{"spec":{"logLevel":%q}}`, levels[level])
			_, err := crs.Patch(ctx, secondaryschedulerv1.SingletonName, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		},
		func(e watch.Event) bool {
			d, ok := e.Object.(*appsv1.Deployment)
			return ok && e.Type == watch.Modified && slices.Contains(d.Spec.Template.Spec.Containers[0].Args, verbosityFlag[levels[level]])
		})
}

// Names of static operand objects, as their assets in bindata name them.
const metricsService, leaderElection = "secondary-scheduler-metrics", "secondary-scheduler-leader-election"

// refusals are badConfigToDegraded's samples. refused is each sample, from
// the write of the bad configuration until the SecondaryScheduler says
// Degraded. Beside it, two shares of it the operator has no part in: written
// is the write's round trip (the API server's work up to the write's commit
// and its reply), delivered is when a metadata watch of the ConfigMap got the
// change, which is when the API server sent it to its watchers, the
// operator among them. afterDelivery is refused less delivered, sample by
// sample: the operator's share (its sync and its status write) and the
// bench's watch of the status. grown holds, for each of costs, how much it
// grew over each refusal.
type refusals struct {
	refused, written, delivered, afterDelivery []time.Duration
	grown                                      [][]float64
}

// badConfigToDegraded writes bad(i), a configuration the operator refuses,
// into the user's ConfigMap and times until the SecondaryScheduler says
// Degraded; good(i) is written back (and Degraded cleared) before the next
// sample, with settle (nil: measure's pause) after each write.
func badConfigToDegraded(b *testing.B, admin *framework.Clients, samples int, settle func(), good func(int) *corev1.ConfigMap, bad func(int) string,
	costs ...func() float64) refusals {
	b.Helper()
	ctx := context.Background()
	configMaps := admin.Kube.CoreV1().ConfigMaps(names.OperandNamespace)
	configMapMetadata := metadata.NewForConfigOrDie(admin.Config).Resource(corev1.SchemeGroupVersion.WithResource("configmaps")).Namespace(names.OperandNamespace)
	crs := admin.Operator.OperatorV1().SecondarySchedulers()
	degraded := func(want operatorv1.ConditionStatus) func(watch.Event) bool {
		return func(e watch.Event) bool {
			ss, ok := e.Object.(*secondaryschedulerv1.SecondaryScheduler)
			if !ok {
				return false
			}
			c := v1helpers.FindOperatorCondition(ss.Status.Conditions, targetconfigcontroller.ConditionType)
			return c != nil && c.Status == want
		}
	}
	if settle == nil {
		settle = pause
	}
	out := refusals{grown: make([][]float64, len(costs))}
	for i := range samples {
		refused := good(i)
		refused.Data[names.ConfigKey] = bad(i)
		before := make([]float64, len(costs))
		for k, cost := range costs {
			before[k] = cost()
		}
		// A metadata watch, so that the API server sends this one a few
		// hundred bytes, not the configuration again.
		changes, err := fromNow(configMapMetadata.List, configMapMetadata.Watch, refused.Name)()
		if err != nil {
			b.Fatal(err)
		}
		delivered := make(chan time.Time, 1)
		go func() {
			defer close(delivered)
			for e := range changes.ResultChan() {
				if e.Type == watch.Modified {
					delivered <- time.Now()
					return
				}
			}
		}()
		var start, written time.Time
		took := measureSettled(b, 1, func() {}, fromNow(crs.List, crs.Watch, "cluster"),
			func() error {
				start = time.Now()
				_, err := configMaps.Update(ctx, refused, metav1.UpdateOptions{})
				written = time.Now()
				return err
			},
			degraded(operatorv1.ConditionTrue))[0]
		out.refused = append(out.refused, took)
		out.written = append(out.written, written.Sub(start))
		select {
		case at, ok := <-delivered:
			if !ok {
				b.Fatalf("sample %d: the watch of ConfigMap %s closed before the change", i, refused.Name)
			}
			out.delivered = append(out.delivered, at.Sub(start))
			out.afterDelivery = append(out.afterDelivery, took-at.Sub(start))
		case <-time.After(30 * time.Second):
			b.Fatalf("sample %d: no watch event for ConfigMap %s within 30s", i, refused.Name)
		}
		changes.Stop()
		for k, cost := range costs {
			out.grown[k] = append(out.grown[k], cost()-before[k])
		}
		settle()
		measureSettled(b, 1, settle, fromNow(crs.List, crs.Watch, "cluster"),
			func() error { _, err := configMaps.Update(ctx, good(i), metav1.UpdateOptions{}); return err },
			degraded(operatorv1.ConditionFalse))
	}
	return out
}

// failedRolloutToRolledBack times, for configurations kube-scheduler refuses
// at start, from the crashing pod of the new template to the Deployment back on
// the last known good template. Each sample first completes a good
// configuration, so that there is one to go back to. envtest runs no
// Deployment controller and no kubelet: their part is played.
func failedRolloutToRolledBack(b *testing.B, env *framework.Env, samples int, good func(int) *corev1.ConfigMap) []time.Duration {
	b.Helper()
	ctx := context.Background()
	ns := names.OperandNamespace
	configMaps := env.Admin.Kube.CoreV1().ConfigMaps(ns)
	deployments := env.Admin.Kube.AppsV1().Deployments(ns)
	crs := env.Admin.Operator.OperatorV1().SecondarySchedulers()
	status := func() secondaryschedulerv1.SecondarySchedulerStatus {
		ss, err := crs.Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		return ss.Status
	}
	// rollOut writes cm and waits for the Deployment to carry the configuration.
	rollOut := func(cm *corev1.ConfigMap) *appsv1.Deployment {
		before := status().ConfigHash
		if _, err := configMaps.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		var d *appsv1.Deployment
		framework.WaitFor(ctx, b, "the Deployment on the new configuration", func() (bool, error) {
			desired := status().ConfigHash
			var err error
			if d, err = deployments.Get(ctx, names.OperandName, metav1.GetOptions{}); err != nil {
				return false, err
			}
			return desired != before && framework.RolloutOf(d).ConfigHash == desired, nil
		})
		return d
	}
	defer func() { _ = env.Admin.DeleteSchedulerPods(ctx) }()
	var out []time.Duration
	for i := range samples {
		d := rollOut(good(i))
		lastGood := framework.RolloutOf(d)
		env.Admin.AddTemplatePod(b, fmt.Sprintf("good-%d", i), d, framework.RunningStatus())
		env.Admin.SetRolloutStatus(b, lastGood, framework.RolloutComplete)
		framework.WaitFor(ctx, b, "status.lastKnownGood", func() (bool, error) {
			s := status()
			return s.LastKnownGood != nil && *s.LastKnownGood == lastGood, nil
		})

		// A plugin name no scheduler has, new each time: a configuration
		// that failed before is not rolled out again.
		bad := good(i)
		bad.Data[names.ConfigKey] += fmt.Sprintf("profiles:\n- schedulerName: secondary-scheduler\n  plugins:\n    filter:\n      enabled: [{name: Nope%d}]\n", i)
		d = rollOut(bad)
		failing := framework.RolloutOf(d)
		env.Admin.SetRolloutStatus(b, failing, framework.RolloutStarted)
		out = append(out, measure(b, 1, fromNow(deployments.List, deployments.Watch, names.OperandName),
			func() error {
				env.Admin.AddTemplatePod(b, fmt.Sprintf("crash-%d", i), d, framework.CrashLoopStatus(1, fmt.Sprintf("plugin Nope%d does not exist", i)))
				return nil
			},
			func(e watch.Event) bool {
				rolledBack, ok := e.Object.(*appsv1.Deployment)
				return ok && framework.RolloutOf(rolledBack) == lastGood
			})...)
		if err := env.Admin.DeleteSchedulerPods(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// simulatorChangeToPod times, for one Simulator, from a change of its image to
// its new Pod's creation.
func simulatorChangeToPod(b *testing.B, env *framework.Env, samples int) []time.Duration {
	b.Helper()
	ctx := context.Background()
	ns := env.CreateNamespace(b, "reaction-sim")
	sims := env.Admin.Operator.SimulationV1alpha1().Simulators(ns)
	if _, err := sims.Create(ctx, &simv1alpha1.Simulator{ObjectMeta: metav1.ObjectMeta{Name: "sim"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	pods := env.Admin.Kube.CoreV1().Pods(ns)
	selector := simulatorrender.SimulatorLabel + "=sim"
	framework.WaitFor(ctx, b, "the Simulator's first Pod", func() (bool, error) {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: selector})
		return err == nil && len(list.Items) > 0, err
	})
	open := func() (watch.Interface, error) {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return nil, err
		}
		return pods.Watch(ctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: list.ResourceVersion})
	}
	image := ""
	return measure(b, samples, open,
		func() error {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				sim, err := sims.Get(ctx, "sim", metav1.GetOptions{})
				if err != nil {
					return err
				}
				image = fmt.Sprintf("example.com/simulator:%d", time.Now().UnixNano())
				sim.Spec.Image = image
				_, err = sims.Update(ctx, sim, metav1.UpdateOptions{})
				return err
			})
		},
		func(e watch.Event) bool {
			pod, ok := e.Object.(*corev1.Pod)
			return ok && e.Type == watch.Added && pod.Spec.Containers[0].Image == image
		})
}

// measure repeats act and times each until the watch shows done; it lets the
// operator settle between samples so one reaction does not overlap the next.
func measure(b *testing.B, samples int, open func() (watch.Interface, error), act func() error, done func(watch.Event) bool) []time.Duration {
	b.Helper()
	return measureSettled(b, samples, nil, open, act, done)
}

// pause is measure's settle.
func pause() { time.Sleep(200 * time.Millisecond) }

// measureSettled is measure, with settle run after each sample; nil pauses
// 200 ms, which is enough in-process, where no controller rolls a Deployment
// out and no kubelet runs its Pods.
func measureSettled(b *testing.B, samples int, settle func(), open func() (watch.Interface, error), act func() error, done func(watch.Event) bool) []time.Duration {
	b.Helper()
	if settle == nil {
		settle = pause
	}
	var out []time.Duration
	for i := 0; i < samples; i++ {
		w, err := open()
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := act(); err != nil {
			w.Stop()
			b.Fatal(err)
		}
		timeout := time.After(30 * time.Second)
	wait:
		for {
			select {
			case e, ok := <-w.ResultChan():
				if !ok {
					b.Fatal("watch closed")
				}
				if done(e) {
					out = append(out, time.Since(start))
					break wait
				}
			case <-timeout:
				b.Fatalf("sample %d: no reaction within 30s", i)
			}
		}
		w.Stop()
		settle()
	}
	return out
}

// fromNow opens a watch of the object called name that starts at the
// collection's current resourceVersion (from a List): it carries only what
// happens from then on, with no synthetic ADDED event for the object as it is.
func fromNow[L interface{ GetResourceVersion() string }](
	list func(context.Context, metav1.ListOptions) (L, error),
	watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error),
	name string,
) func() (watch.Interface, error) {
	return func() (watch.Interface, error) {
		opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}
		l, err := list(context.Background(), opts)
		if err != nil {
			return nil, err
		}
		opts.ResourceVersion = l.GetResourceVersion()
		return watchFn(context.Background(), opts)
	}
}

func report(b *testing.B, name string, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	pct := func(p float64) float64 {
		return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.5), name+"-p50-ms")
	b.ReportMetric(pct(0.99), name+"-p99-ms")
	b.ReportMetric(float64(d[len(d)-1].Microseconds())/1000, name+"-max-ms")
}
