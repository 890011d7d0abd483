package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// DefaultImage follows the environment contract of KEP-159 (KUBE_API_PORT, PORT,
	// KUBE_SCHEDULER_CONFIG_PATH, KUBE_SCHEDULER_SIMULATOR_ETCD_URL, ...).
	DefaultImage = "registry.k8s.io/scheduler-simulator/simulator-backend:v0.1.1"
	// DefaultKubeAPIServerPort is the simulator's internal kube-apiserver port.
	DefaultKubeAPIServerPort = 3131
	// DefaultSimulatorServerPort is the simulator server's port.
	DefaultSimulatorServerPort = 1212
	// SimulatorContainerName and EtcdContainerName are the containers the
	// controller generates; podTemplate containers of these names override them.
	SimulatorContainerName = "simulator"
	EtcdContainerName      = "etcd"
)

// Simulator is a kube-scheduler-simulator (KEP-159) run as a Pod in the Simulator's
// namespace: a sandbox with its own kube-apiserver and scheduler in which to try
// scheduler configurations before rolling them out.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:metadata:annotations="include.release.openshift.io/self-managed-high-availability=true"
// +kubebuilder:metadata:annotations="include.release.openshift.io/single-node-developer=true"
// +kubebuilder:resource:path=simulators,scope=Namespaced,shortName=sim
// +kubebuilder:subresource:status
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name names the Service in front of the simulator, so it must be a DNS-1035 label: at most 63 lowercase letters, digits and '-', starting with a letter"
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="API Server",type=string,JSONPath=`.status.kubeAPIServerURL`
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Simulator struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the simulator. All fields can be updated; any change
	// restarts the simulator's Pod.
	// +optional
	// +kubebuilder:default={}
	Spec SimulatorSpec `json:"spec,omitempty"`

	// status is what the controller observed.
	// +optional
	Status SimulatorStatus `json:"status,omitempty"`
}

// SimulatorSpec has the spec for the simulator. All fields can be updated, but the
// Pod will be restarted. All data stored in the "etcd" container is lost on a
// restart unless the "etcd" container gets a volume through podTemplate, or an
// external etcd is used with etcdURL.
//
// +kubebuilder:validation:XValidation:rule="!has(self.kubeAPIServerPort) || !has(self.simulatorServerPort) || self.kubeAPIServerPort != self.simulatorServerPort",message="kubeAPIServerPort and simulatorServerPort must differ"
type SimulatorSpec struct {
	// kubeAPIServerPort is the port of the kube-apiserver inside the simulator,
	// given to the "simulator" container as KUBE_API_PORT.
	// +optional
	// +kubebuilder:default=3131
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	KubeAPIServerPort int32 `json:"kubeAPIServerPort,omitempty"`

	// simulatorServerPort is the port of the simulator's endpoint, given to the
	// "simulator" container as PORT.
	// +optional
	// +kubebuilder:default=1212
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	SimulatorServerPort int32 `json:"simulatorServerPort,omitempty"`

	// kubeSchedulerConfigurationPath is the absolute path, inside the "simulator"
	// container, of the KubeSchedulerConfiguration of the simulator's scheduler
	// (mount it through podTemplate). Given as KUBE_SCHEDULER_CONFIG_PATH.
	// +optional
	// +kubebuilder:validation:MaxLength=4096
	// +kubebuilder:validation:XValidation:rule="self == '' || self.startsWith('/')",message="must be an absolute path, starting with '/'"
	KubeSchedulerConfigurationPath string `json:"kubeSchedulerConfigurationPath,omitempty"`

	// etcdURL is the URL of an external etcd for the simulator's kube-apiserver,
	// given as KUBE_SCHEDULER_SIMULATOR_ETCD_URL. When empty, the Pod gets an
	// "etcd" container and the simulator uses http://127.0.0.1:2379.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self == '' || self.matches('^https?://[^/ ]+')",message="must be an http:// or https:// URL, for example http://etcd.example:2379"
	// +kubebuilder:validation:XValidation:rule="!self.contains(',')",message="must be one URL: the simulator splits its etcd URL list on commas"
	EtcdURL *string `json:"etcdURL,omitempty"`

	// corsAllowedOriginList are the origins allowed by CORS on the kube-apiserver
	// and the simulator server, given comma-joined as CORS_ALLOWED_ORIGIN_LIST.
	// Each must be an absolute URL such as http://localhost:3000: the simulator
	// ignores the whole list when one entry is not.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.all(o, o.matches('^[a-zA-Z][a-zA-Z0-9+.-]*://[^/ ]+'))",message="every origin must be an absolute URL with a scheme and a host, for example http://localhost:3000"
	// +kubebuilder:validation:XValidation:rule="self.all(o, !o.contains(','))",message="one origin per list item: the simulator gets the list joined with commas"
	CORSAllowedOriginList []string `json:"corsAllowedOriginList,omitempty"`

	// image of the "simulator" container. A custom image must be configured by the
	// same environment variables as the default one.
	// +optional
	// +kubebuilder:default="registry.k8s.io/scheduler-simulator/simulator-backend:v0.1.1"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// ingressFrom widens who may connect to the simulator's Pod. The simulator's
	// kube-apiserver and endpoint answer every request unauthenticated, so the
	// controller gives each Simulator a NetworkPolicy (named like the Simulator)
	// that admits only Pods of the Simulator's own namespace. Each entry here is
	// a NetworkPolicy peer admitted as well: [{namespaceSelector: {}}] admits
	// every namespace, an ipBlock admits clients outside the cluster. Setting or
	// changing it takes the right to create NetworkPolicies in the namespace.
	// The policy takes effect where the cluster's network plugin enforces
	// NetworkPolicy; a port-forward is not subject to it.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	IngressFrom []networkingv1.NetworkPolicyPeer `json:"ingressFrom,omitempty"`

	// podTemplate describes the Pod that runs the simulator. The controller adds a
	// container named "simulator" (image, ports, environment) and, when etcdURL
	// is empty, a container named "etcd". A podTemplate container named
	// "simulator" or "etcd" takes precedence field by field over the generated
	// one; everything else in the template (other containers, volumes, labels,
	// annotations, node placement) is kept.
	// +optional
	PodTemplate *corev1.PodTemplateSpec `json:"podTemplate,omitempty"`
}

// SimulatorPhase is where a simulator is in its life.
// +kubebuilder:validation:Enum=Pending;Creating;Available
type SimulatorPhase string

const (
	// SimulatorPending: the controller has not created the Pod yet, or the spec is invalid.
	SimulatorPending SimulatorPhase = "Pending"
	// SimulatorCreating: the Pod exists and is not ready yet.
	SimulatorCreating SimulatorPhase = "Creating"
	// SimulatorAvailable: the Pod is ready and the simulator reachable.
	SimulatorAvailable SimulatorPhase = "Available"
)

// SimulatorStatus is what the controller observed.
type SimulatorStatus struct {
	// phase is Pending, Creating or Available.
	// +optional
	Phase SimulatorPhase `json:"phase,omitempty"`

	// message says, in words, why the simulator is in this phase.
	// +optional
	Message *string `json:"message,omitempty"`

	// kubeAPIServerURL is the in-cluster URL of the simulator's kube-apiserver,
	// through the Service in front of the simulator's Pod.
	// +optional
	KubeAPIServerURL string `json:"kubeAPIServerURL,omitempty"`

	// observedGeneration is the generation of the spec the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Available (the Pod is ready) and Degraded (the spec is invalid
	// or the Pod cannot start).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// SimulatorList is a list of Simulators.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type SimulatorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Simulator `json:"items"`
}
