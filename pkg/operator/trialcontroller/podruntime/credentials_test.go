package podruntime

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

func TestNewCredentials(t *testing.T) {
	const lifetime = 6 * time.Minute
	before := time.Now()
	c, err := newCredentials(lifetime)
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(c.ca) {
		t.Fatal("ca.crt holds no certificate")
	}
	serving := leafOf(t, "serving", c.tlsCert, c.tlsKey)
	// As the operator (by name, at any IP) and the scheduler (127.0.0.1) verify it.
	for _, name := range []string{SandboxServerName, "127.0.0.1"} {
		if _, err := serving.Verify(x509.VerifyOptions{DNSName: name, Roots: roots}); err != nil {
			t.Errorf("the serving certificate does not verify for %s: %v", name, err)
		}
	}
	if _, err := serving.Verify(x509.VerifyOptions{DNSName: "kubernetes.default", Roots: roots}); err == nil {
		t.Error("the serving certificate verifies for a name it was not made for")
	}
	// As kube-apiserver's --client-ca-file checks a client: the admin
	// certificate passes, the serving one is no client.
	client := leafOf(t, "admin", c.clientCert, c.clientKey)
	clientAuth := x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := client.Verify(clientAuth); err != nil {
		t.Errorf("the admin certificate does not verify as a client: %v", err)
	}
	if client.Subject.CommonName != adminUser || len(client.Subject.Organization) != 1 || client.Subject.Organization[0] != adminGroup {
		t.Errorf("the admin certificate is for %s, want CN=%s, O=%s", client.Subject, adminUser, adminGroup)
	}
	if _, err := serving.Verify(clientAuth); err == nil {
		t.Error("the serving certificate verifies as a client")
	}
	checkLifetimes(t, c, lifetime, before, after)
	priv, err := keyutil.ParsePrivateKeyPEM(c.saKey)
	if err != nil {
		t.Fatal(err)
	}
	pubs, err := keyutil.ParsePublicKeysPEM(c.saPub)
	if err != nil || len(pubs) != 1 {
		t.Fatalf("sa.pub: %v (%d keys)", err, len(pubs))
	}
	if !priv.(crypto.Signer).Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(pubs[0]) {
		t.Error("sa.pub is not sa.key's public key")
	}
	if other, _ := newCredentials(lifetime); string(other.clientKey) == string(c.clientKey) || string(other.ca) == string(c.ca) {
		t.Error("two trials got the same CA or admin key")
	}
}

// checkLifetimes: every certificate ends with the trial (made between before
// and after, valid for lifetime), none a moment later; each is valid from
// clockSkew before it was made, for a node whose clock is behind.
func checkLifetimes(t *testing.T, c *credentials, lifetime time.Duration, before, after time.Time) {
	t.Helper()
	for name, pemBytes := range map[string][]byte{"CA": c.ca, "serving": c.tlsCert, "admin": c.clientCert} {
		certs, err := certutil.ParseCertsPEM(pemBytes)
		if err != nil || len(certs) != 1 {
			t.Fatalf("the %s certificate: %v (%d in its PEM)", name, err, len(certs))
		}
		cert := certs[0]
		// x509 times are whole seconds.
		if cert.NotAfter.Before(before.Add(lifetime).Truncate(time.Second)) || cert.NotAfter.After(after.Add(lifetime)) {
			t.Errorf("the %s certificate expires at %s, want %s after it was made (between %s and %s)", name,
				cert.NotAfter, lifetime, before.Add(lifetime), after.Add(lifetime))
		}
		if !cert.NotAfter.Equal(c.notAfter.Truncate(time.Second)) {
			t.Errorf("the %s certificate expires at %s, the credentials at %s", name, cert.NotAfter, c.notAfter)
		}
		if cert.NotBefore.After(after.Add(-clockSkew)) || cert.NotBefore.Before(before.Add(-clockSkew-time.Second)) {
			t.Errorf("the %s certificate is valid from %s, want %s before it was made (%s)", name, cert.NotBefore, clockSkew, before)
		}
	}
}

func leafOf(t *testing.T, name string, certPEM, keyPEM []byte) *x509.Certificate {
	t.Helper()
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatalf("the %s certificate and key: %v", name, err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// The operator takes the sandbox etcd's certificate only when the sandbox's
// CA signed it for SandboxServerName: not another sandbox's, nor the admin
// client certificate its CA also signed.
func TestVerifySandboxServer(t *testing.T) {
	mine, err := newCredentials(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other, err := newCredentials(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(mine.ca) {
		t.Fatal("the CA does not parse")
	}
	presented := func(pemCert []byte) tls.ConnectionState {
		block, _ := pem.Decode(pemCert)
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}}
	}
	verify := verifySandboxServer(roots)
	if err := verify(presented(mine.tlsCert)); err != nil {
		t.Errorf("the sandbox's own serving certificate was refused: %v", err)
	}
	for name, cs := range map[string]tls.ConnectionState{
		"another sandbox's serving certificate": presented(other.tlsCert),
		"the admin client certificate":          presented(mine.clientCert),
		"no certificate":                        {},
	} {
		if err := verify(cs); err == nil {
			t.Errorf("%s was taken", name)
		}
	}
}
