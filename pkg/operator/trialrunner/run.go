package trialrunner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial/gate"
)

// InCluster runs trials as Pods in the operand namespace, seeded from a
// snapshot of the cluster that kube and dyn read. On OpenShift the restricted
// SCC picks the Pods' user; elsewhere they run as trial.NonRootUser.
func InCluster(kube kubernetes.Interface, dyn dynamic.Interface, openShift bool) RunFunc {
	var runAsUser *int64
	if !openShift {
		user := trial.NonRootUser
		runAsUser = &user
	}
	return func(ctx context.Context, req Request) (*trial.Report, error) {
		if len(req.Current.Config) == 0 {
			return nil, fmt.Errorf("ConfigMap %s of the running configuration is gone, so there is nothing to compare with",
				names.ConfigMapNameFor(req.Current.ConfigHash))
		}
		start := time.Now()
		scheduled, err := schedulerNames(req)
		if err != nil {
			return nil, err
		}
		snap, err := trial.Take(ctx, trial.Source{Kube: kube, Dynamic: dyn}, scheduled, int(ptr.Deref(req.Policy.ReplayBound, 100)))
		if err != nil {
			return nil, fmt.Errorf("taking the snapshot: %w", err)
		}
		took := time.Since(start)
		id := make([]byte, 6)
		if _, err := rand.Read(id); err != nil {
			return nil, err
		}
		rt := &trial.PodRuntime{Kube: kube, Namespace: names.OperandNamespace, Owner: req.Owner, TrialID: hex.EncodeToString(id), RunAsUser: runAsUser}
		if images := req.Policy.SandboxImages; images != nil {
			rt.EtcdImage, rt.APIServerImage = images.Etcd, images.KubeAPIServer
		}
		report, err := trial.Run(ctx, trial.Options{Snapshot: snap, Runtime: rt, Gate: gateOf(req),
			Current: armFor("current", req.Current), Candidate: armFor("candidate", req.Candidate)})
		// Whatever the outcome, nothing of the trial stays running.
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		err = errors.Join(err, trial.DeleteTrialObjects(cleanup, kube, names.OperandNamespace))
		if err != nil {
			return nil, err
		}
		report.Timings.Snapshot = took
		return report, nil
	}
}

// schedulerNames are the profiles of both arms: a pod either serves is replayed.
func schedulerNames(req Request) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, arm := range []Arm{req.Current, req.Candidate} {
		list, err := trial.SchedulerNames(arm.Config)
		if err != nil {
			return nil, err
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

func armFor(name string, a Arm) trial.Arm {
	return trial.Arm{Name: name, Image: a.Image, Command: a.Command, Config: a.Config}
}

func gateOf(req Request) trial.Gate {
	maxNew, maxMoved := gate.Bounds(&req.Policy)
	return trial.Gate{MaxNewlyUnschedulable: maxNew, MaxMovedPercent: maxMoved}
}
