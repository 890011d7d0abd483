package trial

import (
	"context"
	"fmt"
	"regexp"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// Kubernetes' own gangs (scheduling.k8s.io Workloads and PodGroups) change
// version from one release to the next (v1alpha2 in 1.36, v1beta1 in 1.37,
// which its scheduler reads), and a client knows only the versions it was
// built with. So they are copied untyped, at the version the cluster
// prefers among those that serve both kinds, and a sandbox is seeded and
// served at that same version (Snapshot.GangVersion).

// GangGroup is the API group of Kubernetes' own gangs.
const GangGroup = "scheduling.k8s.io"

// gangResources are the kinds of a gang, in the order they are seeded.
var gangResources = []string{"workloads", "podgroups"}

// gangResource is a gang kind's resource at version.
func gangResource(version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: GangGroup, Version: version, Resource: resource}
}

// servedGangVersion is the version of scheduling.k8s.io whose discovery
// lists both gang kinds, in the server's order of preference; "" when no
// version does.
func servedGangVersion(d discovery.DiscoveryInterface) (string, error) {
	groups, err := d.ServerGroups()
	if err != nil {
		return "", fmt.Errorf("asking the cluster which versions of %s it serves: %w", GangGroup, err)
	}
	for _, g := range groups.Groups {
		if g.Name != GangGroup {
			continue
		}
		// The preferred version first, then the server's order.
		versions := slices.Clone(g.Versions)
		if i := slices.Index(versions, g.PreferredVersion); i > 0 {
			versions = slices.Insert(slices.Delete(versions, i, i+1), 0, g.PreferredVersion)
		}
		for _, v := range versions {
			list, err := d.ServerResourcesForGroupVersion(v.GroupVersion)
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				return "", fmt.Errorf("asking the cluster which kinds %s serves: %w", v.GroupVersion, err)
			}
			if servesAll(list, gangResources) {
				return v.Version, nil
			}
		}
	}
	return "", nil
}

// servesAll says whether list holds every one of resources.
func servesAll(list *metav1.APIResourceList, resources []string) bool {
	for _, r := range resources {
		if !slices.ContainsFunc(list.APIResources, func(a metav1.APIResource) bool { return a.Name == r }) {
			return false
		}
	}
	return true
}

// gangSteps list the gang kinds at s.GangVersion.
func (s *Snapshot) gangSteps(src Source) []listStep {
	step := func(resource string, list *[]unstructured.Unstructured, trim func(*unstructured.Unstructured) unstructured.Unstructured) listStep {
		what := resource + "." + GangGroup
		return listStep{what, func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return src.Dynamic.Resource(gangResource(s.GangVersion, resource)).List(ctx, o)
		}, func(o runtime.Object) (int, error) {
			kept := trim(o.(*unstructured.Unstructured))
			*list = append(*list, kept)
			return jsonSize(&kept)
		}}
	}
	return []listStep{step("workloads", &s.Workloads, TrimWorkload), step("podgroups", &s.PodGroups, TrimPodGroup)}
}

// takeGangs copies the cluster's gangs when it serves them and lets them be
// read; it says whether it did.
func (s *Snapshot) takeGangs(ctx context.Context, src Source, size *snapshotSize) (bool, error) {
	if src.Dynamic == nil {
		return false, nil
	}
	version, err := servedGangVersion(src.Kube.Discovery())
	if err != nil || version == "" {
		return false, err
	}
	s.GangVersion = version
	copied, err := takeServed(ctx, size, s.gangSteps(src), s.forgetGangs)
	if !copied {
		s.GangVersion = ""
	}
	return copied, err
}

func (s *Snapshot) forgetGangs(size *snapshotSize) {
	for _, list := range []*[]unstructured.Unstructured{&s.Workloads, &s.PodGroups} {
		for i := range *list {
			n, _ := jsonSize(&(*list)[i])
			size.change((*list)[i].GetNamespace(), -n)
		}
		*list = nil
	}
}

// jsonSize is the size of u in JSON, what it is counted at.
func jsonSize(u *unstructured.Unstructured) (int, error) {
	data, err := u.MarshalJSON()
	return len(data), err
}

// TrimWorkload keeps the spec: its PodGroup templates and their policies.
func TrimWorkload(w *unstructured.Unstructured) unstructured.Unstructured {
	return TrimCustom(w)
}

// TrimPodGroup keeps the spec (the gang's policy and constraints) and of
// the status the names of the claims made for the group, which its pods'
// claims resolve to, and the condition types, statuses and reasons; a group
// whose pods are replayed loses its conditions (settleGroups).
func TrimPodGroup(g *unstructured.Unstructured) unstructured.Unstructured {
	out := TrimCustom(g)
	status := map[string]interface{}{}
	if claims, ok, _ := unstructured.NestedSlice(g.Object, "status", "resourceClaimStatuses"); ok {
		status["resourceClaimStatuses"] = claims
	}
	conditions, _, _ := unstructured.NestedSlice(g.Object, "status", "conditions")
	var kept []interface{}
	for _, c := range conditions {
		m, _ := c.(map[string]interface{})
		k := map[string]interface{}{}
		for _, f := range []string{"type", "status", "reason", "lastTransitionTime"} {
			if v, ok := m[f]; ok {
				k[f] = v
			}
		}
		kept = append(kept, k)
	}
	if len(kept) > 0 {
		status["conditions"] = kept
	}
	if len(status) > 0 {
		out.Object["status"] = status
	}
	return out
}

// kubeVersion is how Kubernetes names an API version (v1, v1beta1,
// v1alpha3): a gang version goes on the sandbox's command line.
var kubeVersion = regexp.MustCompile(`^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$`)

// checkGangVersion refuses a gang version Kubernetes would not name, gang
// objects at another version than the snapshot's, and gangs without one.
func (s *Snapshot) checkGangVersion() error {
	if s.GangVersion != "" && !kubeVersion.MatchString(s.GangVersion) {
		return fmt.Errorf("gangVersion %q is not a version of %s: give one such as v1beta1, the version its Workloads and PodGroups are at", s.GangVersion, GangGroup)
	}
	want := schema.GroupVersion{Group: GangGroup, Version: s.GangVersion}.String()
	for _, list := range [][]unstructured.Unstructured{s.Workloads, s.PodGroups} {
		for _, o := range list {
			if s.GangVersion == "" || o.GetAPIVersion() != want {
				return fmt.Errorf("%s %s/%s is at apiVersion %s, but the snapshot's gangVersion is %q: every Workload and PodGroup of %s must be at %s/<gangVersion>",
					o.GetKind(), o.GetNamespace(), o.GetName(), o.GetAPIVersion(), s.GangVersion, GangGroup, GangGroup)
			}
		}
	}
	return nil
}
