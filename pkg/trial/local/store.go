package local

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// store writes objects into the etcd at endpoint (trial.Store).
func store(ctx context.Context, endpoint string, objects trial.StoredObjects) error {
	c, err := clientv3.New(trial.EtcdClientConfig(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()}))
	if err != nil {
		return fmt.Errorf("connecting to the sandbox's etcd: %w", err)
	}
	defer c.Close()
	return trial.Store(ctx, c, objects)
}
