package local

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// store writes objects into the etcd at endpoint: in transactions
// (trial.Store) before its kube-apiserver starts, one by one in their order
// (trial.StoreWatched) once it runs.
func store(ctx context.Context, endpoint string, objects trial.StoredObjects, running bool) error {
	c, err := clientv3.New(trial.EtcdClientConfig(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()}))
	if err != nil {
		return fmt.Errorf("connecting to the sandbox's etcd: %w", err)
	}
	defer c.Close()
	if running {
		return trial.StoreWatched(ctx, c, objects, 1)
	}
	return trial.Store(ctx, c, objects)
}
