package framework

import "fmt"

// ScoringConfig is a KubeSchedulerConfiguration of one profile, schedulerName,
// scoring with NodeResourcesFit strategy (LeastAllocated, MostAllocated).
func ScoringConfig(schedulerName, strategy string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: %s
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: %s
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
`, schedulerName, strategy))
}
