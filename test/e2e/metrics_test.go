package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/test/framework"
)

// TestOperatorServesHealthAndMetrics: the operator's --listen endpoint answers
// /healthz to anyone (as a kubelet probe needs), and /metrics only to whom the
// API server authorizes (delegated authentication and authorization, through
// the RBAC manifests/ ship: system:auth-delegator and
// extension-apiserver-authentication-reader): a token allowed GET /metrics (as
// Prometheus' is) and the admin's client certificate get it, a ServiceAccount
// without that permission and anonymous requests do not. Every metric the
// PrometheusRule's alerts use is served, and operand_ready_replicas counts the
// ready scheduler pod.
func TestOperatorServesHealthAndMetrics(t *testing.T) {
	c := needCluster(t)
	ctx := context.Background()
	base := "https://" + c.operatorAddress
	// The operator serves a self-signed certificate here (no service-ca).
	insecure := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test of a local self-signed endpoint
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: insecure}}

	code, body := get(t, client, base+"/healthz", "")
	if code != http.StatusOK || strings.TrimSpace(body) != "ok" {
		t.Fatalf("GET /healthz: %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, client, base+"/metrics", ""); code != http.StatusUnauthorized && code != http.StatusForbidden {
		t.Errorf("anonymous GET /metrics: %d, want 401 or 403:\n%.300s", code, body)
	}

	ns := c.createNamespace(t, "e2e-metrics")
	reader := c.serviceAccountToken(t, ns, "metrics-reader", true)
	stranger := c.serviceAccountToken(t, ns, "stranger", false)
	if code, _ := get(t, client, base+"/metrics", stranger); code != http.StatusForbidden {
		t.Errorf("GET /metrics with a token without permission: %d, want 403", code)
	}

	c.applyExample(t, "bin-packing")
	c.waitReconciled(t)
	var metrics string
	framework.WaitFor(ctx, t, "GET /metrics with a token allowed to", func() (bool, error) {
		code, body := get(t, client, base+"/metrics", reader)
		if code != http.StatusOK {
			return false, fmt.Errorf("%d: %.200s", code, body)
		}
		metrics = body
		// The operand status controller records ready replicas at its sync.
		if !regexp.MustCompile(`(?m)^secondary_scheduler_operator_operand_ready_replicas [1-9]`).MatchString(body) {
			return false, fmt.Errorf("operand_ready_replicas is not >= 1:\n%s", grepLines(body, "operand_ready_replicas"))
		}
		return true, nil
	})
	admin := c.adminMetricsClient(t)
	if code, _ := get(t, admin, base+"/metrics", ""); code != http.StatusOK {
		t.Errorf("GET /metrics with the admin's client certificate: %d, want 200", code)
	}

	rules, err := os.ReadFile(repoPath(t, "manifests", "optional", "0000_90_secondary-scheduler-operator_03_prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	used := regexp.MustCompile(`secondary_scheduler_operator_[a-z_]+`).FindAllString(string(rules), -1)
	if len(used) == 0 {
		t.Fatal("the PrometheusRule uses no operator metric")
	}
	for _, name := range used {
		if !regexp.MustCompile(`(?m)^` + name + `[{ ]`).MatchString(metrics) {
			t.Errorf("the PrometheusRule uses %s, which /metrics does not serve", name)
		}
	}
}

func get(t *testing.T, client *http.Client, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// serviceAccountToken creates a ServiceAccount (allowed GET /metrics when
// metrics is set, as Prometheus is) and returns a token of it.
func (c *cluster) serviceAccountToken(t *testing.T, ns, name string, metrics bool) string {
	t.Helper()
	ctx := context.Background()
	kube := c.admin.Kube
	if _, err := kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if metrics {
		role := &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
			Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
		}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
		}
		if _, err := kube.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
			_ = kube.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
		})
	}
	tr, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}
