package trial

import (
	"context"
	"fmt"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"
)

const (
	// maxTxnOps and txnBytes bound one transaction of Store; a sandbox's
	// etcd is started to accept them (EtcdFlags), and maxRequestBytes leaves
	// room for the largest object kube-apiserver stores (1.5 MiB).
	maxTxnOps       = 2000
	txnBytes        = 8 << 20
	maxRequestBytes = txnBytes + 2<<20
)

// EtcdFlags are the flags a sandbox's etcd needs to take Store's
// transactions.
func EtcdFlags() []Flag {
	return []Flag{{"max-txn-ops", strconv.Itoa(maxTxnOps)}, {"max-request-bytes", strconv.Itoa(maxRequestBytes)}}
}

// EtcdClientConfig is what a client of a sandbox's etcd needs beyond its
// endpoints and TLS: room for Store's transactions.
func EtcdClientConfig(cfg clientv3.Config) clientv3.Config {
	cfg.MaxCallSendMsgSize = maxRequestBytes
	return cfg
}

// Store writes objects into the etcd of c, under StoragePrefix, in
// transactions of at most maxTxnOps puts and about txnBytes.
func Store(ctx context.Context, c *clientv3.Client, objects StoredObjects) error {
	var (
		ops  []clientv3.Op
		size int
	)
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		if _, err := c.Txn(ctx).Then(ops...).Commit(); err != nil {
			return fmt.Errorf("writing %d objects into the sandbox's etcd: %w", len(ops), err)
		}
		ops, size = ops[:0], 0
		return nil
	}
	err := objects(func(key string, value []byte) error {
		if len(ops) == maxTxnOps || (len(ops) > 0 && size+len(key)+len(value) > txnBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		ops = append(ops, clientv3.OpPut(StoragePrefix+key, string(value)))
		size += len(key) + len(value)
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
