// Package simulatorrender turns a Simulator into the Pod, Service and
// NetworkPolicy that run its simulator, as render does for the
// SecondaryScheduler. It is pure (no clients, informers or network): the
// simulator controller applies what Render returns, and golden files pin it.
package simulatorrender

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
)

const (
	// SimulatorLabel is on every Pod, Service and NetworkPolicy rendered for a
	// Simulator, beside names.ManagedByLabel; its value is the name of the
	// owning Simulator. The simulator controller's informers are filtered by
	// both.
	SimulatorLabel = "simulation.kube-scheduler-simulator.x-k8s.io/simulator"
	// SpecHashAnnotation on the Pod is the hash of everything the controller
	// rendered into it: a Pod whose hash differs from the Simulator's current one
	// is replaced.
	SpecHashAnnotation = "simulation.kube-scheduler-simulator.x-k8s.io/spec-hash"
	// SimulatorSpecHashAnnotation on the Pod is the hash of the Simulator spec it
	// was rendered from, as the user wrote it: a Pod whose SpecHashAnnotation
	// differs only because the operator's own defaults changed (an upgrade) keeps
	// running, since a simulator's state lives in an emptyDir.
	SimulatorSpecHashAnnotation = "simulation.kube-scheduler-simulator.x-k8s.io/simulator-spec-hash"
	// defaultContainerAnnotation makes `oc logs`/`oc exec` pick the simulator.
	defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

	// EmbeddedEtcdURL is where the "simulator" container finds the "etcd" container.
	EmbeddedEtcdURL = "http://127.0.0.1:2379"
	// DefaultCORSAllowedOrigin is given as CORS_ALLOWED_ORIGIN_LIST when the spec
	// lists no origin: simulator-backend v0.1.x exits at start when the variable is
	// empty, and this is the origin upstream's own deployments give it (the web UI
	// on localhost:3000, reached through a port-forward).
	DefaultCORSAllowedOrigin = "http://localhost:3000"

	// Port names, on the "simulator" container and on the Service.
	KubeAPIServerPortName = "kube-apiserver"
	SimulatorPortName     = "simulator"

	etcdDataVolume  = "etcd-data"
	etcdDataDir     = "/var/lib/etcd"
	etcdClientPort  = 2379
	etcdPeerPort    = 2380
	podNameHashSize = 10
)

// DefaultEtcdImage runs the "etcd" container when etcdURL is empty: the etcd
// 3.5 line the v0.1.x simulators were built against (their kube-apiserver is an
// etcd 3.5 client), at its latest patch release on registry.k8s.io. A variable,
// so that a build can change it (-ldflags -X), as the upgrade test does.
var DefaultEtcdImage = "registry.k8s.io/etcd:3.5.21-0"

// Environment variables of the KEP-159 contract.
const (
	EnvKubeAPIHost             = "KUBE_API_HOST"
	EnvKubeAPIPort             = "KUBE_API_PORT"
	EnvPort                    = "PORT"
	EnvKubeSchedulerConfigPath = "KUBE_SCHEDULER_CONFIG_PATH"
	EnvEtcdURL                 = "KUBE_SCHEDULER_SIMULATOR_ETCD_URL"
	EnvCORSAllowedOriginList   = "CORS_ALLOWED_ORIGIN_LIST"
)

// Inputs is everything Render reads. It holds no clients: the caller fetches.
type Inputs struct {
	// Simulator is the one to render.
	Simulator *simv1alpha1.Simulator
}

// Objects is what a Simulator asks for.
type Objects struct {
	// Pod runs the simulator; its name ends in the first characters of SpecHash.
	Pod *corev1.Pod
	// Service fronts the Pod; it has the Simulator's name.
	Service *corev1.Service
	// NetworkPolicy admits to the Pod only its own namespace and spec.ingressFrom;
	// it has the Simulator's name.
	NetworkPolicy *networkingv1.NetworkPolicy
	// NarrowNetworkPolicy is NetworkPolicy without spec.ingressFrom: what a
	// Simulator gets while the peers it names cannot be trusted.
	NarrowNetworkPolicy *networkingv1.NetworkPolicy
	// SpecHash is the hash of the rendered Pod, also in its SpecHashAnnotation.
	SpecHash string
	// KubeAPIServerURL is the in-cluster URL of the simulator's kube-apiserver.
	KubeAPIServerURL string
}

