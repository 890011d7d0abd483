package trial

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ReplayLabel marks the replayed pods in a sandbox, so that an arm watches
// them alone. No scheduling selector names it.
const ReplayLabel = "trial.secondary-scheduler.openshift.io/replay"

// SeedingGate holds the replayed pods while a sandbox is seeded through its
// API: the arm's scheduler already runs, and must see every node and bound
// pod before it places the first one (fence waits for that). The gates are
// lifted one by one in replay order, so that the scheduler, idle between
// two, takes the pods in that order (pods created at once reach it in any).
const SeedingGate = "trial.secondary-scheduler.openshift.io/seeding"

// seedWorkers is how many creates a seed sends at once.
const seedWorkers = 16

// seeder writes a snapshot into a sandbox.
type seeder struct {
	kube kubernetes.Interface
	dyn  dynamic.Interface
	// groupUIDs are the UIDs the sandbox gave the PodGroups
	// (scheduling.k8s.io) it created, by "namespace/name": the claims they
	// control name them (controlledBy).
	groupUIDs sync.Map
}

func newSeeder(cfg *rest.Config) (*seeder, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &seeder{kube: kube, dyn: dyn}, nil
}

// seed creates the snapshot's objects, kind by kind in the order they refer
// to each other, and the replay set last, gated (SeedingGate); when stored
// (the objects were written into the sandbox's storage, and the replay set
// will be), it only waits for the sandbox to serve them.
func (s *seeder) seed(ctx context.Context, snap *Snapshot, stored bool) error {
	owned := podClaims(snap)
	if err := s.seedObjects(ctx, snap, stored, owned); err != nil || stored {
		return err
	}
	// Created in any order: they are released (release) in replay order.
	return parallel(len(snap.Replay), func(i int) error {
		p := replayCopy(&snap.Replay[i])
		p.Spec.SchedulingGates = append(p.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: SeedingGate})
		if err := s.createPod(ctx, p, owned); err != nil {
			return fmt.Errorf("seeding replayed pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		return nil
	})
}

// replayCopy is a copy of the replayed pod p as a sandbox holds it:
// labelled ReplayLabel.
func replayCopy(p *corev1.Pod) *corev1.Pod {
	c := p.DeepCopy()
	if c.Labels == nil {
		c.Labels = map[string]string{}
	}
	c.Labels[ReplayLabel] = "true"
	return c
}

// seedObjects creates the snapshot's objects but the replay set and the
// claims it controls (owned); when stored, it waits for the CRDs it finds
// in storage to be served.
func (s *seeder) seedObjects(ctx context.Context, snap *Snapshot, stored bool, owned map[string][]*resourcev1.ResourceClaim) error {
	if err := s.checkServed(snap); err != nil {
		return err
	}
	if !stored {
		if err := s.createCRDs(ctx, snap.CRDs); err != nil {
			return err
		}
	}
	if err := s.waitCRDs(ctx, snap.CRDs); err != nil || stored {
		return err
	}
	for _, step := range append(s.clusterSteps(ctx, snap), s.namespacedSteps(ctx, snap, owned)...) {
		if err := parallel(step.n, step.one); err != nil {
			return fmt.Errorf("seeding %s: %w", step.what, err)
		}
	}
	return nil
}

// liftGatePatch removes SeedingGate and leaves any other gate.
var liftGatePatch = []byte(`{"spec":{"schedulingGates":[{"$patch":"delete","name":"` + SeedingGate + `"}]}}`)

// release lifts SeedingGate from the replayed pods, one by one in replay order.
func (s *seeder) release(ctx context.Context, replay []corev1.Pod) error {
	for _, p := range replay {
		if _, err := s.kube.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, liftGatePatch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("releasing replayed pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return nil
}

// seedStep creates the n objects of one kind, one(i) each.
type seedStep struct {
	what string
	n    int
	one  func(i int) error
}

func each[T any](what string, items []T, create func(*T) error) seedStep {
	return seedStep{what: what, n: len(items), one: func(i int) error { return create(&items[i]) }}
}

// clusterSteps create the cluster-scoped objects, those namespaced ones refer to first.
func (s *seeder) clusterSteps(ctx context.Context, snap *Snapshot) []seedStep {
	core, storage, c := s.kube.CoreV1(), s.kube.StorageV1(), metav1.CreateOptions{}
	return []seedStep{
		each("namespaces", snap.Namespaces, func(o *corev1.Namespace) error {
			_, err := core.Namespaces().Create(ctx, o, c)
			return ignoreExists(err)
		}),
		each("priorityclasses", snap.PriorityClasses, func(o *schedulingv1.PriorityClass) error {
			_, err := s.kube.SchedulingV1().PriorityClasses().Create(ctx, o, c)
			return err
		}),
		each("runtimeclasses", snap.RuntimeClasses, func(o *nodev1.RuntimeClass) error {
			_, err := s.kube.NodeV1().RuntimeClasses().Create(ctx, o, c)
			return err
		}),
		each("storageclasses", snap.StorageClasses, func(o *storagev1.StorageClass) error {
			_, err := storage.StorageClasses().Create(ctx, o, c)
			return err
		}),
		each("csinodes", snap.CSINodes, func(o *storagev1.CSINode) error { _, err := storage.CSINodes().Create(ctx, o, c); return err }),
		each("nodes", snap.Nodes, func(o *corev1.Node) error {
			n, err := core.Nodes().Create(ctx, o, c)
			if err != nil || equality.Semantic.DeepEqual(n.Spec.Taints, o.Spec.Taints) {
				return err
			}
			// Admission (TaintNodesByCondition) taints a new node not-ready,
			// as a node controller would lift it for a ready one.
			n.Spec.Taints = o.Spec.Taints
			_, err = core.Nodes().Update(ctx, n, metav1.UpdateOptions{})
			return err
		}),
		each("persistentvolumes", snap.PVs, func(o *corev1.PersistentVolume) error {
			pv, err := core.PersistentVolumes().Create(ctx, o, c)
			if err == nil && o.Status.Phase != "" {
				pv.Status = o.Status
				_, err = core.PersistentVolumes().UpdateStatus(ctx, pv, metav1.UpdateOptions{})
			}
			return err
		}),
		each("deviceclasses", snap.DeviceClasses, func(o *resourcev1.DeviceClass) error {
			_, err := s.kube.ResourceV1().DeviceClasses().Create(ctx, o, c)
			return err
		}),
		each("resourceslices", snap.ResourceSlices, func(o *resourcev1.ResourceSlice) error {
			_, err := s.kube.ResourceV1().ResourceSlices().Create(ctx, o, c)
			return err
		}),
	}
}

// namespacedSteps create the namespaced objects: PodGroups before the claims
// they control, claims before the pods that use them, bound pods last with
// the claims they control (owned), and the claims of pods the snapshot
// lacks after them.
func (s *seeder) namespacedSteps(ctx context.Context, snap *Snapshot, owned map[string][]*resourcev1.ResourceClaim) []seedStep {
	core, c := s.kube.CoreV1(), metav1.CreateOptions{}
	var (
		createdMu sync.Mutex
		created   = map[string]bool{} // pods ("namespace/name") whose claims were created with them
	)
	replayed := podSet(snap.Replay)
	return []seedStep{
		each("persistentvolumeclaims", snap.PVCs, func(o *corev1.PersistentVolumeClaim) error {
			pvc, err := core.PersistentVolumeClaims(o.Namespace).Create(ctx, o, c)
			if err == nil && o.Status.Phase != "" {
				pvc.Status = o.Status
				_, err = core.PersistentVolumeClaims(o.Namespace).UpdateStatus(ctx, pvc, metav1.UpdateOptions{})
			}
			return err
		}),
		each("services", snap.Services, func(o *corev1.Service) error { _, err := core.Services(o.Namespace).Create(ctx, o, c); return err }),
		each("scheduler-plugins objects", snap.Custom, func(o *unstructured.Unstructured) error {
			_, err := s.dyn.Resource(customResource(o)).Namespace(o.GetNamespace()).Create(ctx, o, c)
			return err
		}),
		each("workloads", snap.Workloads, func(o *unstructured.Unstructured) error {
			_, err := s.dyn.Resource(gangResource(snap.GangVersion, "workloads")).Namespace(o.GetNamespace()).Create(ctx, o, c)
			return err
		}),
		each("podgroups.scheduling.k8s.io", snap.PodGroups, func(o *unstructured.Unstructured) error {
			groups := s.dyn.Resource(gangResource(snap.GangVersion, "podgroups")).Namespace(o.GetNamespace())
			g, err := groups.Create(ctx, o, c)
			if err != nil {
				return err
			}
			s.groupUIDs.Store(o.GetNamespace()+"/"+o.GetName(), g.GetUID())
			if status, ok := o.Object["status"]; ok {
				g.Object["status"] = status
				_, err = groups.UpdateStatus(ctx, g, metav1.UpdateOptions{})
			}
			return err
		}),
		each("resourceclaimtemplates", snap.ResourceClaimTemplates, func(o *resourcev1.ResourceClaimTemplate) error {
			_, err := s.kube.ResourceV1().ResourceClaimTemplates(o.Namespace).Create(ctx, o, c)
			return err
		}),
		each("resourceclaims", snap.ResourceClaims, func(o *resourcev1.ResourceClaim) error {
			kind, owner, ok := claimController(o)
			switch {
			case ok && kind == "Pod":
				return nil // with its pod, or after the bound pods
			case ok && kind == "PodGroup":
				if uid, ok := s.groupUIDs.Load(owner); ok {
					o = controlledBy(o, uid.(types.UID))
				}
			}
			return s.createClaim(ctx, o)
		}),
		{what: "bound pods", n: snap.Pods.Len(), one: func(i int) error {
			o, err := snap.Pods.At(i)
			if err != nil {
				return err
			}
			if err := s.createPod(ctx, o, owned); err != nil {
				return fmt.Errorf("pod %s/%s: %w", o.Namespace, o.Name, err)
			}
			createdMu.Lock()
			created[o.Namespace+"/"+o.Name] = true
			createdMu.Unlock()
			return nil
		}},
		each("resourceclaims of pods not copied", snap.ResourceClaims, func(o *resourcev1.ResourceClaim) error {
			// Claims of pods the snapshot lacks (finished ones, still
			// allocated: their devices are not free yet).
			if kind, owner, ok := claimController(o); !ok || kind != "Pod" || created[owner] || replayed[owner] {
				return nil
			}
			return s.createClaim(ctx, o)
		}),
	}
}

// customResource is the resource of a scheduler-plugins object: its plural is
// its kind's, lowercased, plus "s" (PodGroup, ElasticQuota).
func customResource(u *unstructured.Unstructured) schema.GroupVersionResource {
	gvk := u.GroupVersionKind()
	return gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s")
}

// createCRDs creates the CRDs.
func (s *seeder) createCRDs(ctx context.Context, crds []unstructured.Unstructured) error {
	for i := range crds {
		if _, err := s.dyn.Resource(crdResource).Create(ctx, &crds[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("seeding CustomResourceDefinition %s: %w", crds[i].GetName(), err)
		}
	}
	return nil
}

// waitCRDs waits until the CRDs are served.
func (s *seeder) waitCRDs(ctx context.Context, crds []unstructured.Unstructured) error {
	for i := range crds {
		name := crds[i].GetName()
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			u, err := s.dyn.Resource(crdResource).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]interface{})
				if m["type"] == "Established" && m["status"] == "True" {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			return fmt.Errorf("CustomResourceDefinition %s not established in the sandbox: %w", name, err)
		}
	}
	return nil
}

// ignoreExists: the sandbox makes default, kube-system and kube-public itself.
func ignoreExists(err error) error {
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// parallel runs one(0..n-1) on seedWorkers goroutines and returns the first error.
func parallel(n int, one func(i int) error) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan int)
	for w := 0; w < min(seedWorkers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := one(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return firstErr
}

// replayedPods lists the replayed pods of a sandbox.
func (s *seeder) replayedPods(ctx context.Context) ([]corev1.Pod, error) {
	list, err := s.kube.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: ReplayLabel + "=true"})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}
