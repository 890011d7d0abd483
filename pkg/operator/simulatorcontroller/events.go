package simulatorcontroller

import (
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/message"

	"fmt"

	"github.com/openshift/library-go/pkg/operator/events"
)

// cappedRecorder records events whose messages are capped to MaxMessageBytes.
type cappedRecorder struct {
	events.Recorder
}

func (r cappedRecorder) Event(reason, msg string) {
	r.Recorder.Event(reason, message.Cap(msg, MaxMessageBytes))
}

func (r cappedRecorder) Eventf(reason, format string, args ...interface{}) {
	r.Event(reason, fmt.Sprintf(format, args...))
}

func (r cappedRecorder) Warning(reason, msg string) {
	r.Recorder.Warning(reason, message.Cap(msg, MaxMessageBytes))
}

func (r cappedRecorder) Warningf(reason, format string, args ...interface{}) {
	r.Warning(reason, fmt.Sprintf(format, args...))
}
