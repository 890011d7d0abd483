package podruntime

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"

	librarycrypto "github.com/openshift/library-go/pkg/crypto"
)

// clockSkew is how far before their making the sandbox's certificates are
// valid: the kube-apiserver that checks them runs on another node, whose
// clock may be behind the operator's. It moves NotBefore only; NotAfter is
// the lifetime from now.
const clockSkew = 5 * time.Minute

// The sandbox's admin identity: the operator seeds the sandbox and the arm's
// scheduler reads it as this user, in system:masters (the sandbox is theirs alone).
const (
	adminUser  = "trial-admin"
	adminGroup = "system:masters"
)

// credentials are a sandbox's, made afresh for each trial arm: the PEM CA,
// the serving certificate of its kube-apiserver, the admin client
// certificate (the sandbox's only credential), all signed by that CA and
// valid until notAfter, and its service-account key pair.
type credentials struct {
	ca, tlsCert, tlsKey   []byte
	clientCert, clientKey []byte
	saKey, saPub          []byte
	notAfter              time.Time
}

// newCredentials makes an arm's credentials, valid for lifetime from now: a
// certificate cannot be revoked, so it expires with the trial (the Pod's
// activeDeadlineSeconds, Runtime.Lifetime) rather than outlive it in a
// Secret, a log or a backup.
func newCredentials(lifetime time.Duration) (*credentials, error) {
	now := time.Now()
	c := &credentials{notAfter: now.Add(lifetime)}
	validity := func(t *x509.Certificate) *x509.Certificate {
		t.NotBefore, t.NotAfter = now.Add(-clockSkew), c.notAfter
		return t
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's CA key: %w", err)
	}
	caTemplate := validity(&x509.Certificate{Subject: pkix.Name{CommonName: SandboxServerName + "-ca"},
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true})
	caCert, caPEM, err := sign(caTemplate, &caKey.PublicKey, nil, caKey)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's CA: %w", err)
	}
	c.ca = caPEM
	// The scheduler in the Pod dials 127.0.0.1; the operator dials the Pod's
	// IP with SandboxServerName as the TLS server name.
	serving := validity(&x509.Certificate{Subject: pkix.Name{CommonName: SandboxServerName},
		DNSNames: []string{SandboxServerName}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if c.tlsCert, c.tlsKey, err = issue(serving, caCert, caKey); err != nil {
		return nil, fmt.Errorf("the sandbox's serving certificate: %w", err)
	}
	client := validity(&x509.Certificate{Subject: pkix.Name{CommonName: adminUser, Organization: []string{adminGroup}},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if c.clientCert, c.clientKey, err = issue(client, caCert, caKey); err != nil {
		return nil, fmt.Errorf("the sandbox's admin certificate: %w", err)
	}
	if c.saKey, c.saPub, err = serviceAccountKeys(); err != nil {
		return nil, fmt.Errorf("the sandbox's service-account key: %w", err)
	}
	return c, nil
}

// issue makes a key and a certificate of template signed by ca, both PEM.
func issue(template, ca *x509.Certificate, caKey crypto.Signer) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	if _, certPEM, err = sign(template, &key.PublicKey, ca, caKey); err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return certPEM, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// sign signs template for pub with caKey, as ca (self-signed when ca is nil),
// with a random serial number.
func sign(template *x509.Certificate, pub crypto.PublicKey, ca *x509.Certificate, caKey crypto.Signer) (*x509.Certificate, []byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, nil, err
	}
	template.SerialNumber = serial
	if ca == nil {
		ca = template
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, pub, caKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// serviceAccountKeys is the sandbox's service-account signing key pair, PEM.
// A key has no expiry; the tokens it signs are the sandbox's own, and go with it.
func serviceAccountKeys() (priv, pub []byte, err error) {
	public, private, err := librarycrypto.NewKeyPair()
	if err != nil {
		return nil, nil, err
	}
	if priv, err = librarycrypto.EncodeKey(private); err != nil {
		return nil, nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(public)
	if err != nil {
		return nil, nil, err
	}
	return priv, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}