// Render returns the objects a Simulator asks for, or an *InputError listing
// why its spec is invalid. It is pure: the same Simulator always renders the
// same objects.
func Render(in Inputs) (*Objects, error) {
	sim := in.Simulator
	if errs := Validate(sim); len(errs) > 0 {
		return nil, &InputError{Errors: errs}
	}
	spec := withDefaults(&sim.Spec)

	pod, hash, err := renderNamedPod(sim, spec)
	if err != nil {
		return nil, err
	}
	svc := renderService(sim, spec)
	narrow := spec.DeepCopy()
	narrow.IngressFrom = nil
	return &Objects{
		Pod:                 pod,
		Service:             svc,
		NetworkPolicy:       renderNetworkPolicy(sim, spec),
		NarrowNetworkPolicy: renderNetworkPolicy(sim, narrow),
		SpecHash:            hash,
		KubeAPIServerURL:    KubeAPIServerURL(sim.Namespace, svc.Name, spec.KubeAPIServerPort),
	}, nil
}

// renderNamedPod renders the Pod, named and annotated after its hashes, and
// returns its hash.
func renderNamedPod(sim *simv1alpha1.Simulator, spec *simv1alpha1.SimulatorSpec) (*corev1.Pod, string, error) {
	pod := renderPod(sim, spec)
	hash, err := podHash(pod)
	if err != nil {
		return nil, "", err
	}
	specHash, err := simulatorSpecHash(&sim.Spec)
	if err != nil {
		return nil, "", err
	}
	pod.Name = fmt.Sprintf("%s-%s", sim.Name, hash[:podNameHashSize])
	pod.Annotations[SpecHashAnnotation] = hash
	pod.Annotations[SimulatorSpecHashAnnotation] = specHash
	return pod, hash, nil
}

// KubeAPIServerURL is the URL of a simulator's kube-apiserver through its Service.
// simulator-backend v0.1.x serves its kube-apiserver in plain HTTP (anonymous,
// allowed everything by RBAC) on KUBE_API_HOST:KUBE_API_PORT.
func KubeAPIServerURL(namespace, service string, port int32) string {
	return fmt.Sprintf("http://%s.%s.svc:%d", service, namespace, port)
}

// withDefaults returns a copy of spec with the CRD's defaults applied to unset
// fields (an object that bypassed the CRD defaulting, such as in a unit test).
func withDefaults(in *simv1alpha1.SimulatorSpec) *simv1alpha1.SimulatorSpec {
	spec := in.DeepCopy()
	if spec.KubeAPIServerPort == 0 {
		spec.KubeAPIServerPort = simv1alpha1.DefaultKubeAPIServerPort
	}
	if spec.SimulatorServerPort == 0 {
		spec.SimulatorServerPort = simv1alpha1.DefaultSimulatorServerPort
	}
	if spec.Image == "" {
		spec.Image = simv1alpha1.DefaultImage
	}
	return spec
}

func embeddedEtcd(spec *simv1alpha1.SimulatorSpec) bool {
	return spec.EtcdURL == nil || *spec.EtcdURL == ""
}

func ownerReference(sim *simv1alpha1.Simulator) metav1.OwnerReference {
	return *metav1.NewControllerRef(sim, simv1alpha1.SchemeGroupVersion.WithKind("Simulator"))
}

// ownedObjectMeta names an object after its Simulator, labels it for the
// controller's filtered informers and makes the Simulator its controller.
func ownedObjectMeta(sim *simv1alpha1.Simulator) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            sim.Name,
		Namespace:       sim.Namespace,
		Labels:          ownLabels(sim, nil),
		OwnerReferences: []metav1.OwnerReference{ownerReference(sim)},
	}
}

