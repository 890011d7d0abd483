package ctl

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"github.com/google/go-cmp/cmp"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/spf13/cobra"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/schedulerconfig"
)

type diffOptions struct {
	files      []string
	kubeconfig string
}

// newDiffCommand is diff: what the operator would change in the cluster, read-only.
func newDiffCommand() *cobra.Command {
	o := &diffOptions{}
	c := &cobra.Command{
		Use:   "diff -f FILE [-f FILE ...] [--kubeconfig FILE]",
		Short: "Show what the operator would change for a SecondaryScheduler: the scheduler configuration served and the objects; read-only",
		Long: `Reads the same input as render (a SecondaryScheduler, the ConfigMap its
spec.schedulerConfig names, optionally the cluster's APIServer and Scheduler)
and a cluster, and prints:

  - the semantic difference between the merged scheduler configuration this
    input makes and the one the scheduler Deployment mounts now ("-" served now,
    "+" after the change); key order and formatting do not count;
  - the objects the operator would create, change (the fields and labels it
    owns: configuration data, rules, bindings, the Service's ports, the pod
    template) or delete (spec.rbac objects no longer asked for, the bindings of
    earlier releases, everything but the namespace on managementState Removed;
    nothing on Unmanaged);
  - the decision the operator would take for the scheduler Deployment, from
    the same code and the cluster's rollout record: roll out, no rollout, roll
    back to the last configuration that ran (when this input's failed before),
    or hold.

Without APIServer or Scheduler documents, the input is observed as the
cluster's SecondaryScheduler is (its spec.observedConfig). It only reads: no
request writes. Invalid input prints the problems, as render does, and exits
non-zero; spec.rbac beyond the ceiling prints "would be refused: RBACRefused"
with the rules, and exits non-zero.`,
		Args: cobra.NoArgs,
		Run: func(c *cobra.Command, _ []string) {
			if err := Diff(c.Context(), o.files, o.kubeconfig, c.InOrStdin(), c.OutOrStdout()); err != nil {
				printRenderError(c.ErrOrStderr(), err)
				exit(1)
			}
		},
	}
	c.Flags().StringArrayVarP(&o.files, "filename", "f", nil, "a YAML file of input objects; - reads standard input")
	c.Flags().StringVar(&o.kubeconfig, "kubeconfig", "", "the cluster's kubeconfig (default: $KUBECONFIG, ~/.kube/config, in-cluster)")
	return c
}

// Diff is the diff command: what the operator would change, given the input
// files (as render reads them) and the cluster of kubeconfig ("" for the
// default loading rules). It only reads from the cluster.
func Diff(ctx context.Context, files []string, kubeconfig string, stdin io.Reader, stdout io.Writer) error {
	ch, err := loadChange(ctx, files, kubeconfig, stdin)
	if err != nil {
		return printRefusal(stdout, err)
	}
	kube, objs, config := ch.kube, ch.objs, ch.config
	if err := printConfigDiff(stdout, ch.served, ch.servedFrom, objs); err != nil {
		return err
	}
	printDecision(stdout, objs, ch.gathered)
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	changes, err := objectChanges(ctx, kube, dyn, ch.in.scheduler.Spec.ManagementState, objs)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\nObjects:")
	if len(changes) == 0 {
		fmt.Fprintln(stdout, "  no change")
	}
	for _, line := range changes {
		fmt.Fprintln(stdout, "  "+line)
	}
	return nil
}

func printConfigDiff(w io.Writer, served, servedFrom string, objs *render.Objects) error {
	desired := objs.ConfigMap.Data[names.ConfigKey]
	switch {
	case servedFrom == "":
		fmt.Fprintf(w, "Scheduler configuration: none is served now; ConfigMap %s would be:\n%s", objs.ConfigMap.Name, desired)
		return nil
	case servedFrom == objs.ConfigMap.Name:
		fmt.Fprintf(w, "Scheduler configuration: no difference (ConfigMap %s is served)\n", servedFrom)
		return nil
	}
	var before, after map[string]any
	// The served ConfigMap is read from the cluster: bounded before it is decoded.
	if err := schedulerconfig.CheckDocument([]byte(served)); err != nil {
		return fmt.Errorf("the served configuration (ConfigMap %s): %w", servedFrom, err)
	}
	if err := yaml.Unmarshal([]byte(served), &before); err != nil {
		return fmt.Errorf("the served configuration (ConfigMap %s): %w", servedFrom, err)
	}
	if err := yaml.Unmarshal([]byte(desired), &after); err != nil {
		return err
	}
	diff := cmp.Diff(before, after)
	if diff == "" {
		fmt.Fprintf(w, "Scheduler configuration: no difference in content (served from ConfigMap %s, would be ConfigMap %s)\n", servedFrom, objs.ConfigMap.Name)
		return nil
	}
	fmt.Fprintf(w, "Scheduler configuration (- served now from ConfigMap %s, + ConfigMap %s):\n%s", servedFrom, objs.ConfigMap.Name, diff)
	return nil
}

// objectChanges lists what applying objs would do: + create, ~ change (with
// what), - delete (the optional RBAC objects objs no longer has).
func objectChanges(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, state operatorv1.ManagementState, objs *render.Objects) ([]string, error) {
	if lines, handled, err := managementStateChanges(ctx, dyn, state, objs); handled {
		return lines, err
	}
	var out []string
	for _, obj := range objs.All() {
		line, err := objectChange(ctx, dyn, obj)
		if err != nil {
			return nil, err
		}
		if line != "" {
			out = append(out, line)
		}
	}
	deleted, err := removedExtraRBAC(ctx, kube, objs)
	if err != nil {
		return nil, err
	}
	former, err := formerBindings(ctx, kube)
	if err != nil {
		return nil, err
	}
	return append(append(out, deleted...), former...), nil
}

