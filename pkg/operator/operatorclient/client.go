package operatorclient

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/apiserver/jsonpatch"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	secondaryschedulerapply "github.com/openshift/secondary-scheduler-operator/pkg/generated/applyconfiguration/operator/v1"
	secondaryschedulerclient "github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned/typed/operator/v1"
	secondaryschedulerinformers "github.com/openshift/secondary-scheduler-operator/pkg/generated/informers/externalversions/operator/v1"
	secondaryschedulerlisters "github.com/openshift/secondary-scheduler-operator/pkg/generated/listers/operator/v1"
)

// Interface is the SecondaryScheduler "cluster" as every controller of the
// operator sees it: library-go's operator client, which its controllers take,
// plus the whole object and its whole status for ours.
type Interface interface {
	v1helpers.OperatorClientWithFinalizers
	// Get returns the SecondaryScheduler from the informer's cache. The object
	// is shared with the cache: never modify it.
	Get() (*secondaryschedulerv1.SecondaryScheduler, error)
	// ApplyStatus server-side applies status as fieldManager, which owns
	// exactly the fields status sets from then on (a field it owned before and
	// status leaves out is removed). Nothing is sent when the fields
	// fieldManager owns already are status, in the cached object or, while
	// the cache is behind it, in the one this client's latest write returned; applied says
	// whether a request was sent. Condition lastTransitionTimes are kept while a
	// condition's status stays, as ApplyOperatorStatus does. An absent
	// SecondaryScheduler is a NotFound error, with no request sent.
	ApplyStatus(ctx context.Context, fieldManager string, status *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration) (applied bool, err error)
}

// Client is the only way the operator reads and writes the SecondaryScheduler:
// one typed informer, whose cache every read uses, and the typed clientset,
// which writes status only by server-side apply, each controller as its own
// field manager. Its fields are never written from a cached copy: an apply
// carries only the applier's fields, and the Update* methods send what they
// change over a live read at the caller's resourceVersion, so a stale cache
// can cost a conflict or a redundant apply, never another writer's field.
type Client struct {
	clock    clock.PassiveClock
	name     string
	informer cache.SharedIndexInformer
	lister   secondaryschedulerlisters.SecondarySchedulerLister
	client   secondaryschedulerclient.SecondarySchedulerInterface

	mu sync.Mutex
	// extracted is, per field manager, its fields of the cached object at one
	// resourceVersion. Extracting them turns the whole object into a typed
	// value, a quarter of the operator's CPU while the scheduler rolls: every
	// event of the Deployment brings each controller's apply, and some meet
	// the version the one before them met.
	extracted map[string]extraction
	// written is the SecondaryScheduler as this client's latest write left it.
	// Until the cache has caught up with it, an apply is compared with it:
	// the syncs that other objects' events bring right after a status write
	// would otherwise send that status again, each a request while the
	// scheduler rolls.
	written *secondaryschedulerv1.SecondaryScheduler
}

// extraction is what a field manager owns of one version of the object,
// which never changes: share it, never modify it.
type extraction struct {
	uid             types.UID
	resourceVersion string
	owned           *secondaryschedulerapply.SecondarySchedulerApplyConfiguration
}

var _ Interface = &Client{}

// New returns the client of the SecondaryScheduler singleton. It registers the
// informer with its factory: call it before the factory is started.
func New(clk clock.PassiveClock, client secondaryschedulerclient.SecondarySchedulersGetter, informer secondaryschedulerinformers.SecondarySchedulerInformer) *Client {
	return &Client{
		clock:    clk,
		name:     secondaryschedulerv1.SingletonName,
		informer: informer.Informer(),
		lister:   informer.Lister(),
		client:   client.SecondarySchedulers(),
	}
}

func (c *Client) Informer() cache.SharedIndexInformer { return c.informer }

func (c *Client) Get() (*secondaryschedulerv1.SecondaryScheduler, error) { return c.lister.Get(c.name) }

func (c *Client) GetObjectMeta() (*metav1.ObjectMeta, error) {
	ss, err := c.Get()
	if err != nil {
		return nil, err
	}
	return ss.ObjectMeta.DeepCopy(), nil
}

func (c *Client) GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	ss, err := c.Get()
	if err != nil {
		return nil, nil, "", err
	}
	return ss.Spec.OperatorSpec.DeepCopy(), ss.Status.OperatorStatus.DeepCopy(), ss.ResourceVersion, nil
}

