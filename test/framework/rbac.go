package framework

import (
	"context"
	"fmt"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// Grant is a role bound to a ServiceAccount by ServiceAccountConfig.
type Grant struct {
	// RoleKind is ClusterRole or Role.
	RoleKind string
	RoleName string
	// Namespace of the RoleBinding; empty for a ClusterRoleBinding.
	Namespace string
}

// ClusterRole binds a ClusterRole cluster-wide (ClusterRoleBinding).
func ClusterRole(name string) Grant { return Grant{RoleKind: "ClusterRole", RoleName: name} }

// ClusterRoleIn binds a ClusterRole in one namespace (RoleBinding).
func ClusterRoleIn(namespace, name string) Grant {
	return Grant{RoleKind: "ClusterRole", RoleName: name, Namespace: namespace}
}

// Role binds a Role of a namespace (RoleBinding), such as
// Role("kube-system", "extension-apiserver-authentication-reader").
func Role(namespace, name string) Grant {
	return Grant{RoleKind: "Role", RoleName: name, Namespace: namespace}
}

// ServiceAccountConfig creates the ServiceAccount namespace/name (and its namespace
// when missing), binds the grants to it and returns a client config that is
// exactly that ServiceAccount: a TokenRequest token, no client certificate. It
// returns once the API server authenticates the token and authorizes every grant.
// Bindings are deleted when the test ends.
func (e *Env) ServiceAccountConfig(t testing.TB, namespace, name string, grants ...Grant) *rest.Config {
	t.Helper()
	ctx := context.Background()
	kube := e.Admin.Kube

	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", namespace, err)
	}
	_, err = kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating ServiceAccount %s/%s: %v", namespace, name, err)
	}
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
	user := fmt.Sprintf("system:serviceaccount:%s:%s", namespace, name)

	for _, g := range grants {
		bindingName := fmt.Sprintf("test-%s-%s-%s", namespace, name, g.RoleName)
		ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: g.RoleKind, Name: g.RoleName}
		meta := metav1.ObjectMeta{Name: bindingName, Namespace: g.Namespace}
		if g.Namespace == "" {
			_, err = kube.RbacV1().ClusterRoleBindings().Create(ctx,
				&rbacv1.ClusterRoleBinding{ObjectMeta: meta, Subjects: []rbacv1.Subject{subject}, RoleRef: ref}, metav1.CreateOptions{})
			t.Cleanup(func() {
				_ = kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), bindingName, metav1.DeleteOptions{})
			})
		} else {
			_, err = kube.RbacV1().RoleBindings(g.Namespace).Create(ctx,
				&rbacv1.RoleBinding{ObjectMeta: meta, Subjects: []rbacv1.Subject{subject}, RoleRef: ref}, metav1.CreateOptions{})
			t.Cleanup(func() {
				_ = kube.RbacV1().RoleBindings(g.Namespace).Delete(context.Background(), bindingName, metav1.DeleteOptions{})
			})
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("binding %s %s to %s: %v", g.RoleKind, g.RoleName, user, err)
		}
	}

	tr, err := kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for %s: %v", user, err)
	}
	cfg := rest.AnonymousClientConfig(e.Config)
	cfg.BearerToken = tr.Status.Token

	// The API server's token authenticator and RBAC authorizer read caches that lag
	// the writes above by a moment: wait until both have caught up.
	saKube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	WaitFor(ctx, t, "the API server to authenticate "+user, func() (bool, error) {
		r, err := saKube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		if r.Status.UserInfo.Username != user {
			return false, fmt.Errorf("authenticated as %q", r.Status.UserInfo.Username)
		}
		return true, nil
	})
	for _, g := range grants {
		attrs := e.sampleAttributes(ctx, t, g)
		if attrs == nil {
			continue
		}
		WaitFor(ctx, t, fmt.Sprintf("RBAC to grant %s %s to %s", g.RoleKind, g.RoleName, user), func() (bool, error) {
			r, err := kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: attrs.ResourceAttributes, NonResourceAttributes: attrs.NonResourceAttributes},
			}, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			if !r.Status.Allowed {
				return false, fmt.Errorf("not yet allowed %+v %+v: %s", attrs.ResourceAttributes, attrs.NonResourceAttributes, r.Status.Reason)
			}
			return true, nil
		})
	}
	return cfg
}

// sampleAttributes is one request the grant's role allows (its first rule), to
// tell when the authorizer has seen the binding; nil when the role has no rules.
func (e *Env) sampleAttributes(ctx context.Context, t testing.TB, g Grant) *authorizationv1.SubjectAccessReviewSpec {
	t.Helper()
	var rules []rbacv1.PolicyRule
	if g.RoleKind == "Role" {
		r, err := e.Admin.Kube.RbacV1().Roles(g.Namespace).Get(ctx, g.RoleName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading Role %s/%s: %v", g.Namespace, g.RoleName, err)
		}
		rules = r.Rules
	} else {
		r, err := e.Admin.Kube.RbacV1().ClusterRoles().Get(ctx, g.RoleName, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("reading ClusterRole %s: %v", g.RoleName, err)
		}
		rules = r.Rules
	}
	for _, r := range rules {
		if len(r.Verbs) == 0 {
			continue
		}
		if len(r.NonResourceURLs) > 0 {
			return &authorizationv1.SubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: r.NonResourceURLs[0], Verb: r.Verbs[0]}}
		}
		if len(r.APIGroups) == 0 || len(r.Resources) == 0 {
			continue
		}
		resource, subresource, _ := strings.Cut(r.Resources[0], "/")
		attrs := &authorizationv1.ResourceAttributes{Namespace: g.Namespace, Verb: r.Verbs[0], Group: r.APIGroups[0],
			Resource: resource, Subresource: subresource}
		if len(r.ResourceNames) > 0 {
			attrs.Name = r.ResourceNames[0]
		}
		return &authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: attrs}
	}
	return nil
}
