package framework

import (
	"context"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator"
)

// OperatorNamespace and OperatorServiceAccount are where manifests/ install the operator.
const (
	OperatorNamespace      = "openshift-secondary-scheduler-operator"
	OperatorServiceAccount = "secondary-scheduler-operator"
)

// OperatorManifests are the files of manifests/ that install the operator's
// namespaces, CRDs, ServiceAccount and RBAC (everything but its Deployment).
var OperatorManifests = []string{
	"manifests/0000_50_secondary-scheduler-operator_00_namespace.yaml",
	"manifests/0000_50_secondary-scheduler-operator_01_operand-namespace.yaml",
	"manifests/0000_50_secondary-scheduler-operator_03_serviceaccount.yaml",
	"manifests/0000_50_secondary-scheduler-operator_04_clusterrole.yaml",
	"manifests/0000_50_secondary-scheduler-operator_04_roles.yaml",
	"manifests/0000_50_secondary-scheduler-operator_04_clusterrole-grantable.yaml",
	"manifests/0000_50_secondary-scheduler-operator_04_clusterrole-operand.yaml",
	"manifests/0000_50_secondary-scheduler-operator_05_rbac-bindings.yaml",
	// Simulators for namespace users: the admission policy and the aggregated roles.
	"manifests/0000_50_secondary-scheduler-operator_03_simulator-admission.yaml",
	"manifests/0000_50_secondary-scheduler-operator_04_clusterrole-simulators.yaml",
}

// OperatorConfig installs the operator's RBAC from manifests/ and returns a
// client config that is its ServiceAccount: the operator then runs with exactly
// the permissions it ships, not as system:masters.
func (e *Env) OperatorConfig(t testing.TB) *rest.Config {
	t.Helper()
	e.ApplyFiles(t, OperatorManifests...)
	return e.ServiceAccountConfig(t, OperatorNamespace, OperatorServiceAccount)
}

// RunOperator runs every controller of the operator in-process with cfg until
// the test ends, as `secondary-scheduler-operator operator` would (without its
// metrics server and leader election), with the default options.
func RunOperator(t testing.TB, cfg *rest.Config) {
	t.Helper()
	RunOperatorWith(t, cfg, operator.DefaultOptions())
}

// RunOperatorWith is RunOperator with opts, as the command's flags set them.
func RunOperatorWith(t testing.TB, cfg *rest.Config, opts operator.Options) {
	t.Helper()
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	recorder := events.NewKubeRecorder(kube.CoreV1().Events(OperatorNamespace), "secondary-scheduler-operator",
		&corev1.ObjectReference{Kind: "Namespace", Name: OperatorNamespace, Namespace: OperatorNamespace, APIVersion: "v1"}, clock.RealClock{})
	proto := rest.CopyConfig(cfg)
	proto.ContentType = "application/vnd.kubernetes.protobuf"
	proto.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cc := &controllercmd.ControllerContext{
		KubeConfig:        cfg,
		ProtoKubeConfig:   proto,
		EventRecorder:     recorder,
		Clock:             clock.RealClock{},
		OperatorNamespace: OperatorNamespace,
	}
	RunInBackground(t, func(ctx context.Context) {
		if err := operator.RunOperator(ctx, cc, opts); err != nil {
			t.Errorf("operator stopped with an error: %v", err)
		}
	})
}

// CreateSecondaryScheduler creates the singleton "cluster" (Managed and a
// kube-scheduler image unless spec says otherwise) and, when the test ends,
// deletes it and waits until the operator's finalizer has cleaned up. Call it
// after RunOperator, so that this cleanup runs while the operator still does.
func (e *Env) CreateSecondaryScheduler(t testing.TB, spec secondaryschedulerv1.SecondarySchedulerSpec) {
	t.Helper()
	if spec.ManagementState == "" {
		spec.ManagementState = operatorv1.Managed
	}
	if spec.SchedulerImage == "" {
		spec.SchedulerImage = "registry.k8s.io/kube-scheduler:v1.36.2"
	}
	client := e.Admin.Operator.OperatorV1().SecondarySchedulers()
	ss := &secondaryschedulerv1.SecondaryScheduler{ObjectMeta: metav1.ObjectMeta{Name: secondaryschedulerv1.SingletonName}, Spec: spec}
	if _, err := client.Create(context.Background(), ss, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the SecondaryScheduler: %v", err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		_ = client.Delete(ctx, ss.Name, metav1.DeleteOptions{})
		WaitFor(ctx, t, "the SecondaryScheduler to be finalized and gone", func() (bool, error) {
			_, err := client.Get(ctx, ss.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	})
}
