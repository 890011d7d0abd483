package simulatorrender

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
)

// Validate checks what the controller needs of a Simulator. The CRD's schema and
// CEL rules reject most of it at admission already; this is the same check in Go
// (defence in depth: an older CRD, a rule the API server skipped) plus what only
// the controller knows, such as names it derives. Each error names the field and
// says what a valid value looks like.
func Validate(sim *simv1alpha1.Simulator) field.ErrorList {
	if errs := validateSpecSize(sim); len(errs) > 0 {
		return errs // the rest of an oversized spec may not have reached the cache
	}
	spec := withDefaults(&sim.Spec)
	specPath := field.NewPath("spec")
	errs := validateName(sim.Name)
	errs = append(errs, validatePorts(spec, specPath)...)
	errs = append(errs, validateLocations(spec, specPath)...)
	for i, peer := range spec.IngressFrom {
		errs = append(errs, validatePeer(peer, specPath.Child("ingressFrom").Index(i))...)
	}
	return append(errs, validateInitContainers(spec, specPath)...)
}

// validateName checks the Simulator's name, which its Service takes.
func validateName(name string) field.ErrorList {
	msgs := validation.IsDNS1035Label(name)
	if len(msgs) == 0 {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), name,
		"names the Service in front of the simulator, so it must be a DNS-1035 label ("+strings.Join(msgs, "; ")+
			"): create the Simulator again under such a name")}
}

// validatePorts checks that both servers' ports are ports, apart, and free of
// what else listens in the Pod: the etcd container, and the secure port of the
// kube-apiserver inside a KEP-159 simulator.
func validatePorts(spec *simv1alpha1.SimulatorSpec, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	ports := []struct {
		name  string
		value int32
	}{
		{"kubeAPIServerPort", spec.KubeAPIServerPort},
		{"simulatorServerPort", spec.SimulatorServerPort},
	}
	for _, p := range ports {
		fp := specPath.Child(p.name)
		switch {
		case p.value < 1 || p.value > 65535:
			errs = append(errs, field.Invalid(fp, p.value, "must be a port number between 1 and 65535"))
		case embeddedEtcd(spec) && (p.value == etcdClientPort || p.value == etcdPeerPort):
			errs = append(errs, field.Invalid(fp, p.value,
				fmt.Sprintf("is used by the Pod's etcd container (ports %d and %d): choose another port, or set etcdURL", etcdClientPort, etcdPeerPort)))
		case p.value == embeddedSecurePort && kepLayoutImage(spec.Image):
			errs = append(errs, field.Invalid(fp, p.value,
				fmt.Sprintf("is the secure port of the kube-apiserver that %s runs inside its container, on every address and not configurable (the simulator exits with \"address already in use\"): choose another port", spec.Image)))
		}
	}
	if spec.KubeAPIServerPort == spec.SimulatorServerPort {
		errs = append(errs, field.Invalid(specPath.Child("simulatorServerPort"), spec.SimulatorServerPort,
			"must differ from kubeAPIServerPort: both servers listen in the same Pod"))
	}
	return errs
}

// validateLocations checks where the simulator finds things: its scheduler
// configuration file, its etcd, the origins it admits and its image.
func validateLocations(spec *simv1alpha1.SimulatorSpec, specPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.KubeSchedulerConfigurationPath != "" && !path.IsAbs(spec.KubeSchedulerConfigurationPath) {
		errs = append(errs, field.Invalid(specPath.Child("kubeSchedulerConfigurationPath"), spec.KubeSchedulerConfigurationPath,
			"must be an absolute path inside the simulator container, such as /etc/simulator/scheduler.yaml (mount it with podTemplate)"))
	}
	if !embeddedEtcd(spec) {
		if msg := checkURL(*spec.EtcdURL, true); msg != "" {
			errs = append(errs, field.Invalid(specPath.Child("etcdURL"), *spec.EtcdURL,
				msg+": give an http:// or https:// URL such as http://etcd.example:2379, or leave it empty for an etcd container in the Pod"))
		}
	}
	for i, origin := range spec.CORSAllowedOriginList {
		if msg := checkURL(origin, false); msg != "" {
			errs = append(errs, field.Invalid(specPath.Child("corsAllowedOriginList").Index(i), origin,
				msg+": give an absolute URL such as http://localhost:3000 (the simulator ignores the whole list when one entry is not)"))
		}
	}
	if strings.TrimSpace(spec.Image) != spec.Image || strings.ContainsAny(spec.Image, " \t\n") {
		errs = append(errs, field.Invalid(specPath.Child("image"), spec.Image, "must be an image reference without spaces"))
	}
	return errs
}

