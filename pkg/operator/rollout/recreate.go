package rollout

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// lastRan is, when the scheduler's Deployment is gone while the gate holds,
// the Deployment that last ran (status.lastKnownGood), rebuilt: the gate
// compares the change with it and creates it while the change is held, so
// that deleting the Deployment, or a Removed/Managed round trip, is no way
// around a trial. Nil with no reason when nothing is held: no configuration
// ran yet (a first rollout), or the desired template is the one that ran.
// Nil with a reason when it cannot be rebuilt.
func lastRan(in Inputs) (*appsv1.Deployment, string) {
	lkg, desired := in.Record.LastKnownGood, in.Desired
	if lkg == nil || lkg.TemplateHash == desired.TemplateHash {
		return nil, ""
	}
	gone := fmt.Sprintf("Deployment %s/%s is gone, and the spec is a change from what last ran (configuration %s, pod template %s) that no trial allowed yet. ",
		names.OperandNamespace, names.OperandName, Short(lkg.ConfigHash), lkg.TemplateHash)
	rebuilt := desired.Rollback
	switch {
	case rebuilt == nil && lkg.ConfigHash != desired.ConfigHash:
		return nil, gone + fmt.Sprintf("ConfigMap %s of the configuration that last ran is gone, so it cannot be recreated as it ran. ",
			names.ConfigMapNameFor(lkg.ConfigHash))
	case rebuilt == nil || rebuilt.TemplateHash != lkg.TemplateHash:
		// The spec at the configuration that ran is not the template that
		// ran: the change is more than the configuration (image, arguments,
		// env ...), and status keeps no copy of what it was.
		return nil, gone + "The change is more than the configuration, so the spec does not say how the last scheduler ran and it cannot be recreated. "
	}
	d := rebuilt.Deployment
	if req := in.Trial.Requested; req != nil && req.Current.ConfigHash == lkg.ConfigHash {
		// It ran its image pinned to the digest a trial ran: so it runs again.
		if pinned, why := PinnedImage(SchedulerImage(d), req.Current.Image); why == "" && pinned == req.Current.Image {
			d = withSchedulerImage(d, pinned)
		}
	}
	return d, ""
}
