package trial

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// createPod creates p with the names of its claims made from templates
// (which a create drops with the rest of the status), then the claims it
// controls (owned), which name its UID.
func (s *seeder) createPod(ctx context.Context, p *corev1.Pod, owned map[string][]*resourcev1.ResourceClaim) error {
	pods := s.kube.CoreV1().Pods(p.Namespace)
	created, err := pods.Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	if len(p.Status.ResourceClaimStatuses) > 0 {
		created.Status.ResourceClaimStatuses = p.Status.ResourceClaimStatuses
		if _, err := pods.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("setting its claims' names: %w", err)
		}
	}
	for _, c := range owned[p.Namespace+"/"+p.Name] {
		if err := s.createClaim(ctx, controlledBy(c, created.UID)); err != nil {
			return fmt.Errorf("seeding its ResourceClaim %s: %w", c.Name, err)
		}
	}
	return nil
}

// createClaim creates c, and sets its allocation and reservations after.
func (s *seeder) createClaim(ctx context.Context, c *resourcev1.ResourceClaim) error {
	claims := s.kube.ResourceV1().ResourceClaims(c.Namespace)
	created, err := claims.Create(ctx, c, metav1.CreateOptions{})
	if err == nil && c.Status.Allocation != nil {
		created.Status = c.Status
		_, err = claims.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	}
	return err
}

// podClaims are the claims of snap that a pod of snap controls, by
// "namespace/name" of the pod: they are created with it (createPod).
func podClaims(snap *Snapshot) map[string][]*resourcev1.ResourceClaim {
	pods := map[string][]*resourcev1.ResourceClaim{}
	for i := range snap.ResourceClaims {
		if kind, pod, ok := claimController(&snap.ResourceClaims[i]); ok && kind == "Pod" {
			pods[pod] = append(pods[pod], &snap.ResourceClaims[i])
		}
	}
	return pods
}

// flagsText is flags as a command line says them.
func flagsText(flags []Flag) string {
	var out []string
	for _, f := range flags {
		out = append(out, f.String())
	}
	return strings.Join(out, " ")
}

// checkServed refuses a sandbox whose API server does not serve a kind the
// snapshot holds, rather than seed it without them.
func (s *seeder) checkServed(snap *Snapshot) error {
	inGroups := 0
	for i := range snap.Replay {
		if podGroupName(&snap.Replay[i]) != "" {
			inGroups++
		}
	}
	if inGroups > 0 && snap.GangVersion == "" {
		return fmt.Errorf("the snapshot holds %d replayed pods in a PodGroup (%s) but no gangVersion, the version of %s to serve their groups at",
			inGroups, GangGroup, GangGroup)
	}
	gangs := GangGroup + "/" + snap.GangVersion
	needs := []struct {
		groupVersion, resource, what string
		n                            int
	}{
		{"resource.k8s.io/v1", "deviceclasses", "DeviceClasses", len(snap.DeviceClasses)},
		{"resource.k8s.io/v1", "resourceslices", "ResourceSlices", len(snap.ResourceSlices)},
		{"resource.k8s.io/v1", "resourceclaimtemplates", "ResourceClaimTemplates", len(snap.ResourceClaimTemplates)},
		{"resource.k8s.io/v1", "resourceclaims", "ResourceClaims", len(snap.ResourceClaims)},
		{gangs, "workloads", "Workloads", len(snap.Workloads)},
		{gangs, "podgroups", "PodGroups (scheduling.k8s.io)", len(snap.PodGroups)},
		{gangs, "podgroups", "replayed pods in a PodGroup (scheduling.k8s.io)", inGroups},
	}
	served := map[string]map[string]bool{}
	for _, k := range needs {
		if k.n == 0 {
			continue
		}
		if served[k.groupVersion] == nil {
			list, err := s.kube.Discovery().ServerResourcesForGroupVersion(k.groupVersion)
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("asking the sandbox's API server whether it serves %s: %w", k.groupVersion, err)
			}
			served[k.groupVersion] = map[string]bool{}
			if list != nil {
				for _, r := range list.APIResources {
					served[k.groupVersion][r.Name] = true
				}
			}
		}
		if !served[k.groupVersion][k.resource] {
			msg := fmt.Sprintf("the snapshot holds %d %s, but the sandbox's API server does not serve %s.%s",
				k.n, k.what, k.resource, k.groupVersion)
			if k.groupVersion == gangs {
				msg += " (its kube-apiserver needs " + flagsText(SandboxLoad{GangVersion: snap.GangVersion}.APIServerFlags()) + ")"
			}
			return errors.New(msg)
		}
	}
	return nil
}