// validateInitContainers checks that no init container of the podTemplate
// takes the name of a generated container.
func validateInitContainers(spec *simv1alpha1.SimulatorSpec, specPath *field.Path) field.ErrorList {
	if spec.PodTemplate == nil {
		return nil
	}
	var errs field.ErrorList
	reserved := map[string]bool{simv1alpha1.SimulatorContainerName: true, simv1alpha1.EtcdContainerName: embeddedEtcd(spec)}
	for i, c := range spec.PodTemplate.Spec.InitContainers {
		if reserved[c.Name] {
			errs = append(errs, field.Invalid(specPath.Child("podTemplate", "spec", "initContainers").Index(i).Child("name"), c.Name,
				"is the name of a generated container: override it under podTemplate.spec.containers, or rename this init container"))
		}
	}
	return errs
}

// validatePeer checks a NetworkPolicy peer as the API server does for a
// NetworkPolicy's ingress.from: an ipBlock alone or selectors, valid label
// selectors, and an ipBlock whose exceptions lie inside its CIDR. The operator
// reports these on the Simulator rather than as a failed NetworkPolicy create.
func validatePeer(peer networkingv1.NetworkPolicyPeer, fp *field.Path) field.ErrorList {
	var errs field.ErrorList
	selectors := peer.PodSelector != nil || peer.NamespaceSelector != nil
	switch {
	case peer.IPBlock == nil && !selectors:
		return append(errs, field.Required(fp, "set podSelector, namespaceSelector (for example {} for every namespace) or ipBlock"))
	case peer.IPBlock != nil && selectors:
		return append(errs, field.Forbidden(fp, "ipBlock cannot be combined with podSelector or namespaceSelector: give them as separate entries"))
	}
	opts := metav1validation.LabelSelectorValidationOptions{}
	if peer.PodSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(peer.PodSelector, opts, fp.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(peer.NamespaceSelector, opts, fp.Child("namespaceSelector"))...)
	}
	if block := peer.IPBlock; block != nil {
		cidr, msg := parseCIDR(block.CIDR)
		if msg != "" {
			return append(errs, field.Invalid(fp.Child("ipBlock", "cidr"), block.CIDR, msg+": give a CIDR such as 10.0.0.0/16 or 2001:db8::/64"))
		}
		for j, except := range block.Except {
			ep := fp.Child("ipBlock", "except").Index(j)
			exceptNet, msg := parseCIDR(except)
			switch {
			case msg != "":
				errs = append(errs, field.Invalid(ep, except, msg+": give a CIDR such as 10.0.1.0/24"))
			case !within(exceptNet, cidr):
				errs = append(errs, field.Invalid(ep, except, fmt.Sprintf("must be a strict subset of ipBlock.cidr %s", block.CIDR)))
			}
		}
	}
	return errs
}

// parseCIDR accepts what the API server takes in a new NetworkPolicy: a CIDR in
// canonical form (no bits set beyond the prefix) and no IPv4-mapped IPv6
// address. It returns why s is not one, or "".
func parseCIDR(s string) (*net.IPNet, string) {
	ip, ipNet, err := net.ParseCIDR(s)
	switch {
	case err != nil:
		return nil, "is not a CIDR"
	case !ip.Equal(ipNet.IP):
		return nil, fmt.Sprintf("has bits set beyond the prefix length (the network is %s)", ipNet)
	case ip.To4() != nil && strings.Contains(s, ":"):
		return nil, "must not be an IPv4-mapped IPv6 address"
	}
	return ipNet, ""
}

// within is whether inner is a strict subset of outer.
func within(inner, outer *net.IPNet) bool {
	innerOnes, innerBits := inner.Mask.Size()
	outerOnes, outerBits := outer.Mask.Size()
	return innerBits == outerBits && innerOnes > outerOnes && outer.Contains(inner.IP)
}

// checkURL returns why s is not an absolute URL with a host (and, when httpOnly,
// an http or https scheme), or "" when it is one. Like the simulator, which
// parses each origin with url.ParseRequestURI after splitting the list on commas.
func checkURL(s string, httpOnly bool) string {
	if strings.ContainsAny(s, ", \t\n") {
		return "must not contain commas or spaces"
	}
	u, err := url.ParseRequestURI(s)
	if err != nil {
		return "is not a URL"
	}
	switch {
	case u.Scheme == "" || u.Host == "":
		return "must be an absolute URL with a scheme and a host"
	case httpOnly && u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("has scheme %q", u.Scheme)
	}
	return ""
}

// embeddedSecurePort is where the kube-apiserver inside a KEP-159 simulator
// (simulator-backend v0.1.x) serves TLS: kube-apiserver's default, which the
// simulator neither sets nor lets its environment set. KUBE_API_PORT is a
// plain-HTTP proxy in front of it.
const embeddedSecurePort = 6443

// kepLayoutImage says whether image is a simulator-backend v0.1.x, the
// releases with KEP-159's single-container layout.
func kepLayoutImage(image string) bool {
	return strings.HasPrefix(image, kepLayoutImagePrefix)
}

const kepLayoutImagePrefix = "registry.k8s.io/scheduler-simulator/simulator-backend:v0.1."
