package v1

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// SingletonName is the only name a SecondaryScheduler may have.
	SingletonName = "cluster"
	// SchedulerContainerName is the operand's scheduler container. It is reserved:
	// sidecars and init containers may not use it.
	SchedulerContainerName = "secondary-scheduler"
	// ConfigVolumeName is the pod volume holding the merged scheduler config. Reserved.
	ConfigVolumeName = "secondary-scheduler-config"
	// ServingCertVolumeName is the pod volume holding the scheduler's serving certificate. Reserved.
	ServingCertVolumeName = "secondary-scheduler-serving-cert"
	// APIAccessVolumeName is the pod volume holding the service account token,
	// its CA and namespace. Reserved. The pod does not automount a token: only
	// the scheduler container and user containers that mount this volume get one.
	APIAccessVolumeName = "secondary-scheduler-api-access"
)

// SecondaryScheduler runs a secondary kube-scheduler (any scheduler-framework build)
// next to the cluster's default scheduler, with the sidecars, init containers,
// volumes and extra RBAC its plugins need. It is a singleton named "cluster".
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:metadata:annotations="include.release.openshift.io/self-managed-high-availability=true"
// +kubebuilder:metadata:annotations="include.release.openshift.io/single-node-developer=true"
// +kubebuilder:resource:path=secondaryschedulers,scope=Cluster,shortName=secsched
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="State",type=string,JSONPath=`.spec.managementState`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Progressing",type=string,JSONPath=`.status.conditions[?(@.type=="Progressing")].status`
// +kubebuilder:printcolumn:name="Degraded",type=string,JSONPath=`.status.conditions[?(@.type=="Degraded")].status`
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="Schedulers",type=string,JSONPath=`.status.schedulerNames`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'cluster'",message="metadata.name: a SecondaryScheduler is a singleton and must be named 'cluster'"
type SecondaryScheduler struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is what the administrator wants the secondary scheduler to be.
	// +required
	Spec SecondarySchedulerSpec `json:"spec"`

	// status is what the operator observed and did.
	// +optional
	Status SecondarySchedulerStatus `json:"status,omitempty"`
}

// SecondarySchedulerSpec is the desired state of the secondary scheduler.
//
// +kubebuilder:validation:XValidation:rule="!has(self.sidecars) || !has(self.initContainers) || !self.initContainers.exists(c, c.name in self.sidecars.map(s, s.name))",message="sidecars and initContainers share the pod's container name space: a name may be used only once across both lists"
type SecondarySchedulerSpec struct {
	operatorv1.OperatorSpec `json:",inline"`

	// schedulerImage is the image of the scheduler container: any kube-scheduler
	// build with the scheduler framework (upstream kube-scheduler, scheduler-plugins,
	// a Fluence/KubeFlux build ...).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	SchedulerImage string `json:"schedulerImage"`

	// schedulerConfig is the name of a ConfigMap in the openshift-secondary-scheduler
	// namespace whose key "config.yaml" holds a KubeSchedulerConfiguration
	// (kubescheduler.config.k8s.io/v1), full or sparse. It is layered over the
	// operator's default (one profile, schedulerName "secondary-scheduler") and
	// validated before it is rolled out: an invalid config is refused and the
	// running scheduler is left as it is.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self == '' || self.matches('^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$')",message="must be a ConfigMap name: lower case alphanumerics, '-' or '.'"
	SchedulerConfig string `json:"schedulerConfig,omitempty"`

	// schedulerContainer customizes the scheduler container (named
	// "secondary-scheduler"): its command, arguments, environment, resources and
	// extra volume mounts. The operator always adds --config for the merged config.
	// +optional
	SchedulerContainer *SchedulerContainer `json:"schedulerContainer,omitempty"`

	// sidecars are containers that run beside the scheduler in its pod, written as
	// any pod container (name, image, command, args, env, ports, probes, resources,
	// securityContext, volumeMounts ...). A sidecar reaches the scheduler on
	// localhost (for example a gRPC server on localhost:4242) and shares the pod's
	// service account, but holds its token only when it mounts the volume
	// "secondary-scheduler-api-access" (at /var/run/secrets/kubernetes.io/serviceaccount
	// for in-cluster clients); what that token may do beyond scheduling is granted
	// through spec.rbac. A sidecar without a securityContext runs with the
	// restricted defaults. Names must be unique and must not be "secondary-scheduler".
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:XValidation:rule="self.all(c, c.name != 'secondary-scheduler')",message="the container name 'secondary-scheduler' is reserved for the scheduler container"
	Sidecars []corev1.Container `json:"sidecars,omitempty"`

	// initContainers run before the scheduler starts, written as pod init
	// containers. An init container with restartPolicy: Always is a native sidecar:
	// it starts first and keeps running beside the scheduler. An init container
	// holds the pod's service account token only when it mounts the volume
	// "secondary-scheduler-api-access", and runs with the restricted defaults when
	// it has no securityContext. Names must be unique and must not be "secondary-scheduler".
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:XValidation:rule="self.all(c, c.name != 'secondary-scheduler')",message="the container name 'secondary-scheduler' is reserved for the scheduler container"
	InitContainers []corev1.Container `json:"initContainers,omitempty"`

	// volumes are extra pod volumes that the scheduler, its sidecars and init
	// containers mount by name. The names "secondary-scheduler-config",
	// "secondary-scheduler-serving-cert" and "secondary-scheduler-api-access" are
	// reserved; the last is the service account token, which a container gets
	// only by mounting it.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(v, !(v.name in ['secondary-scheduler-config', 'secondary-scheduler-serving-cert', 'secondary-scheduler-api-access']))",message="the volume names 'secondary-scheduler-config' and 'secondary-scheduler-serving-cert' and 'secondary-scheduler-api-access' are reserved for the operator"
	Volumes []corev1.Volume `json:"volumes,omitempty"`

	// rbac grants the scheduler pod's service account (shared by the scheduler and
	// its sidecars) rules beyond what a kube-scheduler needs, for example node and
	// pod lists for a sidecar, or the custom resources of a plugin. The operator can
	// grant only rules it holds itself: a rule beyond them is refused and reported
	// in the Degraded condition.
	// +optional
	RBAC *SchedulerRBAC `json:"rbac,omitempty"`

	// replicas is the number of scheduler pods. Leader election is always on, so
	// extra replicas are warm standbys. Defaults to 1.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	Replicas *int32 `json:"replicas,omitempty"`

	// placement says where the scheduler pods run.
	// +optional
	Placement *Placement `json:"placement,omitempty"`

	// rollout says how a new scheduler configuration or image replaces the
	// running one: at once (Direct, the default), or only once a trial on a copy
	// of the cluster shows what it would change and a gate allows it (Trial).
	// +optional
	Rollout *RolloutPolicy `json:"rollout,omitempty"`
}

