// Package e2e tests the operator as users run it: on a full control plane
// (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok nodes)
// with manifests/ applied and the operator running as a host process with its own
// ServiceAccount's token. hack/test-e2e.sh (make test-e2e) sets that up and runs
// these tests with E2E_* variables describing it; without them the tests that
// need a cluster skip, and the offline ones (examples render, manifests lint)
// still run.
//
// kwok runs no containers, so the tests play kubelet for the secondary
// scheduler (package operandrunner): the real kube-scheduler binary runs with
// the operand Deployment's arguments, the operator's ConfigMap and the operand
// ServiceAccount's token.
//
// The tests share one cluster and the singleton SecondaryScheduler "cluster":
// they run one after the other, each applying the spec it needs.
package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	rbacvalidation "k8s.io/component-helpers/auth/rbac/validation"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// cluster describes the stack hack/test-e2e.sh started.
type cluster struct {
	kubeconfig string
	config     *rest.Config
	admin      *framework.Clients
	// bin holds kubectl and kube-scheduler.
	bin string
	// adminCert and adminKey are a system:masters client certificate.
	adminCert, adminKey string
	// operatorAddress is the operator's --listen host:port.
	operatorAddress string
	operatorVersion string
	// openShift says whether the OpenShift config CRDs are installed.
	openShift bool
	// dir is the run's work directory (the harness's kube-scheduler files go there).
	dir string
	// auditLog is the API server's audit log of the operator's requests.
	auditLog string
	// controlPlaneDir holds what hack/controlplane/start.sh started: its pids
	// file and logs/.
	controlPlaneDir string
	// operator is the operator's host process, which the fault tests kill and
	// start again.
	operator operatorProcess
	// trials plays kubelet for trial Pods throughout the run.
	trials *trialHarness
}

var stack *cluster

func TestMain(m *testing.M) {
	if os.Getenv("E2E_KUBECONFIG") != "" {
		c, err := fromEnv()
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			os.Exit(1)
		}
		stack = c
	}
	stopTrials := func() {}
	if stack != nil {
		var err error
		if stopTrials, err = stack.playTrials(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	stopTrials()
	if stack != nil && code == 0 {
		code = checkOperandWasNeverForbidden(stack.auditLog)
	}
	os.Exit(code)
}

// checkOperandWasNeverForbidden fails the run when the API server refused a
// request of the scheduler's identity, over the whole run, for anything a
// kube-scheduler needs (what system:kube-scheduler and system:volume-scheduler
// grant, read from the API server, and leases): every real kube-scheduler the
// tests ran held exactly the operator's grants, so such a 403 is a permission
// the operand's role lacks. Refusals of what only spec.rbac grants are
// counted apart: the harness stops a scheduler later than a kubelet would, so
// it can still ask after a test has taken those rules away.
func checkOperandWasNeverForbidden(auditLog string) int {
	total, forbidden, admissionRefused, err := operandForbidden(auditLog)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: reading the audit log:", err)
		return 1
	}
	var needed []rbacv1.PolicyRule
	for _, name := range []string{"system:kube-scheduler", "system:volume-scheduler"} {
		role, err := stack.admin.Kube.RbacV1().ClusterRoles().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
		needed = append(needed, role.Rules...)
	}
	var missing []auditv1.Event
	for _, ev := range forbidden {
		if ev.ObjectRef == nil {
			missing = append(missing, ev)
			continue
		}
		resource := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			resource += "/" + ev.ObjectRef.Subresource
		}
		asked := rbacv1.PolicyRule{APIGroups: []string{ev.ObjectRef.APIGroup}, Resources: []string{resource}, Verbs: []string{ev.Verb}}
		if covered, _ := rbacvalidation.Covers(needed, []rbacv1.PolicyRule{asked}); covered || ev.ObjectRef.Resource == "leases" {
			missing = append(missing, ev)
		}
	}
	fmt.Printf("e2e: the scheduler's identity (%s) made %d requests; %d forbidden, %d of them for what a kube-scheduler needs; "+
		"%d more refused by admission once authorized (a namespace being deleted)\n",
		operandUser, total, len(forbidden), len(missing), admissionRefused)
	// The whole tier runs real schedulers; a run narrowed with -run (the fault
	// suite) may not.
	if total == 0 && flag.Lookup("test.run").Value.String() == "" {
		fmt.Fprintln(os.Stderr, "e2e: no request of the scheduler's identity in the audit log: the check saw nothing")
		return 1
	}
	for _, ev := range missing {
		fmt.Fprintf(os.Stderr, "e2e: forbidden: %s %s\n", ev.Verb, ev.RequestURI)
	}
	if len(missing) > 0 {
		return 1
	}
	return 0
}

func fromEnv() (*cluster, error) {
	c := &cluster{
		kubeconfig:      os.Getenv("E2E_KUBECONFIG"),
		bin:             os.Getenv("E2E_CONTROLPLANE_BIN"),
		adminCert:       os.Getenv("E2E_ADMIN_CERT"),
		adminKey:        os.Getenv("E2E_ADMIN_KEY"),
		operatorAddress: os.Getenv("E2E_OPERATOR_ADDRESS"),
		operatorVersion: os.Getenv("E2E_OPERATOR_VERSION"),
		openShift:       os.Getenv("E2E_OPENSHIFT") == "true",
		dir:             os.Getenv("E2E_DIR"),
		auditLog:        os.Getenv("E2E_AUDIT_LOG"),
		controlPlaneDir: os.Getenv("E2E_CONTROLPLANE_DIR"),
		operator: operatorProcess{
			binary:     os.Getenv("E2E_OPERATOR_BIN"),
			kubeconfig: os.Getenv("E2E_OPERATOR_KUBECONFIG"),
			log:        os.Getenv("E2E_OPERATOR_LOG"),
			pidFile:    os.Getenv("E2E_OPERATOR_PIDFILE"),
			args:       strings.Fields(os.Getenv("E2E_OPERATOR_ARGS")),
		},
	}
	for name, v := range map[string]string{
		"E2E_CONTROLPLANE_BIN": c.bin, "E2E_OPERATOR_ADDRESS": c.operatorAddress, "E2E_DIR": c.dir,
		"E2E_ADMIN_CERT": c.adminCert, "E2E_ADMIN_KEY": c.adminKey,
		"E2E_AUDIT_LOG": c.auditLog, "E2E_CONTROLPLANE_DIR": c.controlPlaneDir,
		"E2E_OPERATOR_BIN": c.operator.binary, "E2E_OPERATOR_KUBECONFIG": c.operator.kubeconfig,
		"E2E_OPERATOR_LOG": c.operator.log, "E2E_OPERATOR_PIDFILE": c.operator.pidFile,
	} {
		if v == "" {
			return nil, fmt.Errorf("%s is not set (hack/test-e2e.sh sets every E2E_ variable)", name)
		}
	}
	var err error
	if c.config, err = clientcmd.BuildConfigFromFlags("", c.kubeconfig); err != nil {
		return nil, err
	}
	c.config.QPS, c.config.Burst = 50, 100
	if c.admin, err = framework.NewClients(c.config); err != nil {
		return nil, err
	}
	return c, nil
}

// needCluster skips a test that needs the stack of hack/test-e2e.sh when it
// does not run, and fails it in CI (framework.InCI).
func needCluster(t *testing.T) *cluster {
	t.Helper()
	if stack == nil {
		const why = "no e2e cluster: run `make test-e2e` (hack/test-e2e.sh starts one and sets E2E_KUBECONFIG)"
		if framework.InCI() {
			t.Fatal(why) // CI must not pass by skipping
		}
		t.Skip(why)
	}
	return stack
}
