package cmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"io"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/gather"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// liveSources reads the cluster as the controller reads its caches, except
// the ConfigMap spec.schedulerConfig names, which comes from the input files.
func liveSources(ctx context.Context, kube kubernetes.Interface, in *renderInput) gather.Sources {
	ns, get := names.OperandNamespace, metav1.GetOptions{}
	return gather.Sources{
		ConfigMap: func(name string) (*corev1.ConfigMap, error) {
			if name != in.scheduler.Spec.SchedulerConfig {
				return kube.CoreV1().ConfigMaps(ns).Get(ctx, name, get)
			}
			if cm := in.userConfig(name); cm != nil {
				return cm, nil
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
		},
		Secret:    func(name string) (*corev1.Secret, error) { return kube.CoreV1().Secrets(ns).Get(ctx, name, get) },
		Namespace: func(name string) (*corev1.Namespace, error) { return kube.CoreV1().Namespaces().Get(ctx, name, get) },
		ClusterRole: func(name string) (*rbacv1.ClusterRole, error) {
			return kube.RbacV1().ClusterRoles().Get(ctx, name, get)
		},
		Deployment: func(name string) (*appsv1.Deployment, error) {
			return kube.AppsV1().Deployments(ns).Get(ctx, name, get)
		},
		Pods: func(selector labels.Selector) ([]*corev1.Pod, error) {
			list, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
			if err != nil {
				return nil, err
			}
			pods := make([]*corev1.Pod, 0, len(list.Items))
			for i := range list.Items {
				pods = append(pods, &list.Items[i])
			}
			return pods, nil
		},
	}
}

// liveRecord is the rollout record of the cluster's SecondaryScheduler, if any.
func liveRecord(live *secondaryschedulerv1.SecondaryScheduler) rollout.Record {
	if live == nil {
		return rollout.Record{}
	}
	return rollout.Record{LastKnownGood: live.Status.LastKnownGood, FailedRollout: live.Status.FailedRollout}.Copy()
}

// errRefused is diff's exit status when the operator would refuse the input.
var errRefused = errors.New("the operator would apply nothing of this input")

// printRefusal prints the controller's decision on an input Render refused
// for spec.rbac, and returns errRefused; other errors are returned as they are.
func printRefusal(w io.Writer, err error) error {
	var refused *render.RBACRefusedError
	if !errors.As(err, &refused) {
		return err
	}
	fmt.Fprintln(w, "Decision: would be refused: RBACRefused. Nothing would be applied, and granted rules the ceiling no longer holds would be revoked:")
	for _, p := range refused.Problems {
		fmt.Fprintln(w, "  "+p)
	}
	return errRefused
}

// printDecision prints what the controller would decide for the Deployment:
// the same rollout.Decide, on the same gathered inputs.
func printDecision(w io.Writer, objs *render.Objects, in *gather.Inputs) {
	d := rollout.Decide(rollout.Inputs{Desired: objs, Live: in.Live, Observed: in.Observed, Record: in.Record, Now: metav1.Now()})
	fmt.Fprint(w, "\nDecision: ")
	switch {
	case d.Action == rollout.RollBack:
		fmt.Fprintf(w, "would roll back to configuration %s (RolloutFailed):\n", rollout.Short(d.ConfigHash))
	case d.Action == rollout.Hold:
		fmt.Fprintf(w, "would hold configuration %s, which failed (RolloutFailed):\n", rollout.Short(d.ConfigHash))
	case in.Live == nil:
		fmt.Fprintf(w, "would roll out configuration %s (no Deployment exists)\n", rollout.Short(d.ConfigHash))
	case in.Observed.Current.TemplateHash == objs.TemplateHash:
		fmt.Fprintf(w, "no rollout: the Deployment runs configuration %s already\n", rollout.Short(d.ConfigHash))
	default:
		fmt.Fprintf(w, "would roll out configuration %s, replacing %s\n", rollout.Short(d.ConfigHash), rollout.Short(in.Observed.Current.ConfigHash))
	}
	if d.Message != "" {
		fmt.Fprintln(w, "  "+strings.ReplaceAll(d.Message, "\n", "\n  "))
	}
}
