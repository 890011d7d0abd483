package e2e

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// firstRolloutWindow is how long after its creation a new SecondaryScheduler's
// Deployment must keep the one pod template it started with.
const firstRolloutWindow = 10 * time.Second

// TestNewSecondarySchedulerRollsOutOnce: with the config observer running,
// a new SecondaryScheduler's first rollout waits for the observer's first
// pass, so its Deployment has exactly one pod template in its first 10 s and
// the scheduler does not restart right after install. E2E_FIRST_ROLLOUT_TRIES
// (default 10) sets the tries.
func TestNewSecondarySchedulerRollsOutOnce(t *testing.T) {
	c := needCluster(t)
	if !c.openShift {
		t.Skip("the config observer runs only where the OpenShift config API is served")
	}
	tries := 10
	if v := os.Getenv("E2E_FIRST_ROLLOUT_TRIES"); v != "" {
		var err error
		if tries, err = strconv.Atoi(v); err != nil {
			t.Fatalf("E2E_FIRST_ROLLOUT_TRIES=%q: %v", v, err)
		}
	}
	ctx := context.Background()
	t.Cleanup(func() { c.waitReconciled(t) })
	for i := range tries {
		if err := c.admin.Operator.OperatorV1().SecondarySchedulers().Delete(ctx, crName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		c.waitNothingOwned(ctx, t, func() error {
			if _, err := c.getCR(ctx); !apierrors.IsNotFound(err) {
				return fmt.Errorf("the SecondaryScheduler is still there (%v)", err)
			}
			return nil
		})
		templates := c.templatesWhile(t, func() { c.applyExample(t, "bin-packing") }, firstRolloutWindow)
		t.Logf("try %d: pod templates in the first %s: %v", i+1, firstRolloutWindow, templates)
		if len(templates) != 1 {
			t.Fatalf("try %d: the new SecondaryScheduler's Deployment had %d pod templates in its first %s, want 1: %v",
				i+1, len(templates), firstRolloutWindow, templates)
		}
	}
}

// templatesWhile lists, in order, the pod template hashes the scheduler's
// Deployment takes from create() until window after it.
func (c *cluster) templatesWhile(t *testing.T, create func(), window time.Duration) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), window+reconcileTimeout)
	defer cancel()
	deployments := c.admin.Kube.AppsV1().Deployments(names.OperandNamespace)
	list, err := deployments.List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", names.OperandName).String()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := deployments.Watch(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("metadata.name", names.OperandName).String(), ResourceVersion: list.ResourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	create()
	deadline := time.After(window)
	var seen []string
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatal("the watch of the Deployment ended early")
			}
			if d, isDeployment := ev.Object.(*appsv1.Deployment); isDeployment {
				if h := d.Spec.Template.Annotations[names.TemplateHashAnnotation]; h != "" && !slices.Contains(seen, h) {
					seen = append(seen, h)
				}
			}
		case <-deadline:
			if len(seen) == 0 {
				t.Fatalf("no Deployment within %s of the SecondaryScheduler's creation", window)
			}
			return seen
		}
	}
}
