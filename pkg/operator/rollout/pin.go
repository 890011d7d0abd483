package rollout

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// sha256Digest is a manifest digest as an image reference carries it.
var sha256Digest = regexp.MustCompile(`@(sha256:[0-9a-f]{64})$`)

// PinnedImage is image, given by tag, pinned to the digest that imageID (a
// container status' imageID, such as "docker-pullable://repo@sha256:..."
// or "repo@sha256:...") names: repository@sha256:.... An image already given
// by digest is returned as it is. why says, when image stays a tag, why it
// could not be pinned.
func PinnedImage(image, imageID string) (pinned, why string) {
	if strings.Contains(image, "@") {
		return image, ""
	}
	_, ref, ok := strings.Cut(imageID, "://")
	if !ok {
		ref = imageID
	}
	m := sha256Digest.FindStringSubmatch(ref)
	switch {
	case imageID == "":
		return image, "its trial Pod reported no image ID"
	case m == nil:
		// A bare sha256:... is the image's configuration, which no registry serves by.
		return image, fmt.Sprintf("its trial Pod reported image ID %q, which names no sha256 digest of a repository", imageID)
	}
	return repository(image) + "@" + m[1], ""
}

// repository is image without its tag. A colon before the last slash is a
// registry's port, not a tag.
func repository(image string) string {
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		return image[:i]
	}
	return image
}

// withSchedulerImage is a copy of d whose scheduler container runs image.
// The template hash stays the rendered template's: a digest pin is how the
// template's image runs, not another template.
func withSchedulerImage(d *appsv1.Deployment, image string) *appsv1.Deployment {
	out := d.DeepCopy()
	for i := range out.Spec.Template.Spec.Containers {
		if c := &out.Spec.Template.Spec.Containers[i]; c.Name == names.OperandName {
			c.Image = image
		}
	}
	return out
}

// pinTried is d, allowed by the trial last, as it rolls out: its scheduler
// image, if given by tag, pinned to the digest the candidate's trial Pod ran.
// The message says when the tag rolls out unpinned, and why.
func pinTried(d *appsv1.Deployment, last *secondaryschedulerv1.TrialResult) (*appsv1.Deployment, string) {
	image := SchedulerImage(d)
	pinned, why := PinnedImage(image, last.CandidateImageID)
	if why != "" {
		return d, fmt.Sprintf("The trial allowed image %s, but %s: the tag rolls out as it is, and the registry may serve "+
			"another build under it than the one tried. Give spec.schedulerImage by digest to roll out exactly what was tried.", image, why)
	}
	if pinned == image {
		return d, ""
	}
	return withSchedulerImage(d, pinned), ""
}

// keptPin is desired as the live Deployment runs it when live runs
// desired's template with its tagged image pinned to a digest a trial ran
// (status.lastTrial's candidate or current arm): applying desired as
// rendered would undo the pin, and roll a tag that may name another build.
// Nil when live runs something else.
func keptPin(live *appsv1.Deployment, desired *appsv1.Deployment, desiredTemplate string, last *secondaryschedulerv1.TrialResult) *appsv1.Deployment {
	if last == nil || TemplateHash(live) != desiredTemplate {
		return nil
	}
	running, image := SchedulerImage(live), SchedulerImage(desired)
	if running == image {
		return nil
	}
	for _, id := range []string{last.CandidateImageID, last.CurrentImageID} {
		if pinned, why := PinnedImage(image, id); why == "" && pinned == running {
			return withSchedulerImage(desired, running)
		}
	}
	return nil
}
