// Package report is how every controller tells people what it did: one
// event source, event recorders that hold nothing, and conditions written as
// server-side apply configurations.
package report

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
)

// EventSource is the component of every event the operator records on an object.
const EventSource = "secondary-scheduler-operator"

// RecorderOn records events on the object ref names, in namespace (events
// of a cluster-scoped object live in the default namespace). Not
// NewKubeRecorder: each of its recorders starts an event broadcaster,
// goroutines and buffers that nothing stops; this one holds nothing.
func RecorderOn(kube kubernetes.Interface, namespace string, ref *corev1.ObjectReference) events.Recorder {
	return events.NewRecorder(kube.CoreV1().Events(namespace), EventSource, ref, clock.RealClock{})
}

// Condition is c as an apply configuration.
func Condition(c operatorv1.OperatorCondition) *applyoperatorv1.OperatorConditionApplyConfiguration {
	return applyoperatorv1.OperatorCondition().WithType(c.Type).WithStatus(c.Status).WithReason(c.Reason).WithMessage(c.Message)
}

// OnSecondaryScheduler records events on a SecondaryScheduler, where
// `kubectl describe secondaryscheduler cluster` shows them.
func OnSecondaryScheduler(kube kubernetes.Interface) func(*secondaryschedulerv1.SecondaryScheduler) events.Recorder {
	return func(ss *secondaryschedulerv1.SecondaryScheduler) events.Recorder {
		return RecorderOn(kube, metav1.NamespaceDefault, &corev1.ObjectReference{
			APIVersion: secondaryschedulerv1.SchemeGroupVersion.String(), Kind: "SecondaryScheduler",
			Name: ss.Name, UID: ss.UID, ResourceVersion: ss.ResourceVersion,
		})
	}
}

// Transition tells an object's users that its condition changed: a Warning
// for a new problem they must fix, an event when a problem is resolved.
func Transition(recorder events.Recorder, previous, condition operatorv1.OperatorCondition) {
	switch {
	case condition.Status == operatorv1.ConditionTrue &&
		(previous.Status != operatorv1.ConditionTrue || previous.Reason != condition.Reason || previous.Message != condition.Message):
		recorder.Warning(condition.Reason, condition.Message)
	case condition.Status != operatorv1.ConditionTrue && previous.Status == operatorv1.ConditionTrue:
		resolution := condition.Message
		if resolution == "" {
			resolution = "the configuration is valid and rolled out"
		}
		recorder.Eventf("Resolved", "%s no longer applies: %s", previous.Reason, resolution)
	}
}
