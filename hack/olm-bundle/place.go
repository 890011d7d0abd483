package main

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// placement is where each object of manifests/ goes in the OLM bundle: into
// the ClusterServiceVersion, into the bundle as it is, outside the bundle
// (what OLM cannot install), or nowhere because OLM or the operator makes it.
type placement struct {
	deployment *appsv1.Deployment
	// namespace is the operator's own, which the CSV suggests installing into.
	namespace *corev1.Namespace
	crds      []doc
	// permissions hold in the operator's namespace; clusterPermissions everywhere.
	permissions, clusterPermissions []rbacv1.PolicyRule
	// bundled are carried by the bundle as manifests/ write them.
	bundled []doc
	// outside are what a bundle cannot carry, each with why.
	outside []reasoned
	// elsewhere are the objects OLM or the operator makes instead, each with how.
	elsewhere []reasoned
	// examples are the custom resources offered in the CSV's alm-examples.
	examples []doc
}

type reasoned struct {
	doc
	reason string
}

// keptByName are the ClusterRoles bound to the operator that must exist under
// their own names, not as rules OLM gives a generated name: the operator reads
// the ceiling of spec.rbac from this one, and administrators widen it.
var keptByName = map[string]bool{names.GrantableClusterRole: true}

// builtinRoles are the rules of the Kubernetes roles manifests/ bind the
// operator to in a namespace other than its own, which OLM cannot do (its
// permissions are Roles in the operator's namespace): the rules are granted
// cluster-wide instead. A binding to a role neither here nor in manifests/
// fails the generator.
var builtinRoles = map[string][]rbacv1.PolicyRule{
	// Kubernetes' bootstrap Role in kube-system: the client CA of delegated
	// authentication, which the operator's /metrics server needs to start.
	"kube-system/extension-apiserver-authentication-reader": {{
		APIGroups:     []string{""},
		Resources:     []string{"configmaps"},
		ResourceNames: []string{"extension-apiserver-authentication"},
		Verbs:         []string{"get", "list", "watch"},
	}},
}

// Why objects stay outside the bundle (see outside-bundle.yaml).
const (
	reasonOtherNamespace = "OLM puts every namespaced object of a bundle into the operator's namespace, and this one belongs in another"
	reasonNotBundleKind  = "not a kind OLM installs from a bundle"
	reasonNetworkPolicy  = "OLM installs NetworkPolicies from a bundle only since its 2025 releases (OpenShift 4.20), and the bundle is for OpenShift 4.17 and later"
	reasonNamespace      = "the namespace of the objects below; the operator creates it too"
)

