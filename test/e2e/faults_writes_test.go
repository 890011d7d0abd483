package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// A kill proves something only when it splits the operator's own work: some
// of the writes the change needs landed before it, and the rest after the
// restart. The API server's audit log says which writes landed when, by the
// operator's credential, so the count does not depend on how fast the
// cluster converges (a Deployment with minReadySeconds is "not done" long
// after the operator has written everything).

// expectedWrite is a write a change needs from the operator: its verb, the
// resource ("deployments", "secondaryschedulers/status"), a name ("" for
// any) and how many such writes (at least 1).
type expectedWrite struct {
	verb, resource, name string
	count                int
}

func (w expectedWrite) String() string {
	s := w.verb + " " + w.resource
	if w.name != "" {
		s += " " + w.name
	}
	if w.count > 1 {
		s += fmt.Sprintf(" ×%d", w.count)
	}
	return s
}

// matches says whether ev is such a write, done (2xx).
func (w expectedWrite) matches(ev auditv1.Event) bool {
	if ev.Verb != w.verb || ev.ObjectRef == nil || ev.ResponseStatus == nil || ev.ResponseStatus.Code/100 != 2 {
		return false
	}
	resource := ev.ObjectRef.Resource
	if ev.ObjectRef.Subresource != "" {
		resource += "/" + ev.ObjectRef.Subresource
	}
	return resource == w.resource && (w.name == "" || ev.ObjectRef.Name == w.name)
}

// writeSplit is how one kill split a change's expected writes: per expected
// write, how many landed before the kill and how many after it.
type writeSplit struct {
	expected      []expectedWrite
	before, after []int
}

// splitWrites counts, per expected write, the matching writes that landed
// before killed and after it, each side up to the write's count: a write the
// operator began before the kill and wrote again after the restart counts on
// both sides.
func splitWrites(expected []expectedWrite, events []auditv1.Event, killed time.Time) writeSplit {
	s := writeSplit{expected: expected, before: make([]int, len(expected)), after: make([]int, len(expected))}
	for _, ev := range events {
		for i, w := range expected {
			if !w.matches(ev) {
				continue
			}
			side := s.after
			if ev.RequestReceivedTimestamp.Time.Before(killed) {
				side = s.before
			}
			side[i] = min(side[i]+1, max(w.count, 1))
			break
		}
	}
	return s
}

// midChange: some expected writes landed before the kill, some after. One
// the audit log does not show landing is not held against it: the scenario
// checks what converged, and a write answered 504 may have landed anyway.
func (s writeSplit) midChange() bool {
	before, after := 0, 0
	for i := range s.expected {
		before += s.before[i]
		after += s.after[i]
	}
	return before > 0 && after > 0
}

// missing names the expected writes that did not all land.
func (s writeSplit) missing() string {
	var parts []string
	for i, w := range s.expected {
		if n := max(w.count, 1) - s.before[i] - s.after[i]; n > 0 && max(s.before[i], s.after[i]) < max(w.count, 1) {
			parts = append(parts, fmt.Sprintf("%s (%d of %d)", w, n, max(w.count, 1)))
		}
	}
	return strings.Join(parts, ", ")
}

func (s writeSplit) String() string {
	parts := make([]string, 0, len(s.expected))
	for i, w := range s.expected {
		parts = append(parts, fmt.Sprintf("%s: %d before, %d after", w, s.before[i], s.after[i]))
	}
	if m := s.missing(); m != "" {
		parts = append(parts, "not seen landing: "+m)
	}
	return strings.Join(parts, "; ")
}

// splitOperatorWrites is how the kill at killed split the expected writes
// among the operator's requests from changed until done. It logs all the
// operator's writes of that time, so that a scenario's expected writes can
// be checked against what the operator did.
func (c *cluster) splitOperatorWrites(t *testing.T, expected []expectedWrite, changed, killed, done time.Time) writeSplit {
	t.Helper()
	var events, writes []auditv1.Event
	for _, ev := range c.operatorRequests(t, changed) {
		if ev.RequestReceivedTimestamp.Time.After(done) {
			continue
		}
		events = append(events, ev)
		if isWrite(ev) && !isLease(ev) {
			writes = append(writes, ev)
		}
	}
	t.Logf("the operator's writes from the change until it was done: %s", requestsByKind(writes))
	return splitWrites(expected, events, killed)
}

// auditTail reads the operator's requests the audit log gains from the
// point it was made at.
type auditTail struct {
	f       *os.File
	r       *bufio.Reader
	partial []byte
}

func (c *cluster) tailAudit(t *testing.T) *auditTail {
	t.Helper()
	f, err := os.Open(c.auditLog)
	if err != nil {
		t.Fatalf("the API server's audit log: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	return &auditTail{f: f, r: bufio.NewReaderSize(f, 1<<20)}
}

// next returns the operator's requests logged since the last call; a line
// still being written waits for the next call.
func (a *auditTail) next() []auditv1.Event {
	var events []auditv1.Event
	for {
		chunk, err := a.r.ReadBytes('\n')
		a.partial = append(a.partial, chunk...)
		if err != nil {
			return events
		}
		if ev, ok := operatorEvent(a.partial); ok {
			events = append(events, ev)
		}
		a.partial = a.partial[:0]
	}
}

// killAfterConverged is the test-only misplaced trigger
// (FAULTS_KILL_AFTER_CONVERGED=true): each kill waits until the change is
// done, so no kill splits its writes and every scenario of kills must fail.
func killAfterConverged() bool { return os.Getenv("FAULTS_KILL_AFTER_CONVERGED") == "true" }

// killAtFirstExpectedWrite makes the change and kills the operator as soon
// as the audit log shows one of the expected writes landed, then starts it
// again. It returns when the kill happened.
func (c *cluster) killAtFirstExpectedWrite(t *testing.T, change func(), expected []expectedWrite, finished func(ctx context.Context) error) time.Time {
	t.Helper()
	tail := c.tailAudit(t)
	change()
	seen := c.waitForWrite(t, tail, expected, finished)
	c.killOperator(t)
	killed := time.Now()
	t.Logf("killed the operator at %s", seen)
	c.startOperator(t)
	return killed
}

// waitForWrite waits until tail shows one of the expected writes (or, under
// the misplaced trigger, until finished says the change is done), and says
// what it saw.
func (c *cluster) waitForWrite(t *testing.T, tail *auditTail, expected []expectedWrite, finished func(ctx context.Context) error) string {
	t.Helper()
	deadline := time.Now().Add(firstWriteTimeout)
	if killAfterConverged() {
		deadline = time.Now().Add(reconcileTimeout)
	}
	for time.Now().Before(deadline) {
		if killAfterConverged() {
			if finished(context.Background()) == nil {
				return "the change done (FAULTS_KILL_AFTER_CONVERGED)"
			}
		} else {
			for _, ev := range tail.next() {
				for _, w := range expected {
					if w.matches(ev) {
						return "its first expected write (" + w.String() + ")"
					}
				}
			}
		}
		// The operator's writes of a teardown come milliseconds apart.
		time.Sleep(time.Millisecond)
	}
	return "no expected write seen in time"
}
