// Package framework runs integration tests against a real etcd and kube-apiserver
// (controller-runtime's envtest, pointed at the binaries hack/controlplane/build.sh
// builds into _output/controlplane/bin).
//
// One environment per test package: a package's TestMain calls RunMain, its tests
// call Shared(t). Our CRDs (manifests/) and the OpenShift config CRDs
// (ClusterOperator, APIServer, Scheduler, Infrastructure, from the vendored
// github.com/openshift/api) are installed unless Options.WithoutOpenShiftCRDs asks
// for plain Kubernetes. The API server authorizes with RBAC and has the
// --requestheader-* flags set, so library-go's controllercmd runs against it.
//
//	func TestMain(m *testing.M) { framework.RunMain(m, framework.Options{}) }
//
//	func TestX(t *testing.T) {
//		env := framework.Shared(t)
//		ns := env.CreateNamespace(t, "x")
//		...
//		framework.WaitFor(ctx, t, "the deployment exists", func() (bool, error) { ... })
//	}
//
// When the binaries are missing, tests that need them are skipped with the command
// that builds them, except in CI (InCI: CI=true, 1 or yes) or when KUBEBUILDER_ASSETS is set
// explicitly: there they fail.
//
// Set KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT=true to see the etcd and
// kube-apiserver logs.
package framework
