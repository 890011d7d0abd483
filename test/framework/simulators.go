package framework

import (
	"context"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
	siminformers "github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorcontroller"
)

// RunSimulatorController runs the simulator controller alone until the test ends,
// with clients from cfg at qps (burst 2*qps), its requests counted and its
// informers limited to namespace ("" for all). It returns the request counter
// and the recorder of its events.
func RunSimulatorController(t testing.TB, cfg *rest.Config, namespace string, workers, qps int) (*RequestCounter, events.InMemoryRecorder) {
	t.Helper()
	counted, counter := CountRequests(cfg)
	counted.QPS, counted.Burst = float32(qps), 2*qps
	kube := kubernetes.NewForConfigOrDie(counted)
	sims := versioned.NewForConfigOrDie(counted)
	kubeInformers := informers.NewSharedInformerFactoryWithOptions(kube, 10*time.Minute,
		simulatorcontroller.InformerOption(), informers.WithNamespace(namespace))
	simInformers := siminformers.NewSharedInformerFactoryWithOptions(sims, 10*time.Minute, siminformers.WithNamespace(namespace))
	recorder := events.NewInMemoryRecorder("simulator-controller-test", clock.RealClock{})
	ctrl := simulatorcontroller.NewSimulatorController(kube, sims, simulatorcontroller.Informers{
		Simulators:      simInformers.Simulation().V1alpha1().Simulators(),
		Pods:            kubeInformers.Core().V1().Pods(),
		Services:        kubeInformers.Core().V1().Services(),
		NetworkPolicies: kubeInformers.Networking().V1().NetworkPolicies(),
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
