package trial

import (
	"context"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Runtime runs the arms' sandboxes and schedulers: as processes on this
// machine (package local, for the trial command) or as a Pod per arm in a
// cluster (the operator's trial controller).
type Runtime interface {
	// Start starts arm's sandbox with arm's scheduler running against it,
	// and returns once the sandbox answers. Its error names the arm. The
	// scheduler already runs while the sandbox is seeded through its API: the
	// replayed pods are created gated (SeedingGate) and released in replay
	// order.
	Start(ctx context.Context, arm Arm) (Sandbox, error)
}

// StorageRuntime is a Runtime that can write a snapshot straight into a
// sandbox's storage: seeding then goes at the speed of etcd's writes, not of
// the API server's creates. A Runtime that cannot
// is seeded through the sandbox's API.
type StorageRuntime interface {
	Runtime
	// StartStored is Start with objects written into the sandbox's etcd,
	// under StoragePrefix, before its scheduler can have listed them.
	StartStored(ctx context.Context, arm Arm, objects StoredObjects) (StorageSandbox, error)
}

// StorageSandbox is a Sandbox whose etcd takes writes while its API server
// and scheduler run: the replayed pods are written there one by one, in
// replay order, once the scheduler has seen the rest (Storage.Replay).
type StorageSandbox interface {
	Sandbox
	// Store writes objects into the sandbox's etcd, under StoragePrefix, one
	// revision each and in their order (StoreWatched).
	Store(ctx context.Context, objects StoredObjects) error
}

// ImageIdentifier is a Sandbox whose runtime can say which image its
// scheduler runs, as the container runtime resolved it (the Pod's
// status.containerStatuses[].imageID: a digest when one was resolved).
type ImageIdentifier interface {
	// ImageID is that image, "" when the runtime does not say.
	ImageID(ctx context.Context) string
}

// Sandbox is one arm's running sandbox and scheduler.
type Sandbox interface {
	// Config is an admin client config of the sandbox, without a client-side
	// rate limit (seeding is thousands of creates into a private server).
	Config() *rest.Config
	// Failed is nil while the scheduler runs, else why it stopped, naming the arm.
	Failed(ctx context.Context) error
	// Log is where the scheduler's log is kept, "" when the runtime keeps none.
	Log() string
	// Stop stops the scheduler and the sandbox and removes what they left.
	Stop(ctx context.Context) error
}

// Unlimited is a copy of cfg without a client-side rate limit: seeding is
// thousands of creates into a private server.
func Unlimited(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = -1, 0
	return c
}

// Kubeconfig is a kubeconfig holding cfg's server and credentials, for a
// scheduler run against a sandbox.
func Kubeconfig(cfg *rest.Config) clientcmdapi.Config {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["sandbox"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: "admin"}
	kc.CurrentContext = "sandbox"
	return *kc
}