// place decides where every object goes. A kind it has no rule for fails it:
// a new kind in manifests/ needs a decision here.
func place(docs []doc) (*placement, error) {
	dep, err := findObject(docs, "Deployment", "")
	if err != nil {
		return nil, err
	}
	p := &placement{}
	if p.deployment, err = decode[appsv1.Deployment](dep); err != nil {
		return nil, err
	}
	opNamespace := p.deployment.Namespace
	operator := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: p.deployment.Spec.Template.Spec.ServiceAccountName, Namespace: opNamespace}

	// The roles manifests/ define, and those bound to the operator.
	defined, bound := map[string]bool{}, map[string]bool{}
	for _, d := range docs {
		switch d.obj.GetKind() {
		case "Role", "ClusterRole":
			defined[roleKey(d.obj.GetKind(), d.obj.GetNamespace(), d.obj.GetName())] = true
		case "RoleBinding", "ClusterRoleBinding":
			b, err := decode[rbacv1.RoleBinding](d)
			if err != nil {
				return nil, err
			}
			if bindsSubject(b.Subjects, operator) {
				bound[roleKey(b.RoleRef.Kind, b.Namespace, b.RoleRef.Name)] = true
			}
		}
	}
	// folded: a role of manifests/ whose rules the CSV grants the operator
	// (OLM then makes the role and the binding).
	folded := func(key, name string) bool { return defined[key] && bound[key] && !keptByName[name] }

	for _, d := range docs {
		kind, ns, name := d.obj.GetKind(), d.obj.GetNamespace(), d.obj.GetName()
		key := roleKey(kind, ns, name)
		switch kind {
		case "Deployment":
			if d.file != dep.file || name != p.deployment.Name {
				return nil, fmt.Errorf("%s: a second Deployment", d.what())
			}
		case "Namespace":
			if name == opNamespace {
				if p.namespace, err = decode[corev1.Namespace](d); err != nil {
					return nil, err
				}
				p.elsewhere = append(p.elsewhere, reasoned{d, "suggested to the installer (operatorframework.io/suggested-namespace-template)"})
			} else {
				p.outside = append(p.outside, reasoned{d, reasonNamespace})
			}
		case "CustomResourceDefinition":
			p.crds = append(p.crds, d)
		case "ServiceAccount":
			if name == operator.Name && ns == opNamespace {
				p.elsewhere = append(p.elsewhere, reasoned{d, "made by OLM for the CSV's Deployment"})
			} else {
				p.bundleOrOutside(d, opNamespace)
			}
		case "ClusterRole":
			if folded(key, name) {
				rules, err := rulesOf[rbacv1.ClusterRole](d, func(r *rbacv1.ClusterRole) []rbacv1.PolicyRule { return r.Rules })
				if err != nil {
					return nil, err
				}
				p.clusterPermissions = append(p.clusterPermissions, rules...)
				p.elsewhere = append(p.elsewhere, reasoned{d, "the CSV's clusterPermissions"})
			} else {
				p.bundled = append(p.bundled, d)
			}
		case "Role":
			if !folded(key, name) {
				p.bundleOrOutside(d, opNamespace)
				continue
			}
			rules, err := rulesOf[rbacv1.Role](d, func(r *rbacv1.Role) []rbacv1.PolicyRule { return r.Rules })
			if err != nil {
				return nil, err
			}
			if ns == opNamespace {
				p.permissions = append(p.permissions, rules...)
				p.elsewhere = append(p.elsewhere, reasoned{d, "the CSV's permissions"})
			} else {
				// OLM makes Roles only in the operator's namespace.
				p.clusterPermissions = append(p.clusterPermissions, rules...)
				p.elsewhere = append(p.elsewhere, reasoned{d, "the CSV's clusterPermissions: OLM makes Roles only in the operator's namespace"})
			}
		case "RoleBinding", "ClusterRoleBinding":
			b, err := decode[rbacv1.RoleBinding](d)
			if err != nil {
				return nil, err
			}
			ref := roleKey(b.RoleRef.Kind, ns, b.RoleRef.Name)
			switch {
			case !bindsSubject(b.Subjects, operator):
				p.bundleOrOutside(d, opNamespace)
			case folded(ref, b.RoleRef.Name):
				p.elsewhere = append(p.elsewhere, reasoned{d, "made by OLM for the CSV's permissions"})
			case defined[ref] || kind == "ClusterRoleBinding":
				// To a role kept by name, or to a Kubernetes ClusterRole.
				p.bundled = append(p.bundled, d)
			case ns == opNamespace:
				p.bundled = append(p.bundled, d)
			default:
				rules, ok := builtinRoles[ns+"/"+b.RoleRef.Name]
				if !ok {
					return nil, fmt.Errorf("%s binds the operator to Role %s/%s, which OLM cannot bind outside the operator's namespace: add its rules to builtinRoles", d.what(), ns, b.RoleRef.Name)
				}
				p.clusterPermissions = append(p.clusterPermissions, rules...)
				p.elsewhere = append(p.elsewhere, reasoned{d, "the CSV's clusterPermissions, with the rules of the Role it binds: OLM binds only in the operator's namespace"})
			}
		case "Service", "ServiceMonitor", "PrometheusRule", "ConfigMap":
			p.bundleOrOutside(d, opNamespace)
		case "NetworkPolicy":
			p.outside = append(p.outside, reasoned{d, reasonNetworkPolicy})
		case "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
			p.outside = append(p.outside, reasoned{d, reasonNotBundleKind})
		case "ClusterOperator":
			p.elsewhere = append(p.elsewhere, reasoned{d, "created and reported to by the operator where the API exists"})
		case "SecondaryScheduler":
			p.examples = append(p.examples, d)
			p.elsewhere = append(p.elsewhere, reasoned{d, "offered as the CSV's example (alm-examples)"})
		default:
			return nil, fmt.Errorf("%s: no rule places a %s in the OLM bundle (hack/olm-bundle/place.go)", d.what(), kind)
		}
	}
	if p.namespace == nil {
		return nil, fmt.Errorf("no Namespace %s in manifests/", opNamespace)
	}
	return p, nil
}

// bundleOrOutside bundles a namespaced object of the operator's namespace as
// it is; OLM would move one of another namespace into the operator's.
func (p *placement) bundleOrOutside(d doc, opNamespace string) {
	if d.obj.GetNamespace() == opNamespace {
		p.bundled = append(p.bundled, d)
	} else {
		p.outside = append(p.outside, reasoned{d, reasonOtherNamespace})
	}
}

func roleKey(kind, namespace, name string) string {
	if kind == "ClusterRole" {
		namespace = ""
	}
	return kind + " " + namespace + "/" + name
}

func bindsSubject(subjects []rbacv1.Subject, want rbacv1.Subject) bool {
	for _, s := range subjects {
		if s.Kind == want.Kind && s.Name == want.Name && s.Namespace == want.Namespace {
			return true
		}
	}
	return false
}

func rulesOf[T any](d doc, rules func(*T) []rbacv1.PolicyRule) ([]rbacv1.PolicyRule, error) {
	role, err := decode[T](d)
	if err != nil {
		return nil, err
	}
	return rules(role), nil
}
