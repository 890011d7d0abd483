package trial

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// podClaimNames are the names of the ResourceClaims p uses: those it names,
// and those made for it (or for its PodGroup) from a template, which its
// status records.
func podClaimNames(p *corev1.Pod) []string {
	var out []string
	for _, c := range p.Spec.ResourceClaims {
		if c.ResourceClaimName != nil {
			out = append(out, *c.ResourceClaimName)
			continue
		}
		for _, st := range p.Status.ResourceClaimStatuses {
			if st.Name == c.Name && st.ResourceClaimName != nil {
				out = append(out, *st.ResourceClaimName)
			}
		}
	}
	return out
}

// podSet is the "namespace/name" of pods.
func podSet(pods []corev1.Pod) map[string]bool {
	out := make(map[string]bool, len(pods))
	for i := range pods {
		out[pods[i].Namespace+"/"+pods[i].Name] = true
	}
	return out
}

// settleClaims readies the claims for the replay set, given the claims
// ("namespace/name") the bound pods use. A claim that only replayed pods use
// is unallocated, so that each arm allocates it anew; one a bound pod uses
// keeps its allocation, the devices being in use on its node, and loses the
// reservations of replayed pods, which are new pods in a sandbox. The
// claims the scheduler made for a replayed pod's extended resources are
// dropped: each arm makes its own.
func (s *Snapshot) settleClaims(bound map[string]bool) {
	replayed, used := podSet(s.Replay), map[string]bool{}
	for i := range s.Replay {
		for _, name := range podClaimNames(&s.Replay[i]) {
			used[s.Replay[i].Namespace+"/"+name] = true
		}
	}
	kept := s.ResourceClaims[:0]
	for _, c := range s.ResourceClaims {
		key := c.Namespace + "/" + c.Name
		kind, owner, owned := claimController(&c)
		if owned && kind == "Pod" && replayed[owner] && c.Annotations[extendedResourceClaimAnnotation] == "true" {
			continue
		}
		switch {
		case used[key] && !bound[key]:
			c.Status = resourcev1.ResourceClaimStatus{}
		case c.Status.Allocation != nil:
			c.Status.ReservedFor = slices.DeleteFunc(slices.Clone(c.Status.ReservedFor), func(r resourcev1.ResourceClaimConsumerReference) bool {
				return r.APIGroup == "" && r.Resource == "pods" && replayed[c.Namespace+"/"+r.Name]
			})
		}
		kept = append(kept, c)
	}
	clear(s.ResourceClaims[len(kept):])
	s.ResourceClaims = kept
}

// settleGroups clears the conditions of the PodGroups (scheduling.k8s.io)
// that replayed pods are in: each arm schedules the group anew.
func (s *Snapshot) settleGroups() {
	replayed := map[string]bool{}
	for i := range s.Replay {
		if g := podGroupName(&s.Replay[i]); g != "" {
			replayed[s.Replay[i].Namespace+"/"+g] = true
		}
	}
	for i := range s.PodGroups {
		if g := &s.PodGroups[i]; replayed[g.GetNamespace()+"/"+g.GetName()] {
			unstructured.RemoveNestedField(g.Object, "status", "conditions")
			if status, _, _ := unstructured.NestedMap(g.Object, "status"); len(status) == 0 {
				delete(g.Object, "status")
			}
		}
	}
}

// podGroupName is the PodGroup (scheduling.k8s.io) p is in; "" for none.
func podGroupName(p *corev1.Pod) string {
	if g := p.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
		return *g.PodGroupName
	}
	return ""
}

// claimController is the kind and "namespace/name" of the pod or PodGroup
// that controls c (TrimResourceClaim keeps no other).
func claimController(c *resourcev1.ResourceClaim) (kind, key string, ok bool) {
	ref := metav1.GetControllerOfNoCopy(c)
	if ref == nil || !claimOwnerKinds[ref.Kind] {
		return "", "", false
	}
	return ref.Kind, c.Namespace + "/" + ref.Name, true
}

// controlledBy is a copy of c whose controller reference names uid: its
// owner's UID in a sandbox, which the API server chose or the storage
// writer did. The scheduler uses a claim made from a template only for the
// pod whose UID that is.
func controlledBy(c *resourcev1.ResourceClaim, uid types.UID) *resourcev1.ResourceClaim {
	out := c.DeepCopy()
	for i := range out.OwnerReferences {
		if r := &out.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			r.UID = uid
		}
	}
	return out
}
