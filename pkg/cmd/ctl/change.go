package ctl

import (
	"context"
	"errors"
	"fmt"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/gather"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// change is an input rendered for a cluster, beside what the cluster serves now.
type change struct {
	in     *renderInput
	config *rest.Config
	kube   kubernetes.Interface
	// gathered is every input the controller would read.
	gathered *gather.Inputs
	objs     *render.Objects
	// served is the configuration the scheduler Deployment mounts, from
	// ConfigMap servedFrom ("" when no Deployment exists).
	served, servedFrom string
}

// loadChange reads the input files, renders them for the cluster of
// kubeconfig and reads what it serves. It only reads from the cluster.
func loadChange(ctx context.Context, files []string, kubeconfig string, stdin io.Reader) (*change, error) {
	in, err := readChange(files, stdin)
	if err != nil {
		return nil, err
	}
	config, err := clusterConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	kube, gathered, objs, err := renderForCluster(ctx, config, in)
	if err != nil {
		return nil, err
	}
	served, servedFrom, err := servedConfig(ctx, kube)
	if err != nil {
		return nil, err
	}
	return &change{in: in, config: config, kube: kube, gathered: gathered, objs: objs, served: served, servedFrom: servedFrom}, nil
}

// readChange reads the input files of a change and checks their documents.
func readChange(files []string, stdin io.Reader) (*renderInput, error) {
	in, err := readInputs(files, stdin)
	if err != nil {
		return nil, err
	}
	if err := render.CheckDocuments(in.scheduler, in.userConfig(in.scheduler.Spec.SchedulerConfig)); err != nil {
		return nil, err
	}
	return in, nil
}

// clusterConfig loads kubeconfig ("" for the default loading rules).
func clusterConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, nil).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("the cluster's kubeconfig: %w", err)
	}
	return config, nil
}

// renderForCluster renders the input as the operator would for the cluster of
// config: observed as the cluster's SecondaryScheduler is unless the input
// gives APIServer or Scheduler documents, with every other input gathered from
// the cluster as the controller gathers it from its caches. It only reads.
func renderForCluster(ctx context.Context, config *rest.Config, in *renderInput) (kubernetes.Interface, *gather.Inputs, *render.Objects, error) {
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, nil, nil, err
	}
	crs, err := versioned.NewForConfig(config)
	if err != nil {
		return nil, nil, nil, err
	}
	ss := in.scheduler
	live, err := liveScheduler(ctx, crs)
	if err != nil {
		return nil, nil, nil, err
	}
	var liveObserved []byte
	if live != nil {
		liveObserved = live.Spec.ObservedConfig.Raw
	}
	if err := observeCluster(in, liveObserved); err != nil {
		return nil, nil, nil, err
	}
	gathered, err := gather.Gather(ss, liveRecord(live), liveSources(ctx, kube, in))
	if err != nil {
		return nil, nil, nil, err
	}
	// The input carries no status: the last trial is the cluster's.
	gathered.Trial.Last = nil
	if live != nil {
		gathered.Trial.Last = live.Status.LastTrial.DeepCopy()
	}
	objs, err := render.Render(gathered.Render)
	return kube, gathered, objs, err
}

// liveScheduler is the cluster's SecondaryScheduler, nil when there is none.
func liveScheduler(ctx context.Context, crs versioned.Interface) (*secondaryschedulerv1.SecondaryScheduler, error) {
	live, err := crs.OperatorV1().SecondarySchedulers().Get(ctx, secondaryschedulerv1.SingletonName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading SecondaryScheduler %s: %w", secondaryschedulerv1.SingletonName, err)
	}
	return live, nil
}

// observeCluster fills the input's spec.observedConfig as the operator would
// for the cluster: from the input's APIServer and Scheduler documents when it
// has them, else, unless the input sets it, with the cluster's (liveObserved).
func observeCluster(in *renderInput, liveObserved []byte) error {
	ss := in.scheduler
	switch {
	case len(in.observed) > 0:
		if err := observe(ss, in.observed); err != nil {
			return fmt.Errorf("observing the cluster configuration: %w", err)
		}
	case len(liveObserved) > 0 && len(ss.Spec.ObservedConfig.Raw) == 0:
		ss.Spec.ObservedConfig.Raw = liveObserved
	}
	return nil
}

// readInputs reads the documents of files as render does.
func readInputs(files []string, stdin io.Reader) (*renderInput, error) {
	if len(files) == 0 {
		return nil, errors.New("no input: give the SecondaryScheduler and its ConfigMap with -f FILE")
	}
	in := &renderInput{}
	for _, f := range files {
		if err := in.readFile(f, stdin); err != nil {
			return nil, err
		}
	}
	if in.scheduler == nil {
		return nil, errors.New("no SecondaryScheduler (operator.openshift.io/v1) in the input files")
	}
	return in, nil
}

// servedConfig is the config.yaml of the ConfigMap the scheduler Deployment
// mounts now, and that ConfigMap's name; "" when no Deployment exists.
func servedConfig(ctx context.Context, kube kubernetes.Interface) (string, string, error) {
	d, err := kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, names.OperandName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name != secondaryschedulerv1.ConfigVolumeName || v.ConfigMap == nil {
			continue
		}
		cm, err := kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, v.ConfigMap.Name, metav1.GetOptions{})
		if err != nil {
			return "", "", fmt.Errorf("the ConfigMap the scheduler mounts: %w", err)
		}
		return cm.Data[names.ConfigKey], cm.Name, nil
	}
	return "", "", fmt.Errorf("Deployment %s/%s mounts no volume %q", names.OperandNamespace, names.OperandName, secondaryschedulerv1.ConfigVolumeName)
}

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
