package manifest

import (
	"os"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/bindata"
)

// byKind decodes a manifest of one kind with MustDecode and with library-go's
// resourceread, the reference.
var byKind = map[string]struct {
	ours, reference func([]byte) runtime.Object
}{
	"Namespace":          {func(b []byte) runtime.Object { return MustDecode[*corev1.Namespace](b) }, func(b []byte) runtime.Object { return resourceread.ReadNamespaceV1OrDie(b) }},
	"ServiceAccount":     {func(b []byte) runtime.Object { return MustDecode[*corev1.ServiceAccount](b) }, func(b []byte) runtime.Object { return resourceread.ReadServiceAccountV1OrDie(b) }},
	"Service":            {func(b []byte) runtime.Object { return MustDecode[*corev1.Service](b) }, func(b []byte) runtime.Object { return resourceread.ReadServiceV1OrDie(b) }},
	"ConfigMap":          {func(b []byte) runtime.Object { return MustDecode[*corev1.ConfigMap](b) }, func(b []byte) runtime.Object { return resourceread.ReadConfigMapV1OrDie(b) }},
	"Pod":                {func(b []byte) runtime.Object { return MustDecode[*corev1.Pod](b) }, func(b []byte) runtime.Object { return resourceread.ReadPodV1OrDie(b) }},
	"Deployment":         {func(b []byte) runtime.Object { return MustDecode[*appsv1.Deployment](b) }, func(b []byte) runtime.Object { return resourceread.ReadDeploymentV1OrDie(b) }},
	"Role":               {func(b []byte) runtime.Object { return MustDecode[*rbacv1.Role](b) }, func(b []byte) runtime.Object { return resourceread.ReadRoleV1OrDie(b) }},
	"RoleBinding":        {func(b []byte) runtime.Object { return MustDecode[*rbacv1.RoleBinding](b) }, func(b []byte) runtime.Object { return resourceread.ReadRoleBindingV1OrDie(b) }},
	"ClusterRole":        {func(b []byte) runtime.Object { return MustDecode[*rbacv1.ClusterRole](b) }, func(b []byte) runtime.Object { return resourceread.ReadClusterRoleV1OrDie(b) }},
	"ClusterRoleBinding": {func(b []byte) runtime.Object { return MustDecode[*rbacv1.ClusterRoleBinding](b) }, func(b []byte) runtime.Object { return resourceread.ReadClusterRoleBindingV1OrDie(b) }},
	"NetworkPolicy":      {func(b []byte) runtime.Object { return MustDecode[*networkingv1.NetworkPolicy](b) }, func(b []byte) runtime.Object { return resourceread.ReadNetworkPolicyV1OrDie(b) }},
}

// TestDecodesEveryManifestAsResourceread decodes every object manifest the
// binaries embed both ways: the objects must be equal, TypeMeta included.
func TestDecodesEveryManifestAsResourceread(t *testing.T) {
	decoded := map[string]int{}
	for _, dir := range []string{"assets/secondary-scheduler", "assets/trial"} {
		entries, err := os.ReadDir(path.Join("../../../bindata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".yaml") {
				continue
			}
			name := path.Join(dir, e.Name())
			data := bindata.MustAsset(name)
			var typeMeta struct{ Kind string }
			if err := yaml.Unmarshal(data, &typeMeta); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			decoders, ok := byKind[typeMeta.Kind]
			if !ok {
				t.Errorf("%s: kind %q has no decoder in this test", name, typeMeta.Kind)
				continue
			}
			ours, reference := decoders.ours(data), decoders.reference(data)
			if !reflect.DeepEqual(ours, reference) {
				t.Errorf("%s: MustDecode gives\n%#v\nresourceread gives\n%#v", name, ours, reference)
			}
			decoded[typeMeta.Kind]++
		}
	}
	// Every kind of the table must have been compared on a real manifest.
	for kind := range byKind {
		if decoded[kind] == 0 {
			t.Errorf("no embedded manifest of kind %s was compared", kind)
		}
	}
}

func TestMustDecodePanicsNamingTheKinds(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"another kind", "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n", "is a *v1.Service, not a *v1.ConfigMap"},
		{"not a manifest", "apiVersion: v1\nkind: Service\nspec: [\n", "embedded manifest does not decode"},
		{"a group outside the scheme", "apiVersion: batch/v1\nkind: Job\n", "embedded manifest does not decode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				got, _ := recover().(string)
				if !strings.Contains(got, tc.want) {
					t.Fatalf("panic %q, want it to contain %q", got, tc.want)
				}
			}()
			MustDecode[*corev1.ConfigMap]([]byte(tc.data))
		})
	}
}