// resources are the API resources of the kinds render returns.
var resources = map[string]string{
	"Namespace": "namespaces", "ServiceAccount": "serviceaccounts", "Service": "services", "ConfigMap": "configmaps",
	"ClusterRole": "clusterroles", "ClusterRoleBinding": "clusterrolebindings", "Role": "roles", "RoleBinding": "rolebindings",
	"Deployment": "deployments",
}

func objectChange(ctx context.Context, dyn dynamic.Interface, obj runtime.Object) (string, error) {
	what, live, err := liveObject(ctx, dyn, obj)
	if err != nil {
		return "", err
	}
	if live == nil {
		return "+ create " + what, nil
	}
	if changed := changedFields(obj, live); changed != "" {
		return "~ change " + what + ": " + changed, nil
	}
	return "", nil
}

// liveObject reads the cluster's copy of obj, nil when there is none, and
// names it ("Kind namespace/name").
func liveObject(ctx context.Context, dyn dynamic.Interface, obj runtime.Object) (string, runtime.Object, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	resource, ok := resources[gvk.Kind]
	if !ok {
		return "", nil, fmt.Errorf("diff does not know kind %q", gvk.Kind)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", nil, err
	}
	what := gvk.Kind + " " + m.GetName()
	if m.GetNamespace() != "" {
		what = gvk.Kind + " " + m.GetNamespace() + "/" + m.GetName()
	}
	u, err := dyn.Resource(gvk.GroupVersion().WithResource(resource)).Namespace(m.GetNamespace()).Get(ctx, m.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return what, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	live := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(runtime.Object)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, live); err != nil {
		return "", nil, err
	}
	return what, live, nil
}

// changedFields says which of the fields the operator owns differ between
// desired and live; "" when none does. Fields the API server defaults are not
// compared.
func changedFields(desired, live runtime.Object) string {
	var changes []string
	if d, ok := desired.(*appsv1.Deployment); ok {
		if c := deploymentChange(d, live.(*appsv1.Deployment)); c != "" {
			changes = append(changes, c)
		}
	} else if what, want, got := ownedFields(desired, live); what != "" && want != nil && !equality.Semantic.DeepEqual(want, got) {
		changes = append(changes, what)
	}
	dm, err1 := meta.Accessor(desired)
	lm, err2 := meta.Accessor(live)
	if err1 == nil && err2 == nil {
		if l := ownedLabels(dm, lm); l != "" {
			changes = append(changes, l)
		}
	}
	if ns, ok := live.(*corev1.Namespace); ok {
		changes = append(changes, missingPodSecurityLabels(ns)...)
	}
	sort.Strings(changes)
	return strings.Join(changes, "; ")
}

func deploymentChange(desired, live *appsv1.Deployment) string {
	var changes []string
	annotation := func(d *appsv1.Deployment, key string) string { return d.Spec.Template.Annotations[key] }
	if a, b := annotation(live, names.TemplateHashAnnotation), annotation(desired, names.TemplateHashAnnotation); a != b {
		change := fmt.Sprintf("the pod template (%s -> %s): the scheduler pods roll", short(a), short(b))
		if c, d := annotation(live, names.ConfigHashAnnotation), annotation(desired, names.ConfigHashAnnotation); c != d {
			change += fmt.Sprintf(", to configuration %s", names.ConfigMapNameFor(d))
		}
		changes = append(changes, change)
	}
	if live.Spec.Replicas != nil && desired.Spec.Replicas != nil && *live.Spec.Replicas != *desired.Spec.Replicas {
		changes = append(changes, fmt.Sprintf("replicas %d -> %d", *live.Spec.Replicas, *desired.Spec.Replicas))
	}
	sort.Strings(changes)
	return strings.Join(changes, "; ")
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	if hash == "" {
		return "none"
	}
	return hash
}

// removedExtraRBAC lists the spec.rbac objects that exist but objs has not
// (Render leaves out the pair spec.rbac no longer carries).
func removedExtraRBAC(ctx context.Context, kube kubernetes.Interface, objs *render.Objects) ([]string, error) {
	ns, name, get, rbac := names.OperandNamespace, names.ExtraRBACName, metav1.GetOptions{}, kube.RbacV1()
	checks := []struct {
		what    string
		desired bool
		get     func() error
	}{
		{"ClusterRole " + name, objs.Extra.ClusterRole != nil, func() error { _, err := rbac.ClusterRoles().Get(ctx, name, get); return err }},
		{"ClusterRoleBinding " + name, objs.Extra.ClusterRoleBinding != nil, func() error { _, err := rbac.ClusterRoleBindings().Get(ctx, name, get); return err }},
		{"Role " + ns + "/" + name, objs.Extra.Role != nil, func() error { _, err := rbac.Roles(ns).Get(ctx, name, get); return err }},
		{"RoleBinding " + ns + "/" + name, objs.Extra.RoleBinding != nil, func() error { _, err := rbac.RoleBindings(ns).Get(ctx, name, get); return err }},
	}
	var out []string
	for _, c := range checks {
		if c.desired {
			continue
		}
		switch err := c.get(); {
		case err == nil:
			out = append(out, "- delete "+c.what)
		case !apierrors.IsNotFound(err):
			return nil, err
		}
	}
	return out, nil
}
