package simulatorcontroller

import (
	"fmt"

	"github.com/openshift/library-go/pkg/operator/events"
)

// cappedRecorder records events whose messages are capped to MaxMessageBytes.
type cappedRecorder struct {
	events.Recorder
}

func (r cappedRecorder) Event(reason, message string) {
	r.Recorder.Event(reason, capped(message, MaxMessageBytes))
}

func (r cappedRecorder) Eventf(reason, format string, args ...interface{}) {
	r.Event(reason, fmt.Sprintf(format, args...))
}

func (r cappedRecorder) Warning(reason, message string) {
	r.Recorder.Warning(reason, capped(message, MaxMessageBytes))
}

func (r cappedRecorder) Warningf(reason, format string, args ...interface{}) {
	r.Warning(reason, fmt.Sprintf(format, args...))
}