// SchedulerContainer customizes the scheduler container.
type SchedulerContainer struct {
	// command replaces the image's entrypoint, for example
	// ["/bin/kube-scheduler"]. The operator appends --config=<merged config>
	// to args. Its arguments may not set the flags the operator owns (see args).
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Command []string `json:"command,omitempty"`

	// args are extra arguments of the scheduler command. They may not set what
	// the operator owns: --config, --write-config-to, --kubeconfig, --master, any
	// --leader-elect* flag, --authentication-kubeconfig or --authorization-kubeconfig
	// (in any spelling), nor --help or --version. Without a command, every
	// argument must be a kube-scheduler flag.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	Args []string `json:"args,omitempty"`

	// env are extra environment variables of the scheduler container.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Env []corev1.EnvVar `json:"env,omitempty"`

	// resources of the scheduler container. Defaults to requests of 15m CPU and
	// 50Mi memory.
	// +optional
	Resources *corev1.ResourceRequirements `json:"resources,omitempty"`

	// volumeMounts mount volumes of spec.volumes into the scheduler container.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	VolumeMounts []corev1.VolumeMount `json:"volumeMounts,omitempty"`

	// securityContext fields set here replace the operator's restricted default
	// for the scheduler container (runAsNonRoot, allowPrivilegeEscalation false,
	// all capabilities dropped, read-only root filesystem); unset fields keep it.
	// Set runAsUser when the image's default user is root, as upstream
	// kube-scheduler images are on Kubernetes (OpenShift assigns a UID itself).
	// +optional
	SecurityContext *corev1.SecurityContext `json:"securityContext,omitempty"`
}

// SchedulerRBAC holds extra RBAC rules for the scheduler pod's service account.
type SchedulerRBAC struct {
	// clusterRules are granted cluster-wide, through a ClusterRole and
	// ClusterRoleBinding named secondary-scheduler-extra.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	ClusterRules []rbacv1.PolicyRule `json:"clusterRules,omitempty"`

	// namespacedRules are granted in the openshift-secondary-scheduler namespace,
	// through a Role and RoleBinding named secondary-scheduler-extra.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	NamespacedRules []rbacv1.PolicyRule `json:"namespacedRules,omitempty"`
}

// Placement says where the scheduler pods run.
type Placement struct {
	// nodeSelector restricts the scheduler pods to nodes with these labels.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// tolerations of the scheduler pods.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// affinity of the scheduler pods. When unset and replicas > 1, the operator
	// spreads the pods over nodes with a preferred pod anti-affinity.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`

	// priorityClassName of the scheduler pods. Defaults to system-cluster-critical.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	PriorityClassName string `json:"priorityClassName,omitempty"`
}

// SecondarySchedulerStatus is what the operator observed and did.
type SecondarySchedulerStatus struct {
	operatorv1.OperatorStatus `json:",inline"`

	// schedulerNames are the schedulerName values served by the running
	// configuration: set one of them as a pod's spec.schedulerName.
	// Atomic: the operator writes the whole list each time; as a set, a value
	// another field manager once wrote would outlive the profile that had it.
	// +optional
	// +listType=atomic
	SchedulerNames []string `json:"schedulerNames,omitempty"`

	// configHash is the hash of the merged scheduler configuration the inputs
	// give; ConfigMap secondary-scheduler-config-<first 12 characters> holds it.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	ConfigHash string `json:"configHash,omitempty"`

	// lastKnownGood is the last pod template whose rollout completed: every
	// scheduler pod ran it and was ready. A rollout that fails goes back to its
	// configuration.
	// +optional
	LastKnownGood *Rollout `json:"lastKnownGood,omitempty"`

	// failedRollout is the last rollout whose new pods failed to start or did
	// not become ready in time. Its pod template is not rolled out again until
	// an input changes it.
	// +optional
	FailedRollout *FailedRollout `json:"failedRollout,omitempty"`

	// trialRequest is the change held for a trial (spec.rollout.strategy
	// Trial): the target-config controller writes it while a change waits, and
	// removes it when none does; the trial controller runs it and answers in
	// lastTrial.
	// +optional
	TrialRequest *TrialRequest `json:"trialRequest,omitempty"`

	// lastTrial is the last trial of a configuration or image before its
	// rollout (spec.rollout.strategy Trial).
	// +optional
	LastTrial *TrialResult `json:"lastTrial,omitempty"`
}

// SecondarySchedulerList is a list of SecondarySchedulers.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type SecondarySchedulerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []SecondaryScheduler `json:"items"`
}
