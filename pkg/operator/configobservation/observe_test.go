package configobservation

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	configlistersv1 "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/configobserver"
	"github.com/openshift/library-go/pkg/operator/events"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/clusterconfig"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
)

func schedulerConfig(profile configv1.SchedulerProfile) *configv1.Scheduler {
	return &configv1.Scheduler{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: configv1.SchedulerSpec{Profile: profile}}
}

func TestObserveSchedulerProfile(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	listers := Listers{SchedulerLister_: configlistersv1.NewSchedulerLister(indexer)}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})

	// Kubernetes, or no Scheduler object: nothing observed, no error.
	got, errs := ObserveSchedulerProfile(listers, recorder, map[string]interface{}{})
	if len(errs) > 0 || len(got) > 0 {
		t.Errorf("without a Scheduler: %v %v", got, errs)
	}

	if err := indexer.Add(schedulerConfig(configv1.HighNodeUtilization)); err != nil {
		t.Fatal(err)
	}
	observed, errs := ObserveSchedulerProfile(listers, recorder, map[string]interface{}{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, found, _ := unstructured.NestedMap(observed, render.ObservedKubeSchedulerConfigurationPath...); !found {
		t.Errorf("HighNodeUtilization observed nothing: %v", observed)
	}
	if len(recorder.Events()) != 1 {
		t.Errorf("want one event for the change, got %d", len(recorder.Events()))
	}

	// A typo in the profile keeps what was observed before.
	if err := indexer.Update(schedulerConfig("Typo")); err != nil {
		t.Fatal(err)
	}
	kept, errs := ObserveSchedulerProfile(listers, recorder, observed)
	if len(errs) != 1 || !reflect.DeepEqual(kept, observed) {
		t.Errorf("unknown profile: %v, %v; want the previous observation and one error", kept, errs)
	}
}

// observeWithTheObservers is what the config observer controller writes for
// objs: this package's observers, library-go's TLS observer among them, run
// on listers holding objs, each over existing, each owning its paths.
func observeWithTheObservers(existing map[string]interface{}, objs ...runtime.Object) (map[string]interface{}, error) {
	apiServers := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	schedulers := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	type run struct {
		observe configobserver.ObserveConfigFunc
		paths   [][]string
	}
	var runs []run
	for _, obj := range objs {
		switch o := obj.(type) {
		case *configv1.APIServer:
			if err := apiServers.Add(o); err != nil {
				return nil, err
			}
			runs = append(runs, run{ObserveTLSSecurityProfile, [][]string{render.ObservedMinTLSVersionPath, render.ObservedCipherSuitesPath}})
		case *configv1.Scheduler:
			if err := schedulers.Add(o); err != nil {
				return nil, err
			}
			runs = append(runs, run{ObserveSchedulerProfile, [][]string{render.ObservedKubeSchedulerConfigurationPath}})
		}
	}
	listers := Listers{
		APIServerLister_: configlistersv1.NewAPIServerLister(apiServers),
		SchedulerLister_: configlistersv1.NewSchedulerLister(schedulers),
	}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
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

// TestObserveObjectsAsTheObservers holds the render command's observation
// (clusterconfig.ObserveObjects, which does not import library-go's
// configobserver) to what the operator's observers write for the same
// objects: every TLS profile type, custom ones with known, unknown and no
// ciphers, every scheduler profile and a typo, over existing configs that
// hold other paths and earlier observations.
func TestObserveObjectsAsTheObservers(t *testing.T) {
	apiServer := func(profile *configv1.TLSSecurityProfile) *configv1.APIServer {
		return &configv1.APIServer{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: configv1.APIServerSpec{TLSSecurityProfile: profile}}
	}
	custom := func(minVersion configv1.TLSProtocolVersion, ciphers ...string) *configv1.TLSSecurityProfile {
		return &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{
			TLSProfileSpec: configv1.TLSProfileSpec{MinTLSVersion: minVersion, Ciphers: ciphers},
		}}
	}
	var inputs [][]runtime.Object
	for _, profile := range []*configv1.TLSSecurityProfile{
		nil,
		{},
		{Type: configv1.TLSProfileOldType, Old: &configv1.OldTLSProfile{}},
		{Type: configv1.TLSProfileIntermediateType},
		{Type: configv1.TLSProfileModernType, Modern: &configv1.ModernTLSProfile{}},
		{Type: "Typo"},
		{Type: configv1.TLSProfileCustomType},
		custom(configv1.VersionTLS12, "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384"),
		custom(configv1.VersionTLS13, "TLS_AES_128_GCM_SHA256"),
		custom(configv1.VersionTLS11, "NOT-A-CIPHER", "ECDHE-RSA-CHACHA20-POLY1305"),
		custom(configv1.VersionTLS12),
	} {
		inputs = append(inputs, []runtime.Object{apiServer(profile)})
	}
	for _, profile := range []configv1.SchedulerProfile{"", configv1.LowNodeUtilization, configv1.HighNodeUtilization, configv1.NoScoring, "Typo"} {
		inputs = append(inputs, []runtime.Object{schedulerConfig(profile)})
		inputs = append(inputs, []runtime.Object{apiServer(nil), schedulerConfig(profile)})
	}
	inputs = append(inputs, nil)

	earlier, err := observeWithTheObservers(map[string]interface{}{}, apiServer(custom(configv1.VersionTLS13, "TLS_AES_256_GCM_SHA384")), schedulerConfig(configv1.NoScoring))
	if err != nil {
		t.Fatal(err)
	}
	earlier["other"] = map[string]interface{}{"kept": true}
	for _, existing := range []map[string]interface{}{{}, earlier} {
		for _, objs := range inputs {
			want, wantErr := observeWithTheObservers(existing, objs...)
			got, gotErr := clusterconfig.ObserveObjects(existing, objs...)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s over %v: error %v, the observers' %v", describe(objs), existing, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s over %v:\n got %#v\nwant %#v", describe(objs), existing, got, want)
			}
		}
	}
}

func describe(objs []runtime.Object) string {
	var parts []string
	for _, obj := range objs {
		switch o := obj.(type) {
		case *configv1.APIServer:
			parts = append(parts, fmt.Sprintf("APIServer %+v", o.Spec.TLSSecurityProfile))
		case *configv1.Scheduler:
			parts = append(parts, fmt.Sprintf("Scheduler %q", o.Spec.Profile))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
