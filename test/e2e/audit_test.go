package e2e

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// The local control plane's audit log (hack/controlplane/start.sh) records
// every request of the operator's ServiceAccounts: what the API server
// received, counted on its side, not by the operator's own client metrics.

// credentialIDKey is the user extra under which the API server names the token
// a request came with ("JTI=<the token's jti>").
const credentialIDKey = "authentication.kubernetes.io/credential-id"

// operatorUserPrefix is what the operator's ServiceAccounts are called.
const operatorUserPrefix = "system:serviceaccount:openshift-secondary-scheduler-operator:"

// operatorRequests are the operator's requests the API server received at or
// after since, one per request (the last stage recorded of each audit ID), in
// the order received.
func (c *cluster) operatorRequests(t *testing.T, since time.Time) []auditv1.Event {
	t.Helper()
	f, err := os.Open(c.auditLog)
	if err != nil {
		t.Fatalf("the API server's audit log: %v", err)
	}
	defer f.Close()
	byID := map[string]int{}
	var events []auditv1.Event
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		ev, ok := operatorEvent(scanner.Bytes())
		if !ok || ev.RequestReceivedTimestamp.Time.Before(since) {
			continue
		}
		if i, seen := byID[string(ev.AuditID)]; seen {
			events[i] = ev
			continue
		}
		byID[string(ev.AuditID)] = len(events)
		events = append(events, ev)
	}
	if err := scanner.Err(); err != nil {
		t.Fatalf("reading %s: %v", c.auditLog, err)
	}
	return events
}

// operatorEvent parses one line of the audit log, and says whether it is a
// request the operator made itself.
func operatorEvent(line []byte) (auditv1.Event, bool) {
	var ev auditv1.Event
	if err := json.Unmarshal(line, &ev); err != nil {
		return ev, false // a line the API server is still writing
	}
	// Requests others make as the operator (impersonating it) are not its,
	// nor are the scheduler's, which the log holds too.
	return ev, ev.ImpersonatedUser == nil && strings.HasPrefix(ev.User.Username, operatorUserPrefix)
}

func isWrite(ev auditv1.Event) bool {
	switch ev.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

func isLease(ev auditv1.Event) bool {
	return ev.ObjectRef != nil && ev.ObjectRef.Resource == "leases"
}

// isInitialList says whether a request (re)fills an informer: a list, or a
// watch that starts with the current state (sendInitialEvents).
func isInitialList(ev auditv1.Event) bool {
	return ev.Verb == "list" || (ev.Verb == "watch" && strings.Contains(ev.RequestURI, "sendInitialEvents=true"))
}

func credentialID(ev auditv1.Event) string {
	return strings.Join(ev.User.Extra[credentialIDKey], ",")
}

// requestsByKind counts requests as "verb resource (code)", for a log line.
func requestsByKind(events []auditv1.Event) string {
	counts := map[string]int{}
	for _, ev := range events {
		resource := ""
		if ev.ObjectRef != nil {
			resource = ev.ObjectRef.Resource
			if ev.ObjectRef.Subresource != "" {
				resource += "/" + ev.ObjectRef.Subresource
			}
		}
		code := int32(0)
		if ev.ResponseStatus != nil {
			code = ev.ResponseStatus.Code
		}
		counts[fmt.Sprintf("%s %s (%d)", ev.Verb, resource, code)]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// kubeconfigCredentialID is the credential ID the API server records for the
// token in kubeconfig: the token's jti.
func kubeconfigCredentialID(t *testing.T, kubeconfig string) string {
	t.Helper()
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(config.BearerToken, ".")
	if len(parts) != 3 {
		t.Fatalf("%s: the token is not a JWT", kubeconfig)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("%s: the token's payload: %v", kubeconfig, err)
	}
	var claims struct {
		JTI string `json:"jti"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil || claims.JTI == "" {
		t.Fatalf("%s: the token carries no jti (%v)", kubeconfig, err)
	}
	return "JTI=" + claims.JTI
}

// authorizationDecision is the audit annotation the authorizer records its
// decision in: "allow" or "forbid".
const authorizationDecision = "authorization.k8s.io/decision"

// operandForbidden reads the whole audit log for the requests made with the
// scheduler's own identity (its token, not an impersonation of it) and returns
// how many there were, the ones authorization refused, and how many got a 403
// from admission after authorization allowed them (an event for a pod of a
// namespace being deleted: "unable to create new content in namespace"),
// which says nothing of the operand's role.
func operandForbidden(auditLog string) (int, []auditv1.Event, int, error) {
	f, err := os.Open(auditLog)
	if err != nil {
		return 0, nil, 0, err
	}
	defer f.Close()
	var total, admissionRefused int
	var forbidden []auditv1.Event
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 16<<20)
	for scanner.Scan() {
		var ev auditv1.Event
		if json.Unmarshal(scanner.Bytes(), &ev) != nil || ev.User.Username != operandUser || ev.ImpersonatedUser != nil {
			continue
		}
		total++
		switch {
		case ev.ResponseStatus == nil || ev.ResponseStatus.Code != 403:
		case ev.Annotations[authorizationDecision] == "allow":
			admissionRefused++
		default:
			forbidden = append(forbidden, ev)
		}
	}
	return total, forbidden, admissionRefused, scanner.Err()
}