func (c *Client) GetOperatorStateWithQuorum(ctx context.Context) (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	ss, err := c.client.Get(ctx, c.name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, "", err
	}
	return &ss.Spec.OperatorSpec, &ss.Status.OperatorStatus, ss.ResourceVersion, nil
}

// live reads the SecondaryScheduler from the API server and fails with a
// Conflict unless it is still at resourceVersion, so that what the caller
// computed from that version is written over that version and nothing newer.
func (c *Client) live(ctx context.Context, resourceVersion string) (*secondaryschedulerv1.SecondaryScheduler, error) {
	ss, err := c.client.Get(ctx, c.name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if ss.ResourceVersion != resourceVersion {
		return nil, apierrors.NewConflict(secondaryschedulerv1.Resource("secondaryschedulers"), c.name,
			fmt.Errorf("resourceVersion is %s, not %s", ss.ResourceVersion, resourceVersion))
	}
	return ss, nil
}

// UpdateOperatorSpec replaces the OperatorSpec fields of the SecondaryScheduler
// at resourceVersion. The rest of the spec comes from a live read at that
// version, never from the cache.
func (c *Client) UpdateOperatorSpec(ctx context.Context, resourceVersion string, spec *operatorv1.OperatorSpec) (*operatorv1.OperatorSpec, string, error) {
	ss, err := c.live(ctx, resourceVersion)
	if err != nil {
		return nil, "", err
	}
	ss.Spec.OperatorSpec = *spec
	updated, err := c.client.Update(ctx, ss, metav1.UpdateOptions{})
	if err != nil {
		return nil, "", err
	}
	c.wrote(updated)
	return &updated.Spec.OperatorSpec, updated.ResourceVersion, nil
}

// UpdateOperatorStatus replaces the OperatorStatus fields of the
// SecondaryScheduler at resourceVersion; schedulerNames, configHash and the
// rollout record come from a live read at that version, never from the cache.
// The operator's own controllers apply instead; this serves library-go code
// that still updates.
func (c *Client) UpdateOperatorStatus(ctx context.Context, resourceVersion string, status *operatorv1.OperatorStatus) (*operatorv1.OperatorStatus, error) {
	ss, err := c.live(ctx, resourceVersion)
	if err != nil {
		return nil, err
	}
	ss.Status.OperatorStatus = *status
	updated, err := c.client.UpdateStatus(ctx, ss, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	c.wrote(updated)
	return &updated.Status.OperatorStatus, nil
}

// ApplyOperatorSpec applies the OperatorSpec fields as fieldManager, unless
// they are what fieldManager owns already. No controller of the operator
// applies the spec, and its role grants no patch of the SecondaryScheduler.
func (c *Client) ApplyOperatorSpec(ctx context.Context, fieldManager string, desired *applyoperatorv1.OperatorSpecApplyConfiguration) error {
	if desired == nil {
		return fmt.Errorf("desiredConfiguration must have value")
	}
	spec := &secondaryschedulerapply.SecondarySchedulerSpecApplyConfiguration{OperatorSpecApplyConfiguration: *desired}
	ss, err := c.newest()
	switch {
	case apierrors.IsNotFound(err):
		// The apply fails as it should: a SecondaryScheduler is the user's to create.
	case err != nil:
		return err
	default:
		owned, err := secondaryschedulerapply.ExtractSecondaryScheduler(ss, fieldManager)
		if err != nil {
			return fmt.Errorf("extracting the spec fields of %q: %w", fieldManager, err)
		}
		unchanged, err := sameSpec(owned.Spec, spec)
		if err != nil || unchanged {
			return err
		}
	}
	applied, err := c.client.Apply(ctx, secondaryschedulerapply.SecondaryScheduler(c.name).WithSpec(spec),
		metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("applying the spec of SecondaryScheduler %s as %q: %w", c.name, fieldManager, err)
	}
	c.wrote(applied)
	return nil
}

// ApplyOperatorStatus applies the OperatorStatus fields as fieldManager, the
// contract of library-go's generic operator client: fieldManager owns exactly
// them afterwards, nothing is sent when it owns them already, and condition
// lastTransitionTimes move only with the condition's status.
func (c *Client) ApplyOperatorStatus(ctx context.Context, fieldManager string, desired *applyoperatorv1.OperatorStatusApplyConfiguration) error {
	if desired == nil {
		return fmt.Errorf("desiredConfiguration must have value")
	}
	_, err := c.ApplyStatus(ctx, fieldManager, &secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration{OperatorStatusApplyConfiguration: *desired})
	return err
}

func (c *Client) ApplyStatus(ctx context.Context, fieldManager string, desired *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration) (bool, error) {
	if desired == nil {
		return false, fmt.Errorf("desiredConfiguration must have value")
	}
	for i, cond := range desired.Conditions {
		// As library-go does: a condition without type or status is a bug of its writer.
		if ptr.Deref(cond.Type, "") == "" {
			panic(fmt.Sprintf(".status.conditions[%d].type is missing", i))
		}
		if ptr.Deref(cond.Status, "") == "" {
			panic(fmt.Sprintf(".status.conditions[%q].status is missing", *cond.Type))
		}
	}
	ss, err := c.newest()
	if err != nil {
		// A status cannot be applied to a SecondaryScheduler that does not exist.
		return false, err
	}
	owned, err := c.ownedStatus(ss, fieldManager)
	if err != nil {
		return false, err
	}
	var ownedConditions []applyoperatorv1.OperatorConditionApplyConfiguration
	if owned.Status != nil {
		ownedConditions = owned.Status.Conditions
	}
	v1helpers.SetApplyConditionsLastTransitionTime(c.clock, &desired.Conditions, ownedConditions)
	if unchanged, err := sameStatus(owned.Status, desired); err != nil || unchanged {
		return false, err
	}
	if klog.V(4).Enabled() {
		klog.Infof("SecondaryScheduler %s status of %s changes: %s", c.name, fieldManager, jsonOf(desired))
	}
	applied, err := c.client.ApplyStatus(ctx, secondaryschedulerapply.SecondaryScheduler(c.name).WithStatus(desired),
		metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
	if err != nil {
		return false, fmt.Errorf("applying the status of SecondaryScheduler %s as %q: %w", c.name, fieldManager, err)
	}
	c.wrote(applied)
	return true, nil
}

// newest is the cached SecondaryScheduler, or the one this client's latest
// write returned when the cache is older. A resourceVersion that is not a
// number (a store other than etcd) leaves the cache to decide, as before.
func (c *Client) newest() (*secondaryschedulerv1.SecondaryScheduler, error) {
	ss, err := c.Get()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	written := c.written
	c.mu.Unlock()
	if written == nil || written.UID != ss.UID {
		return ss, nil
	}
	if order, err := resourceversion.CompareResourceVersion(ss.ResourceVersion, written.ResourceVersion); err == nil && order < 0 {
		return written, nil
	}
	return ss, nil
}

// wrote remembers ss, which a write of this client returned, unless a later
// write is remembered already.
func (c *Client) wrote(ss *secondaryschedulerv1.SecondaryScheduler) {
	if ss == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.written != nil && c.written.UID == ss.UID {
		if order, err := resourceversion.CompareResourceVersion(ss.ResourceVersion, c.written.ResourceVersion); err == nil && order <= 0 {
			return
		}
	}
	c.written = ss
}

// ownedStatus is what fieldManager owns of ss's status, extracted once per
// version of the object.
func (c *Client) ownedStatus(ss *secondaryschedulerv1.SecondaryScheduler, fieldManager string) (*secondaryschedulerapply.SecondarySchedulerApplyConfiguration, error) {
	c.mu.Lock()
	e, ok := c.extracted[fieldManager]
	c.mu.Unlock()
	if ok && e.uid == ss.UID && e.resourceVersion == ss.ResourceVersion {
		return e.owned, nil
	}
	// Outside the lock: the other controllers' applies need not wait for it.
	owned, err := secondaryschedulerapply.ExtractSecondarySchedulerStatus(statusOf(ss, fieldManager), fieldManager)
	if err != nil {
		return nil, fmt.Errorf("extracting the status fields of %q: %w", fieldManager, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.extracted == nil {
		c.extracted = map[string]extraction{}
	}
	c.extracted[fieldManager] = extraction{uid: ss.UID, resourceVersion: ss.ResourceVersion, owned: owned}
	return owned, nil
}

// statusOf is what extracting fieldManager's status reads of ss: its name,
// its status and fieldManager's entries of the status subresource's managed
// fields. The extraction turns the whole object it is given into a typed
// value first, and the spec and the other managers' entries are most of the
// object. A field the manager owned outside status (the status subresource
// takes none) would be missed, which costs a redundant apply, never a lost
// field. The status is shared, not copied: the extraction only reads it.
func statusOf(ss *secondaryschedulerv1.SecondaryScheduler, fieldManager string) *secondaryschedulerv1.SecondaryScheduler {
	out := &secondaryschedulerv1.SecondaryScheduler{
		TypeMeta:   ss.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{Name: ss.Name},
		Status:     ss.Status,
	}
	for _, entry := range ss.ManagedFields {
		if entry.Manager == fieldManager && entry.Subresource == "status" {
			out.ManagedFields = append(out.ManagedFields, entry)
		}
	}
	return out
}

// PatchOperatorStatus sends a JSON patch of the status (library-go's stale
// conditions controller removes conditions with it, each removal guarded by a
// test of the condition's type).
func (c *Client) PatchOperatorStatus(ctx context.Context, patch *jsonpatch.PatchSet) error {
	data, err := patch.Marshal()
	if err != nil {
		return err
	}
	patched, err := c.client.Patch(ctx, c.name, types.JSONPatchType, data, metav1.PatchOptions{}, "status")
	if err != nil {
		return err
	}
	c.wrote(patched)
	return nil
}

// EnsureFinalizer adds finalizer unless the SecondaryScheduler has it (the
// cached one, or this client's latest write while the cache is behind it).
func (c *Client) EnsureFinalizer(ctx context.Context, finalizer string) error {
	ss, err := c.newest()
	if err != nil {
		return err
	}
	if slices.Contains(ss.Finalizers, finalizer) {
		return nil
	}
	return c.setFinalizers(ctx, ss, append(slices.Clone(ss.Finalizers), finalizer))
}

// RemoveFinalizer removes finalizer if the SecondaryScheduler has it, read
// as EnsureFinalizer reads it.
func (c *Client) RemoveFinalizer(ctx context.Context, finalizer string) error {
	ss, err := c.newest()
	if err != nil {
		return err
	}
	if !slices.Contains(ss.Finalizers, finalizer) {
		return nil
	}
	return c.setFinalizers(ctx, ss, slices.DeleteFunc(slices.Clone(ss.Finalizers), func(f string) bool { return f == finalizer }))
}

// setFinalizers updates the SecondaryScheduler it was read from with
// finalizers, at its resourceVersion: when that copy is behind, the update
// conflicts and the controller retries from a newer one; it cannot write back
// an older spec.
// (An update, not a patch: the operator's role grants no patch of the
// SecondaryScheduler itself.)
func (c *Client) setFinalizers(ctx context.Context, read *secondaryschedulerv1.SecondaryScheduler, finalizers []string) error {
	ss := read.DeepCopy()
	ss.Finalizers = finalizers
	updated, err := c.client.Update(ctx, ss, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	c.wrote(updated)
	return nil
}

// sameStatus tells whether two status apply configurations set the same
// status. Both are decoded into a SecondarySchedulerStatus, so a field set to
// its zero value and one left out compare equal, as do times that differ
// below the second the API keeps; conditions and generations, maps on the
// server, compare in key order.
func sameStatus(a, b *secondaryschedulerapply.SecondarySchedulerStatusApplyConfiguration) (bool, error) {
	return same(a, b, func(s *secondaryschedulerv1.SecondarySchedulerStatus) {
		slices.SortFunc(s.Conditions, func(a, b operatorv1.OperatorCondition) int { return strings.Compare(a.Type, b.Type) })
		slices.SortFunc(s.Generations, func(a, b operatorv1.GenerationStatus) int {
			return strings.Compare(a.Group+"/"+a.Resource+"/"+a.Namespace+"/"+a.Name, b.Group+"/"+b.Resource+"/"+b.Namespace+"/"+b.Name)
		})
	})
}

// sameSpec is sameStatus for spec apply configurations.
func sameSpec(a, b *secondaryschedulerapply.SecondarySchedulerSpecApplyConfiguration) (bool, error) {
	return same(a, b, func(*secondaryschedulerv1.SecondarySchedulerSpec) {})
}

// same decodes two apply configurations into the typed T they configure,
// puts each in canonical order, and compares them.
func same[T any](a, b any, canonicalize func(*T)) (bool, error) {
	var typed [2]T
	for i, from := range []any{a, b} {
		raw, err := json.Marshal(from)
		if err != nil {
			return false, err
		}
		if err := json.Unmarshal(raw, &typed[i]); err != nil {
			return false, err
		}
		canonicalize(&typed[i])
	}
	return equality.Semantic.DeepEqual(typed[0], typed[1]), nil
}

func jsonOf(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(raw)
}
