package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// firstWriteTimeout bounds the wait for the operator's first write of a
// change; a kill after it is counted as not mid-change.
const firstWriteTimeout = 10 * time.Second

// killAtFirstWrite makes the change and kills the operator as soon as it
// makes its first write of it (firstWrite), then starts it again. The change
// is mid-way when finished still fails right after the kill: the operator had
// begun and not ended. It returns when the kill happened and whether it
// landed mid-change.
func (c *cluster) killAtFirstWrite(t *testing.T, change func(), finished func(ctx context.Context) error) (time.Time, bool) {
	t.Helper()
	seen := c.firstWrite(t, change)
	return c.killAndRestart(t, "at its first write ("+seen+")", finished)
}

// killAndRestart kills the operator, asks finished whether the change was
// done by then, and starts it again; when says when, for the log.
func (c *cluster) killAndRestart(t *testing.T, when string, finished func(ctx context.Context) error) (time.Time, bool) {
	t.Helper()
	c.killOperator(t)
	killed := time.Now()
	mid := finished(context.Background()) != nil
	t.Logf("killed the operator %s; the change was unfinished: %v", when, mid)
	c.startOperator(t)
	return killed, mid
}

// firstWrite makes the change and returns once a watch shows the operator's
// first write of it: a Deployment or one of the operator's ConfigMaps in the
// operand namespace created, changed or deleted. It says what it saw.
func (c *cluster) firstWrite(t *testing.T, change func()) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), firstWriteTimeout)
	defer cancel()
	ns := names.OperandNamespace
	kube := c.admin.Kube
	deployments, err := kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ours := metav1.ListOptions{LabelSelector: names.ManagedByLabel + "=" + names.ManagedByValue}
	configMaps, err := kube.CoreV1().ConfigMaps(ns).List(ctx, ours)
	if err != nil {
		t.Fatal(err)
	}
	dw, err := kube.AppsV1().Deployments(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: deployments.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer dw.Stop()
	ours.ResourceVersion = configMaps.ResourceVersion
	cw, err := kube.CoreV1().ConfigMaps(ns).Watch(ctx, ours)
	if err != nil {
		t.Fatal(err)
	}
	defer cw.Stop()
	// The controller-manager writes the Deployment's status too: only a new
	// generation (a spec the operator wrote), a creation or a deletion counts.
	generations := map[string]int64{}
	for _, d := range deployments.Items {
		generations[d.Name] = d.Generation
	}
	change()
	for {
		select {
		case e := <-dw.ResultChan():
			d, ok := e.Object.(*appsv1.Deployment)
			if !ok || (e.Type == watch.Modified && d.Generation == generations[d.Name]) {
				continue
			}
			return "Deployment " + string(e.Type)
		case e := <-cw.ResultChan():
			return "ConfigMap " + string(e.Type)
		case <-ctx.Done():
			return "no write within " + firstWriteTimeout.String()
		}
	}
}

// killAfter kills the operator after delay, counts the kill mid-change when
// finished fails right after it, and starts it again: for changes whose
// writes outlast any one of them, as creating hundreds of Simulators does.
func (c *cluster) killAfter(t *testing.T, delay time.Duration, finished func(ctx context.Context) error) (time.Time, bool) {
	t.Helper()
	time.Sleep(delay)
	return c.killAndRestart(t, delay.String()+" into the change", finished)
}

// reconciledErr is reconciled's verdict alone.
func (c *cluster) reconciledErr(ctx context.Context) error {
	_, err := c.reconciled(ctx)
	return err
}

// nothingOwnedErr fails while the operator still owns an object.
func (c *cluster) nothingOwnedErr(t *testing.T) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		objects, configMaps := c.ownedObjects(ctx, t)
		if len(objects)+len(configMaps) > 0 {
			return fmt.Errorf("%w: %v %v", errStillOwned, objects, configMaps)
		}
		return nil
	}
}
