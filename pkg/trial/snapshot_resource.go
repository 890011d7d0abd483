package trial

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// resourceSteps are Dynamic Resource Allocation's kinds.
func (s *Snapshot) resourceSteps(src Source) []listStep {
	r := src.Kube.ResourceV1()
	return []listStep{
		{"deviceclasses", listFn(r.DeviceClasses().List), func(o runtime.Object) (int, error) {
			return keep(&s.DeviceClasses, TrimDeviceClass(o.(*resourcev1.DeviceClass)))
		}},
		{"resourceslices", listFn(r.ResourceSlices().List), func(o runtime.Object) (int, error) {
			return keep(&s.ResourceSlices, TrimResourceSlice(o.(*resourcev1.ResourceSlice)))
		}},
		{"resourceclaims", listFn(r.ResourceClaims("").List), func(o runtime.Object) (int, error) {
			// Only an allocated claim holds devices. Any tenant may make
			// unallocated claims and templates by the thousand: copied whole,
			// they would push every trial over MaxSnapshotBytes.
			if c := o.(*resourcev1.ResourceClaim); c.Status.Allocation != nil {
				return keep(&s.ResourceClaims, TrimResourceClaim(c))
			}
			return 0, nil
		}},
	}
}

// takeReplayClaims reads the ResourceClaimTemplates and the unallocated
// ResourceClaims the replay set uses, each by name (a list, which the
// operator's role allows): as many reads as the replay set has claims,
// whatever else the namespaces hold.
func (s *Snapshot) takeReplayClaims(ctx context.Context, src Source, size *snapshotSize) error {
	r := src.Kube.ResourceV1()
	seen := map[string]bool{}
	for i := range s.ResourceClaims {
		seen["claim "+s.ResourceClaims[i].Namespace+"/"+s.ResourceClaims[i].Name] = true
	}
	var steps []listStep
	for i := range s.Replay {
		p := &s.Replay[i]
		for _, name := range podClaimNames(p) {
			if key := "claim " + p.Namespace + "/" + name; !seen[key] {
				seen[key] = true
				steps = append(steps, namedStep("resourceclaims of the replay set", listFn(r.ResourceClaims(p.Namespace).List), name,
					&s.ResourceClaims, TrimResourceClaim))
			}
		}
		for _, c := range p.Spec.ResourceClaims {
			if name := c.ResourceClaimTemplateName; name != nil && !seen["template "+p.Namespace+"/"+*name] {
				seen["template "+p.Namespace+"/"+*name] = true
				steps = append(steps, namedStep("resourceclaimtemplates of the replay set", listFn(r.ResourceClaimTemplates(p.Namespace).List), *name,
					&s.ResourceClaimTemplates, TrimResourceClaimTemplate))
			}
		}
	}
	for _, step := range steps {
		if err := step.take(ctx, size); err != nil {
			return err
		}
	}
	return nil
}

// namedStep reads the object of one name that list lists, trimmed, into
// list. The name is checked as well as selected: a fake clientset ignores
// field selectors.
func namedStep[T any, P interface {
	*T
	Size() int
	metav1.Object
}](what string, list pager.ListPageFunc, name string, into *[]T, trim func(P) T) listStep {
	byName := func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		return list(ctx, o)
	}
	return listStep{what, byName, func(o runtime.Object) (int, error) {
		if obj, ok := o.(P); ok && obj.GetName() == name {
			return keep[T, P](into, trim(obj))
		}
		return 0, nil
	}}
}

func (s *Snapshot) forgetResources(size *snapshotSize) {
	forget(size, &s.DeviceClasses)
	forget(size, &s.ResourceSlices)
	forget(size, &s.ResourceClaimTemplates)
	forget(size, &s.ResourceClaims)
}
