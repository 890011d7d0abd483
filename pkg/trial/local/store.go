package local

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

const (
	// maxTxnOps and txnBytes bound one transaction of store; the sandbox's
	// etcd is started to accept them (startEtcd), and maxRequestBytes leaves
	// room for the largest object kube-apiserver stores (1.5 MiB).
	maxTxnOps       = 2000
	txnBytes        = 8 << 20
	maxRequestBytes = txnBytes + 2<<20
)

// store writes objects into the etcd at endpoint, under trial.StoragePrefix,
// in transactions of at most maxTxnOps puts and about txnBytes.
func store(ctx context.Context, endpoint string, objects trial.StoredObjects) error {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 10 * time.Second,
		MaxCallSendMsgSize: maxRequestBytes, Logger: zap.NewNop()})
	if err != nil {
		return fmt.Errorf("connecting to the sandbox's etcd: %w", err)
	}
	defer c.Close()
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
	err = objects(func(key string, value []byte) error {
		if len(ops) == maxTxnOps || (len(ops) > 0 && size+len(key)+len(value) > txnBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		ops = append(ops, clientv3.OpPut(trial.StoragePrefix+key, string(value)))
		size += len(key) + len(value)
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
