package trial

import (
	"context"
	"fmt"
	"strconv"
	"sync"

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
// transactions of at most maxTxnOps puts and about txnBytes: for an etcd no
// API server watches yet (StoreWatched otherwise).
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

// StoreWatched writes objects into the etcd of c, under StoragePrefix, one
// put at a time, each its own revision, with up to inFlight puts at once (1:
// in the order given). It is for an etcd whose API server runs: its watch
// cache and its clients' watches resume from the last revision they saw, so
// a watcher restarted in the middle of a revision of many objects (a client
// too slow for a burst is cut off and watches again) never sees the rest of
// that revision. One object per revision cannot be lost that way.
func StoreWatched(ctx context.Context, c *clientv3.Client, objects StoredObjects, inFlight int) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	slots := make(chan struct{}, max(inFlight, 1))
	var wg sync.WaitGroup
	walked := objects(func(key string, value []byte) error {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if _, err := c.Put(ctx, StoragePrefix+key, string(value)); err != nil {
				cancel(fmt.Errorf("writing %s into the sandbox's etcd: %w", key, err))
			}
		}()
		return nil
	})
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return walked
}