// ownLabels adds the controller's labels to labels (a new map when nil),
// over any of the same keys.
func ownLabels(sim *simv1alpha1.Simulator, labels map[string]string) map[string]string {
	if labels == nil {
		labels = map[string]string{}
	}
	labels[SimulatorLabel] = sim.Name
	labels[names.ManagedByLabel] = names.ManagedByValue
	return labels
}

func renderService(sim *simv1alpha1.Simulator, spec *simv1alpha1.SimulatorSpec) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: ownedObjectMeta(sim),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: map[string]string{SimulatorLabel: sim.Name},
			Ports: []corev1.ServicePort{
				{Name: KubeAPIServerPortName, Protocol: corev1.ProtocolTCP, Port: spec.KubeAPIServerPort, TargetPort: intstr.FromInt32(spec.KubeAPIServerPort)},
				{Name: SimulatorPortName, Protocol: corev1.ProtocolTCP, Port: spec.SimulatorServerPort, TargetPort: intstr.FromInt32(spec.SimulatorServerPort)},
			},
		},
	}
}

// renderNetworkPolicy admits, on every port of the simulator's Pod, Pods of the
// Simulator's namespace and the peers of spec.ingressFrom. It restricts ingress
// only: the simulator reaches whatever the namespace's own policies allow.
func renderNetworkPolicy(sim *simv1alpha1.Simulator, spec *simv1alpha1.SimulatorSpec) *networkingv1.NetworkPolicy {
	from := append([]networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}, spec.IngressFrom...)
	return &networkingv1.NetworkPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: ownedObjectMeta(sim),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{SimulatorLabel: sim.Name}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: from}},
		},
	}
}

// renderPod builds the Pod from the podTemplate and the generated containers; the
// caller sets its name and hash.
func renderPod(sim *simv1alpha1.Simulator, spec *simv1alpha1.SimulatorSpec) *corev1.Pod {
	tmpl := &corev1.PodTemplateSpec{}
	if spec.PodTemplate != nil {
		tmpl = spec.PodTemplate.DeepCopy()
	}
	pod := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       sim.Namespace,
			Labels:          ownLabels(sim, tmpl.Labels),
			Annotations:     tmpl.Annotations,
			OwnerReferences: []metav1.OwnerReference{ownerReference(sim)},
		},
		Spec: tmpl.Spec,
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if _, ok := pod.Annotations[defaultContainerAnnotation]; !ok {
		pod.Annotations[defaultContainerAnnotation] = simv1alpha1.SimulatorContainerName
	}
	// A namespace holding many simulators would give every container a dozen
	// variables per Service; the simulator needs none of them.
	if pod.Spec.EnableServiceLinks == nil {
		pod.Spec.EnableServiceLinks = ptr.To(false)
	}
	// The v0.1.x simulator never talks to the cluster it runs in (its API server
	// is its own), so the default Pod carries no credential of that cluster. A
	// template that names a ServiceAccount asks for its token.
	if pod.Spec.AutomountServiceAccountToken == nil && pod.Spec.ServiceAccountName == "" {
		pod.Spec.AutomountServiceAccountToken = ptr.To(false)
	}

	generated := []corev1.Container{simulatorContainer(spec)}
	if embeddedEtcd(spec) {
		generated = append(generated, etcdContainer())
	}
	pod.Spec.Containers = mergeContainers(generated, pod.Spec.Containers)

	if embeddedEtcd(spec) && mountsVolume(pod.Spec.Containers, etcdDataVolume) {
		pod.Spec.Volumes = mergeVolumes([]corev1.Volume{{
			Name:         etcdDataVolume,
			VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: etcdDataSizeLimit()}},
		}}, pod.Spec.Volumes)
	}
	return pod
}

