package configobservation

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
)

// HasOpenShiftConfigAPI tells whether config.openshift.io/v1 serves
// ClusterOperators, APIServers and Schedulers: on OpenShift the operator then
// reports to a ClusterOperator and observes cluster config; on Kubernetes it
// does neither and reports only on the SecondaryScheduler.
func HasOpenShiftConfigAPI(client discovery.DiscoveryInterface) (bool, error) {
	resources, err := client.ServerResourcesForGroupVersion("config.openshift.io/v1")
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	missing := sets.New("clusteroperators", "apiservers", "schedulers")
	for _, r := range resources.APIResources {
		missing.Delete(r.Name)
	}
	return missing.Len() == 0, nil
}
