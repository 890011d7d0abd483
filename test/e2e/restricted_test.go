package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/test/framework"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// TestOperandPodsAreRestricted: with the operand namespace labelled
// pod-security.kubernetes.io/enforce=restricted (manifests/ ship it enforcing
// baseline and warning at restricted, so that a user's sidecar runs as its
// author wrote it), the API server really refuses a pod that is not restricted
// there, and yet the ReplicaSet creates every scheduler pod anew, for the
// operator's own pod and for every example (sidecars, native sidecars and init
// containers included): what the operator renders is restricted-compliant.
func TestOperandPodsAreRestricted(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	kube := c.admin.Kube

	c.setNamespaceLabel(t, names.OperandNamespace, "pod-security.kubernetes.io/enforce", "restricted")
	// The control: a pod that is not restricted is refused in that namespace.
	// Pod security admission reads namespace labels from its informer, so the
	// new label takes effect a moment after the patch returns.
	plain := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "not-restricted", Namespace: names.OperandNamespace},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}},
	}
	framework.WaitForWithin(ctx, t, 30*time.Second, "pod security admission to refuse a pod that is not restricted in "+names.OperandNamespace, func() (bool, error) {
		_, err := kube.CoreV1().Pods(names.OperandNamespace).Create(ctx, plain, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return false, fmt.Errorf("the pod was admitted")
		}
		if !strings.Contains(err.Error(), "violates PodSecurity") {
			return false, err
		}
		return true, nil
	})

	for _, name := range sortedExamples() {
		t.Run(name, func(t *testing.T) {
			c.applyExample(t, name)
			d := c.waitReconciled(t)
			c.recreatePods(t, d)
			c.expectPodsCreated(t, d)
		})
	}
}

// setNamespaceLabel sets a label on a namespace until the test ends.
func (c *cluster) setNamespaceLabel(t *testing.T, namespace, key, value string) {
	t.Helper()
	ctx := context.Background()
	ns, err := c.admin.Kube.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old, had := ns.Labels[key]
	patch := func(v *string) {
		data, _ := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"labels": map[string]*string{key: v}}})
		if _, err := c.admin.Kube.CoreV1().Namespaces().Patch(context.Background(), namespace, types.MergePatchType, data, metav1.PatchOptions{}); err != nil {
			t.Fatalf("labelling namespace %s: %v", namespace, err)
		}
	}
	patch(&value)
	t.Cleanup(func() {
		if had {
			patch(&old)
		} else {
			patch(nil)
		}
	})
}

// recreatePods deletes the Deployment's pods and waits until its ReplicaSet
// has created as many new ones, running.
func (c *cluster) recreatePods(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	ctx := context.Background()
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := c.admin.Kube.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]bool{}
	for _, p := range pods.Items {
		old[string(p.UID)] = true
		if err := c.admin.Kube.CoreV1().Pods(d.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	framework.WaitForWithin(ctx, t, reconcileTimeout, "the ReplicaSet to create the scheduler pods anew", func() (bool, error) {
		pods, err := c.admin.Kube.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
		if err != nil {
			return false, err
		}
		running := 0
		for _, p := range pods.Items {
			if !old[string(p.UID)] && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		if running < int(*d.Spec.Replicas) {
			return false, fmt.Errorf("%d new pods running, want %d; events: %s", running, *d.Spec.Replicas, c.replicaSetFailures(ctx, d))
		}
		return true, nil
	})
}

// replicaSetFailures is the ReplicaFailure message of the Deployment's
// ReplicaSets, if any.
func (c *cluster) replicaSetFailures(ctx context.Context, d *appsv1.Deployment) string {
	rss, err := c.admin.Kube.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, rs := range rss.Items {
		for _, cond := range rs.Status.Conditions {
			if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue {
				out = append(out, rs.Name+": "+cond.Message)
			}
		}
	}
	return strings.Join(out, "; ")
}

// expectPodsCreated checks that the Deployment's ReplicaSet created all its
// pods and reported no failure to create them (pod security refusals show up
// as the ReplicaSet's ReplicaFailure condition).
func (c *cluster) expectPodsCreated(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	ctx := context.Background()
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	rss, err := c.admin.Kube.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		t.Fatal(err)
	}
	for _, rs := range rss.Items {
		for _, cond := range rs.Status.Conditions {
			if cond.Type == appsv1.ReplicaSetReplicaFailure && cond.Status == corev1.ConditionTrue {
				t.Errorf("ReplicaSet %s cannot create pods: %s: %s", rs.Name, cond.Reason, cond.Message)
			}
		}
	}
	pods, err := c.admin.Kube.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning &&
			labels.Set(p.Labels).Has(appsv1.DefaultDeploymentUniqueLabelKey) {
			running++
		}
	}
	if want := int(*d.Spec.Replicas); running < want {
		t.Errorf("%d scheduler pods running in %s, want %d", running, d.Namespace, want)
	}
}
