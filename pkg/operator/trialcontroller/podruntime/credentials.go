package podruntime

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/openshift/library-go/pkg/crypto"
)

// credentialLifetime bounds the sandbox's certificates: a trial lasts
// minutes, and its Secret goes with it.
const credentialLifetime = 24 * time.Hour

// credentials are a sandbox's, made afresh for each trial arm: the PEM CA and
// serving certificate of its kube-apiserver, its service-account key pair,
// and the admin token, the sandbox's only credential.
type credentials struct {
	ca, tlsCert, tlsKey []byte
	saKey, saPub        []byte
	token               string
}

func newCredentials() (*credentials, error) {
	caConfig, err := crypto.MakeSelfSignedCAConfigForDuration(SandboxServerName+"-ca", credentialLifetime)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's CA: %w", err)
	}
	ca := &crypto.CA{Config: caConfig, SerialGenerator: &crypto.RandomSerialGenerator{}}
	// The scheduler in the Pod dials 127.0.0.1; the operator dials the Pod's
	// IP with SandboxServerName as the TLS server name.
	serving, err := ca.MakeServerCertForDuration(sets.New(SandboxServerName, "127.0.0.1"), credentialLifetime)
	if err != nil {
		return nil, fmt.Errorf("the sandbox's serving certificate: %w", err)
	}
	c := &credentials{}
	if c.ca, err = crypto.EncodeCertificates(caConfig.Certs...); err != nil {
		return nil, err
	}
	if c.tlsCert, c.tlsKey, err = serving.GetPEMBytes(); err != nil {
		return nil, err
	}
	pub, priv, err := crypto.NewKeyPair()
	if err != nil {
		return nil, fmt.Errorf("the sandbox's service-account key: %w", err)
	}
	if c.saKey, err = crypto.EncodeKey(priv); err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	c.saPub = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		return nil, err
	}
	c.token = hex.EncodeToString(token)
	return c, nil
}
