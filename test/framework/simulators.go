package framework

import (
	"context"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	siminformers "github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/admissionguardcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/trim"
)

// RunSimulatorController runs the simulator controller alone until the test ends,
// with clients from cfg at qps (burst 2*qps), its requests counted and its
// informers limited to namespace ("" for all) and trimmed as the operator's
// are. It returns the request counter and the recorder of its events. The
// admission guard counts as intact: the tests of the guard run the whole
// operator (RunOperator), whose guard controller checks it.
func RunSimulatorController(t testing.TB, cfg *rest.Config, namespace string, workers, qps int) (*RequestCounter, events.InMemoryRecorder) {
	t.Helper()
	counted, counter := CountRequests(cfg)
	counted.QPS, counted.Burst = float32(qps), 2*qps
	kube := kubernetes.NewForConfigOrDie(counted)
	sims := versioned.NewForConfigOrDie(counted)
	kubeInformers := informers.NewSharedInformerFactoryWithOptions(kube, 10*time.Minute,
		simulatorcontroller.InformerOption(), informers.WithNamespace(namespace), informers.WithTransform(simulatorcontroller.Transform))
	simInformers := siminformers.NewSharedInformerFactoryWithOptions(sims, 10*time.Minute, siminformers.WithNamespace(namespace),
		siminformers.WithTransform(trim.Objects))
	recorder := events.NewInMemoryRecorder("simulator-controller-test", clock.RealClock{})
	guard := admissionguardcontroller.NewVerdicts()
	guard.Set(admissionguardcontroller.Verdict{Intact: true})
	ctrl := simulatorcontroller.NewSimulatorController(kube, sims, simulatorcontroller.Informers{
		Simulators:      simInformers.Simulation().V1alpha1().Simulators(),
		Pods:            kubeInformers.Core().V1().Pods(),
		Services:        kubeInformers.Core().V1().Services(),
		NetworkPolicies: kubeInformers.Networking().V1().NetworkPolicies(),
		Guard:           guard,
		Namespace:       namespace,
	}, recorder)
	RunInBackground(t, func(ctx context.Context) {
		kubeInformers.Start(ctx.Done())
		simInformers.Start(ctx.Done())
		ctrl.Run(ctx, workers)
		kubeInformers.Shutdown()
		simInformers.Shutdown()
	})
	return counter, recorder
}

// SimulatorsInPhase counts the Simulators of namespace that are in phase.
func SimulatorsInPhase(ctx context.Context, client versioned.Interface, namespace string, phase simv1alpha1.SimulatorPhase) (int, error) {
	list, err := client.SimulationV1alpha1().Simulators(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range list.Items {
		if s.Status.Phase == phase {
			n++
		}
	}
	return n, nil
}
