package operandstatuscontroller

import (
	"fmt"
	"sort"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

// ConditionStaleConfig is True while scheduler pods run a configuration other
// than the merged one once no rollout is in progress: the rollout of the merged
// configuration was rolled back, or pods outlived their ReplicaSet. It is not a
// Degraded condition: a rollback already says why on its own condition.
const ConditionStaleConfig = "OperandPodsOnStaleConfig"

// staleConfig compares the configuration each scheduler pod was created with
// (the config-hash annotation of its pod template) with desired, the hash of
// the merged configuration. While the Deployment is rolling out, old pods are
// expected and nothing is stale.
func staleConfig(d *appsv1.Deployment, pods []*corev1.Pod, desired string, rollingOut bool) (operatorv1.OperatorCondition, int) {
	ok := operatorv1.OperatorCondition{Type: ConditionStaleConfig, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	if d == nil || desired == "" || rollingOut {
		return ok, 0
	}
	byConfig := map[string][]string{}
	stale := 0
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if running := pod.Annotations[names.ConfigHashAnnotation]; running != desired {
			byConfig[running] = append(byConfig[running], pod.Name)
			stale++
		}
	}
	if stale == 0 {
		return ok, 0
	}
	var parts []string
	for hash, podNames := range byConfig {
		sort.Strings(podNames)
		what := "no recorded configuration"
		if hash != "" {
			what = "ConfigMap " + names.ConfigMapNameFor(hash)
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", what, strings.Join(podNames, ", ")))
	}
	sort.Strings(parts)
	why := "pods outlived their rollout"
	if d.Spec.Template.Annotations[names.ConfigHashAnnotation] != desired {
		why = "the Deployment runs a rolled-back configuration (see status.failedRollout and TargetConfigControllerDegraded)"
	}
	return operatorv1.OperatorCondition{Type: ConditionStaleConfig, Status: operatorv1.ConditionTrue, Reason: "StaleConfig",
		Message: fmt.Sprintf("%d scheduler pods run a configuration other than the merged one (ConfigMap %s): %s; %s",
			stale, names.ConfigMapNameFor(desired), strings.Join(parts, "; "), why)}, stale
}
