package trialcontroller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trialcontroller/podruntime"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// Run is one trial as the controller hands it to a RunFunc.
type Run struct {
	Current, Candidate trial.Arm
	Gate               trial.Gate
	// Policy is spec.rollout.trial: the replay bound and the sandbox's images.
	Policy secondaryschedulerv1.TrialPolicy
	// Owner owns the trial's objects: the SecondaryScheduler.
	Owner metav1.OwnerReference
}

// RunFunc runs a trial to its report; an error means it could not run.
type RunFunc func(ctx context.Context, r Run) (*trial.Report, error)

// InCluster runs trials as Pods in the operand namespace, seeded from a
// snapshot of the cluster that kube and dyn read. On OpenShift the restricted
// SCC picks the Pods' user; elsewhere they run as podruntime.NonRootUser.
func InCluster(kube kubernetes.Interface, dyn dynamic.Interface, openShift bool) RunFunc {
	var runAsUser *int64
	if !openShift {
		user := podruntime.NonRootUser
		runAsUser = &user
	}
	return func(ctx context.Context, r Run) (*trial.Report, error) {
		start := time.Now()
		scheduled, err := schedulerNames(r)
		if err != nil {
			return nil, err
		}
		bounds := trial.ReplayBounds{Pending: int(ptr.Deref(r.Policy.ReplayPending, secondaryschedulerv1.DefaultTrialReplayPending)),
			Bound: int(ptr.Deref(r.Policy.ReplayBound, secondaryschedulerv1.DefaultTrialReplayBound))}
		snap, err := trial.Take(ctx, trial.Source{Kube: kube, Dynamic: dyn}, scheduled, bounds)
		if err != nil {
			return nil, fmt.Errorf("taking the snapshot: %w", err)
		}
		took := time.Since(start)
		id := make([]byte, 6)
		if _, err := rand.Read(id); err != nil {
			return nil, err
		}
		rt := &podruntime.Runtime{Kube: kube, Namespace: names.OperandNamespace, Owner: r.Owner, TrialID: hex.EncodeToString(id), RunAsUser: runAsUser,
			Lifetime: armLifetime(r.Policy)}
		if images := r.Policy.SandboxImages; images != nil {
			rt.EtcdImage, rt.APIServerImage = images.Etcd, images.KubeAPIServer
		}
		report, err := trial.Run(ctx, trial.Options{Snapshot: snap, Runtime: rt, Gate: r.Gate, Current: r.Current, Candidate: r.Candidate})
		if err != nil {
			return nil, err
		}
		report.Timings.Snapshot = took
		return report, nil
	}
}

// schedulerNames are the profiles of both arms: a pod either serves is replayed.
func schedulerNames(r Run) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, arm := range []trial.Arm{r.Current, r.Candidate} {
		list, err := trial.SchedulerNames(arm.Config)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("the %s configuration", arm.Name), err)
		}
		for _, n := range list {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// armLifetimeMargin is how long a trial Pod may outlive its trial's timeout:
// the verdict is read and the Pods deleted within it.
const armLifetimeMargin = time.Minute

// armLifetime bounds a trial Pod's life and its credentials': the trial's timeout and the margin.
func armLifetime(policy secondaryschedulerv1.TrialPolicy) time.Duration {
	return time.Duration(ptr.Deref(policy.TimeoutSeconds, secondaryschedulerv1.DefaultTrialTimeoutSeconds))*time.Second + armLifetimeMargin
}