func simulatorContainer(spec *simv1alpha1.SimulatorSpec) corev1.Container {
	etcdURL := EmbeddedEtcdURL
	if !embeddedEtcd(spec) {
		etcdURL = *spec.EtcdURL
	}
	cors := DefaultCORSAllowedOrigin
	if len(spec.CORSAllowedOriginList) > 0 {
		cors = strings.Join(spec.CORSAllowedOriginList, ",")
	}
	env := []corev1.EnvVar{
		{Name: EnvKubeAPIHost, Value: "0.0.0.0"},
		{Name: EnvKubeAPIPort, Value: strconv.Itoa(int(spec.KubeAPIServerPort))},
		{Name: EnvPort, Value: strconv.Itoa(int(spec.SimulatorServerPort))},
		{Name: EnvEtcdURL, Value: etcdURL},
		{Name: EnvCORSAllowedOriginList, Value: cors},
	}
	if spec.KubeSchedulerConfigurationPath != "" {
		env = append(env, corev1.EnvVar{Name: EnvKubeSchedulerConfigPath, Value: spec.KubeSchedulerConfigurationPath})
	}
	return corev1.Container{
		Name:  simv1alpha1.SimulatorContainerName,
		Image: spec.Image,
		Env:   env,
		Ports: []corev1.ContainerPort{
			{Name: KubeAPIServerPortName, ContainerPort: spec.KubeAPIServerPort, Protocol: corev1.ProtocolTCP},
			{Name: SimulatorPortName, ContainerPort: spec.SimulatorServerPort, Protocol: corev1.ProtocolTCP},
		},
		// A container has one readiness probe: the kube-apiserver port gates
		// startup (it opens first), the simulator server port readiness (it
		// opens last, once everything inside is up). Neither has a health endpoint.
		StartupProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(spec.KubeAPIServerPort)}},
			PeriodSeconds:    2,
			FailureThreshold: 150,
		},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:     corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(spec.SimulatorServerPort)}},
			PeriodSeconds:    5,
			FailureThreshold: 3,
		},
		Resources: simulatorResources(),
	}
}

func etcdContainer() corev1.Container {
	loopback := func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d", port) }
	return corev1.Container{
		Name:    simv1alpha1.EtcdContainerName,
		Image:   DefaultEtcdImage,
		Command: []string{"etcd"},
		Args: []string{
			"--name=simulator",
			"--data-dir=" + etcdDataDir,
			// Only the simulator, in the same Pod, may reach it.
			"--listen-client-urls=" + loopback(etcdClientPort),
			"--advertise-client-urls=" + loopback(etcdClientPort),
			"--listen-peer-urls=" + loopback(etcdPeerPort),
			"--initial-advertise-peer-urls=" + loopback(etcdPeerPort),
			"--initial-cluster=simulator=" + loopback(etcdPeerPort),
		},
		VolumeMounts: []corev1.VolumeMount{{Name: etcdDataVolume, MountPath: etcdDataDir}},
		Resources:    etcdResources(),
	}
}

// podHash hashes everything the controller renders into the Pod.
func podHash(pod *corev1.Pod) (string, error) {
	return hashJSON("the Pod", struct {
		Labels      map[string]string       `json:"labels"`
		Annotations map[string]string       `json:"annotations"`
		Owners      []metav1.OwnerReference `json:"owners"`
		Spec        corev1.PodSpec          `json:"spec"`
	}{pod.Labels, pod.Annotations, pod.OwnerReferences, pod.Spec})
}

// simulatorSpecHash hashes the spec fields that shape the Pod, as the user
// wrote them (no defaults): ingressFrom only shapes the NetworkPolicy.
func simulatorSpecHash(spec *simv1alpha1.SimulatorSpec) (string, error) {
	podShaping := spec.DeepCopy()
	podShaping.IngressFrom = nil
	return hashJSON("the Simulator spec", podShaping)
}

func hashJSON(what string, v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", what, err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8]), nil
}
