package render

import (
	"fmt"
	"regexp"
	"strconv"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

// podTemplateField matches a field of the Deployment's pod spec that comes from
// a list the SecondaryScheduler fills: containers, initContainers or volumes.
var podTemplateField = regexp.MustCompile(`^spec\.template\.spec\.(containers|initContainers|volumes)\[(\d+)\](.*)$`)

// SpecField names the SecondaryScheduler field a field of the rendered
// Deployment (as the API server names it when it refuses the Deployment) comes
// from, for the sidecars, init containers and volumes the user wrote:
// spec.template.spec.containers[2].ports[0] is spec.sidecars[1].ports[0]. It
// follows renderDeployment's layout: the scheduler container first, then the
// sidecars; the operator's volumes (config, serving certificate) first, then
// spec.volumes. ok is false for a field the operator itself wrote.
func SpecField(ss *secondaryschedulerv1.SecondaryScheduler, objs *Objects, deploymentField string) (field string, ok bool) {
	m := podTemplateField.FindStringSubmatch(deploymentField)
	if m == nil {
		return "", false
	}
	i, err := strconv.Atoi(m[2])
	if err != nil {
		return "", false
	}
	spec := &ss.Spec
	switch m[1] {
	case "containers":
		if i == 0 {
			return "", false // the scheduler container
		}
		if j := i - 1; j < len(spec.Sidecars) {
			return fmt.Sprintf("spec.sidecars[%d]%s", j, m[3]), true
		}
	case "initContainers":
		if i < len(spec.InitContainers) {
			return fmt.Sprintf("spec.initContainers[%d]%s", i, m[3]), true
		}
	case "volumes":
		offset := len(objs.Deployment.Spec.Template.Spec.Volumes) - len(spec.Volumes)
		if j := i - offset; j >= 0 && j < len(spec.Volumes) {
			return fmt.Sprintf("spec.volumes[%d]%s", j, m[3]), true
		}
	}
	return "", false
}
