package podruntime

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"k8s.io/client-go/rest"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

var _ trial.StorageRuntime = (*Runtime)(nil)

// etcdAnswerTimeout bounds the first answer of a sandbox's etcd: it runs
// before the kube-apiserver that already answered.
const etcdAnswerTimeout = 30 * time.Second

// etcdEndpoint is the sandbox etcd's TLS endpoint at podIP.
func etcdEndpoint(podIP string) string {
	return "https://" + net.JoinHostPort(podIP, strconv.Itoa(SandboxEtcdPort))
}

// storeInFlight is how many puts the snapshot's write into a running
// sandbox sends at once (trial.StoreWatched): its objects' order is free.
const storeInFlight = 64

// store writes objects into the etcd of the sandbox that sandbox (the
// operator's client config of it) reaches, with the same credentials, up to
// inFlight at once. Its kube-apiserver runs: one revision per object.
func store(ctx context.Context, sandbox *rest.Config, objects trial.StoredObjects, inFlight int) error {
	u, err := url.Parse(sandbox.Host)
	if err != nil {
		return err
	}
	tlsConfig, err := rest.TLSConfigFor(sandbox)
	if err != nil {
		return err
	}
	tlsConfig.InsecureSkipVerify, tlsConfig.VerifyConnection = true, verifySandboxServer(tlsConfig.RootCAs)
	endpoint := etcdEndpoint(u.Hostname())
	client, err := clientv3.New(trial.EtcdClientConfig(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: etcdAnswerTimeout,
		TLS: tlsConfig, Logger: zap.NewNop()}))
	if err != nil {
		return fmt.Errorf("connecting to the sandbox's etcd: %w", err)
	}
	defer client.Close()
	// A sandbox whose etcd cannot be reached or refuses the operator fails
	// the arm now, not at the trial's timeout (its writes would wait on).
	answerCtx, cancel := context.WithTimeout(ctx, etcdAnswerTimeout)
	defer cancel()
	if _, err := client.Status(answerCtx, endpoint); err != nil {
		return fmt.Errorf("the sandbox's etcd at %s does not answer: %w", endpoint, err)
	}
	return trial.StoreWatched(ctx, client, objects, inFlight)
}

// verifySandboxServer verifies a sandbox's serving certificate: signed by
// roots, for SandboxServerName. etcd's client checks the server against the
// address it dials (the Pod's IP), whatever tls.Config.ServerName says, so
// it is told to skip its own check and given this one.
func verifySandboxServer(roots *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the sandbox's etcd sent no certificate")
		}
		opts := x509.VerifyOptions{Roots: roots, DNSName: SandboxServerName, Intermediates: x509.NewCertPool()}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(opts)
		return err
	}
}
