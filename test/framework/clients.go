package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/generated/clientset/versioned"
)

// Clients are the clients tests use, all built from one rest.Config (so that they
// share its identity and, with CountRequests, its request counter).
type Clients struct {
	Config        *rest.Config
	Kube          kubernetes.Interface
	Operator      versioned.Interface // SecondaryScheduler and Simulator
	OpenShift     configclient.Interface
	Dynamic       dynamic.Interface
	APIExtensions apiextensionsclient.Interface
}

// NewClients builds every client from cfg.
func NewClients(cfg *rest.Config) (*Clients, error) {
	c := &Clients{Config: cfg}
	var err error
	if c.Kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("kube client: %w", err)
	}
	if c.Operator, err = versioned.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("operator client: %w", err)
	}
	if c.OpenShift, err = configclient.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("openshift config client: %w", err)
	}
	if c.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	if c.APIExtensions, err = apiextensionsclient.NewForConfig(cfg); err != nil {
		return nil, fmt.Errorf("apiextensions client: %w", err)
	}
	return c, nil
}

// MustClients is NewClients failing the test on error.
func MustClients(t testing.TB, cfg *rest.Config) *Clients {
	t.Helper()
	c, err := NewClients(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ConflictBackoff is how tests retry a write that conflicts with the
// operator's own: right after a SecondaryScheduler is created the operator
// writes it several times in a second, longer than client-go's DefaultRetry
// (5 tries in 50 ms) lasts on a loaded machine. About 10 s in all.
var ConflictBackoff = wait.Backoff{Steps: 12, Duration: 10 * time.Millisecond, Factor: 2, Jitter: 0.1, Cap: 2 * time.Second}

// UpdateSecondaryScheduler applies mutate to the spec of the SecondaryScheduler
// singleton, reading it again and retrying (ConflictBackoff) when the
// operator's own writes make the update conflict.
func (c *Clients) UpdateSecondaryScheduler(ctx context.Context, mutate func(*secondaryschedulerv1.SecondarySchedulerSpec)) error {
	client := c.Operator.OperatorV1().SecondarySchedulers()
	return retry.RetryOnConflict(ConflictBackoff, func() error {
		ss, err := client.Get(ctx, secondaryschedulerv1.SingletonName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(&ss.Spec)
		_, err = client.Update(ctx, ss, metav1.UpdateOptions{})
		return err
	})
}

// FindEvent looks in namespace ns for an event of eventType and reason whose
// message contains fragment, among those fieldSelector selects (for example
// "involvedObject.kind=Pod,involvedObject.name=p", as kubectl describe finds
// them). It fails, naming what it saw, while there is none.
func FindEvent(ctx context.Context, kube kubernetes.Interface, ns, fieldSelector, eventType, reason, fragment string) (bool, error) {
	events, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fieldSelector})
	if err != nil {
		return false, err
	}
	var seen []string
	for _, e := range events.Items {
		if e.Type == eventType && e.Reason == reason && strings.Contains(e.Message, fragment) {
			return true, nil
		}
		seen = append(seen, e.Type+" "+e.Reason)
	}
	return false, fmt.Errorf("no %s %s event with %q among %v", eventType, reason, fragment, seen)
}

// WriteKubeconfig writes a kubeconfig of cfg (server, CA, client certificate or
// bearer token) into the test's temporary directory and returns its path, for
// code under test that reads one.
func WriteKubeconfig(t testing.TB, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData, CertificateAuthority: cfg.CAFile}
	kc.AuthInfos["test"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken, ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData,
		ClientCertificate: cfg.CertFile, ClientKey: cfg.KeyFile}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	kc.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
