package render

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/openshift/secondary-scheduler-operator/bindata"
	"github.com/openshift/secondary-scheduler-operator/pkg/internal/manifest"
)

// Asset paths in package bindata.
const (
	assetDir                       = "assets/secondary-scheduler/"
	NamespaceAsset                 = assetDir + "namespace.yaml"
	ServiceAccountAsset            = assetDir + "serviceaccount.yaml"
	OperandBindingAsset            = assetDir + "clusterrolebinding-operand.yaml"
	AuthenticationReaderAsset      = assetDir + "rolebinding-authentication-reader.yaml"
	LeaderElectionRoleAsset        = assetDir + "role-leader-election.yaml"
	LeaderElectionRoleBindingAsset = assetDir + "rolebinding-leader-election.yaml"
	ServiceAsset                   = assetDir + "service.yaml"
	extraClusterRoleAsset          = assetDir + "clusterrole-extra.yaml"
	extraClusterRoleBindingAsset   = assetDir + "clusterrolebinding-extra.yaml"
	extraRoleAsset                 = assetDir + "role-extra.yaml"
	extraRoleBindingAsset          = assetDir + "rolebinding-extra.yaml"
	configMapAsset                 = assetDir + "configmap.yaml"
	deploymentAsset                = assetDir + "deployment.yaml"
)

// StaticAssetNames are the bindata assets of the objects that are the same for
// every SecondaryScheduler, in apply order, for library-go's
// staticresourcecontroller (with bindata.Asset as its AssetFunc). Render returns
// the same objects, so the render command shows them too.
func StaticAssetNames() []string {
	return []string{
		NamespaceAsset,
		ServiceAccountAsset,
		OperandBindingAsset,
		AuthenticationReaderAsset,
		LeaderElectionRoleAsset,
		LeaderElectionRoleBindingAsset,
		ServiceAsset,
	}
}

type parsedTemplates struct {
	namespace                                *corev1.Namespace
	serviceAccount                           *corev1.ServiceAccount
	operandBinding                           *rbacv1.ClusterRoleBinding
	authReaderBinding, leaderElectionBinding *rbacv1.RoleBinding
	leaderElectionRole                       *rbacv1.Role
	service                                  *corev1.Service
	extraClusterRole                         *rbacv1.ClusterRole
	extraClusterRoleBinding                  *rbacv1.ClusterRoleBinding
	extraRole                                *rbacv1.Role
	extraRoleBinding                         *rbacv1.RoleBinding
	configMap                                *corev1.ConfigMap
	deployment                               *appsv1.Deployment
}

// templates decodes the embedded assets once: they are ours, so a decode
// failure is a build bug (OrDie), and callers DeepCopy before patching.
var templates = sync.OnceValue(func() *parsedTemplates {
	a := bindata.MustAsset
	return &parsedTemplates{
		namespace:               manifest.MustDecode[*corev1.Namespace](a(NamespaceAsset)),
		serviceAccount:          manifest.MustDecode[*corev1.ServiceAccount](a(ServiceAccountAsset)),
		operandBinding:          manifest.MustDecode[*rbacv1.ClusterRoleBinding](a(OperandBindingAsset)),
		authReaderBinding:       manifest.MustDecode[*rbacv1.RoleBinding](a(AuthenticationReaderAsset)),
		leaderElectionRole:      manifest.MustDecode[*rbacv1.Role](a(LeaderElectionRoleAsset)),
		leaderElectionBinding:   manifest.MustDecode[*rbacv1.RoleBinding](a(LeaderElectionRoleBindingAsset)),
		service:                 manifest.MustDecode[*corev1.Service](a(ServiceAsset)),
		extraClusterRole:        manifest.MustDecode[*rbacv1.ClusterRole](a(extraClusterRoleAsset)),
		extraClusterRoleBinding: manifest.MustDecode[*rbacv1.ClusterRoleBinding](a(extraClusterRoleBindingAsset)),
		extraRole:               manifest.MustDecode[*rbacv1.Role](a(extraRoleAsset)),
		extraRoleBinding:        manifest.MustDecode[*rbacv1.RoleBinding](a(extraRoleBindingAsset)),
		configMap:               manifest.MustDecode[*corev1.ConfigMap](a(configMapAsset)),
		deployment:              manifest.MustDecode[*appsv1.Deployment](a(deploymentAsset)),
	}
})

// OperandBindingName is the ClusterRoleBinding of the scheduler to its
// ClusterRole, as the asset names it.
func OperandBindingName() string {
	return templates().operandBinding.Name
}

// setTypeMeta sets apiVersion and kind, so every object prints (and applies)
// as a complete manifest whatever built it. The decoded templates carry them
// already (manifest.MustDecode keeps them, as resourceread does); an object
// built in code would not.
func setTypeMeta(obj runtime.Object) {
	var gv, kind string
	switch obj.(type) {
	case *corev1.Namespace:
		gv, kind = "v1", "Namespace"
	case *corev1.ServiceAccount:
		gv, kind = "v1", "ServiceAccount"
	case *corev1.ConfigMap:
		gv, kind = "v1", "ConfigMap"
	case *corev1.Service:
		gv, kind = "v1", "Service"
	case *rbacv1.ClusterRole:
		gv, kind = rbacv1.SchemeGroupVersion.String(), "ClusterRole"
	case *rbacv1.ClusterRoleBinding:
		gv, kind = rbacv1.SchemeGroupVersion.String(), "ClusterRoleBinding"
	case *rbacv1.Role:
		gv, kind = rbacv1.SchemeGroupVersion.String(), "Role"
	case *rbacv1.RoleBinding:
		gv, kind = rbacv1.SchemeGroupVersion.String(), "RoleBinding"
	case *appsv1.Deployment:
		gv, kind = appsv1.SchemeGroupVersion.String(), "Deployment"
	default:
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(gv, kind))
}
