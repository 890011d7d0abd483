package configobservation

import (
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/configobserver"
	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

// ObserveObjects runs, without a cluster, the observers whose input is among
// objs (an APIServer and/or a Scheduler named "cluster") and returns existing
// with the paths those observers own replaced. Paths of observers without input
// are kept, so an observedConfig written by a running operator is left alone.
func ObserveObjects(existing map[string]interface{}, objs ...runtime.Object) (map[string]interface{}, error) {
	apiServers := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	schedulers := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	type run struct {
		observe configobserver.ObserveConfigFunc
		paths   [][]string
	}
	var runs []run
	for _, obj := range objs {
		if m, err := meta.Accessor(obj); err == nil && m.GetName() != "cluster" {
			return nil, fmt.Errorf("%T %q: only the one named cluster configures the cluster", obj, m.GetName())
		}
		var err error
		switch o := obj.(type) {
		case *configv1.APIServer:
			err = apiServers.Add(o)
			runs = append(runs, run{ObserveTLSSecurityProfile, [][]string{render.ObservedMinTLSVersionPath, render.ObservedCipherSuitesPath}})
		case *configv1.Scheduler:
			err = schedulers.Add(o)
			runs = append(runs, run{ObserveSchedulerProfile, [][]string{render.ObservedKubeSchedulerConfigurationPath}})
		default:
			err = fmt.Errorf("%T is not an input of the config observers", obj)
		}
		if err != nil {
			return nil, err
		}
	}
	listers := Listers{
		APIServerLister_: configlistersv1.NewAPIServerLister(apiServers),
		SchedulerLister_: configlistersv1.NewSchedulerLister(schedulers),
	}
	recorder := events.NewInMemoryRecorder("render", clock.RealClock{})

	if existing == nil {
		existing = map[string]interface{}{}
	}
	out := runtime.DeepCopyJSON(existing)
	for _, r := range runs {
		observed, errs := r.observe(listers, recorder, existing)
		if len(errs) > 0 {
			return nil, utilerrors.NewAggregate(errs)
		}
		for _, p := range r.paths {
			unstructured.RemoveNestedField(out, p...)
			if v, found, _ := unstructured.NestedFieldCopy(observed, p...); found {
				if err := unstructured.SetNestedField(out, v, p...); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}
