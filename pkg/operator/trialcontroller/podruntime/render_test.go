package podruntime

import (
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/clientcmd"
	psapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"

	"github.com/openshift/secondary-scheduler-operator/pkg/internal/golden"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

var testOwner = metav1.OwnerReference{APIVersion: "operator.openshift.io/v1", Kind: "SecondaryScheduler", Name: "cluster",
	UID: "0a1b2c3d-0000-4000-8000-000000000001", Controller: ptrTo(true), BlockOwnerDeletion: ptrTo(true)}

func ptrTo[T any](v T) *T { return &v }

// fakeCredentials are fixed, so the golden file is stable.
var fakeCredentials = &credentials{ca: []byte("CA PEM\n"), tlsCert: []byte("SERVING CERT PEM\n"), tlsKey: []byte("SERVING KEY PEM\n"),
	clientCert: []byte("ADMIN CERT PEM\n"), clientKey: []byte("ADMIN KEY PEM\n"), saKey: []byte("SA KEY PEM\n"), saPub: []byte("SA PUBLIC KEY PEM\n")}

func testInputs() podInputs {
	return podInputs{namespace: "openshift-secondary-scheduler", trialID: "0123456789ab", owner: testOwner,
		arm: trial.Arm{Name: "candidate", Args: []string{"--feature-gates=SchedulerQueueingHints=true", "-v=4"}, Image: "registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7", Command: []string{"/bin/kube-scheduler"},
			Config: []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection:\n  leaderElect: true\nprofiles:\n- schedulerName: secondary-scheduler\n")},
		etcdImage: DefaultEtcdImage, apiServerImage: DefaultAPIServerImage, creds: fakeCredentials, lifetime: 6 * time.Minute}
}

// TestRenderArmGolden pins the objects of an arm (the Secret's data as text).
// UPDATE_GOLDEN=1 go test ./pkg/trial/ rewrites testdata/candidate.yaml.
func TestRenderArmGolden(t *testing.T) {
	objs, err := renderArm(testInputs())
	if err != nil {
		t.Fatal(err)
	}
	secret := objs.secret.DeepCopy()
	secret.StringData = map[string]string{}
	for k, v := range secret.Data {
		secret.StringData[k] = string(v)
	}
	secret.Data = nil
	golden.Compare(t, filepath.Join("testdata", "candidate.yaml"), golden.YAML(t, secret, objs.pod, objs.policy))
}

func TestRenderArmPod(t *testing.T) {
	in := testInputs()
	in.lifetime = 6*time.Minute + 500*time.Millisecond
	objs, err := renderArm(in)
	if err != nil {
		t.Fatal(err)
	}
	pod := objs.pod
	spec := pod.Spec
	// The kubelet stops an arm its operator forgot: never before the lifetime.
	if d := spec.ActiveDeadlineSeconds; d == nil || *d != 361 {
		t.Errorf("activeDeadlineSeconds %v, want 361 (the lifetime, rounded up)", d)
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken || spec.EnableServiceLinks == nil || *spec.EnableServiceLinks ||
		spec.RestartPolicy != corev1.RestartPolicyNever || spec.ServiceAccountName != "" || len(spec.NodeSelector) > 0 || len(spec.Tolerations) > 0 {
		t.Errorf("want no token, no service links, restartPolicy Never, no placement; got %+v", spec)
	}
	results := policy.AggregateCheckResults(mustEvaluator(t).EvaluatePod(
		psapi.LevelVersion{Level: psapi.LevelRestricted, Version: psapi.LatestVersion()}, &pod.ObjectMeta, &spec))
	if !results.Allowed {
		t.Errorf("Pod Security restricted forbids the trial Pod: %s", results.ForbiddenDetail())
	}
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("container %s: the root file system is writable", c.Name)
		}
		for _, m := range c.VolumeMounts {
			if m.Name == "trial" && (m.MountPath != mountPath || !m.ReadOnly) {
				t.Errorf("container %s mounts the Secret at %s (read-only %t), want %s read-only", c.Name, m.MountPath, m.ReadOnly, mountPath)
			}
		}
		// Every file a container is pointed at is a key of the Secret.
		for _, arg := range c.Args {
			for _, f := range regexp.MustCompile(mountPath+`/([a-z.]+)`).FindAllStringSubmatch(arg, -1) {
				if _, ok := objs.secret.Data[f[1]]; !ok {
					t.Errorf("container %s: %s names %s, which the Secret lacks", c.Name, arg, f[1])
				}
			}
		}
	}
	want := map[string]string{EtcdContainer: DefaultEtcdImage, APIServerContainer: DefaultAPIServerImage}
	for _, c := range spec.InitContainers {
		if c.Image != want[c.Name] || c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			t.Errorf("init container %s: image %s, restartPolicy %v; want %s, a native sidecar", c.Name, c.Image, c.RestartPolicy, want[c.Name])
		}
	}
	if len(spec.InitContainers) != 2 || spec.InitContainers[0].Name != EtcdContainer {
		t.Errorf("init containers %v, want etcd then kube-apiserver", spec.InitContainers)
	}
	s := spec.Containers[0]
	if len(spec.Containers) != 1 || s.Name != SchedulerContainer || s.Image != testInputs().arm.Image ||
		!reflect.DeepEqual(s.Command, []string{"/bin/kube-scheduler"}) || s.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
		t.Errorf("the scheduler container is %+v", s)
	}
	if spec.Volumes[0].Secret == nil || spec.Volumes[0].Secret.SecretName != objs.secret.Name {
		t.Errorf("volume %+v, want the arm's Secret %s", spec.Volumes[0], objs.secret.Name)
	}
	in = testInputs()
	in.arm.Command = nil
	if objs, _ := renderArm(in); !reflect.DeepEqual(objs.pod.Spec.Containers[0].Command, []string{"kube-scheduler"}) {
		t.Errorf("an arm without a command runs %v, want the operand's kube-scheduler", objs.pod.Spec.Containers[0].Command)
	}
}

func mustEvaluator(t *testing.T) policy.Evaluator {
	e, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestRenderArmMetadata(t *testing.T) {
	objs, err := renderArm(testInputs())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{AppNameLabel: AppName, "app.kubernetes.io/managed-by": "secondary-scheduler-operator",
		ArmLabel: "candidate", TrialLabel: "0123456789ab"}
	for _, m := range []metav1.ObjectMeta{objs.secret.ObjectMeta, objs.pod.ObjectMeta, objs.policy.ObjectMeta} {
		if m.Name != "secondary-scheduler-trial-candidate" || m.Namespace != "openshift-secondary-scheduler" {
			t.Errorf("object %s/%s, want openshift-secondary-scheduler/secondary-scheduler-trial-candidate", m.Namespace, m.Name)
		}
		if !reflect.DeepEqual(m.Labels, want) {
			t.Errorf("%s: labels %v, want %v", m.Name, m.Labels, want)
		}
		if len(m.OwnerReferences) != 1 || m.OwnerReferences[0] != testOwner {
			t.Errorf("%s: owners %+v, want the SecondaryScheduler", m.Name, m.OwnerReferences)
		}
	}
	if objs.secret.Type != corev1.SecretTypeOpaque {
		t.Errorf("Secret type %s", objs.secret.Type)
	}
}

func TestRenderArmNetworkPolicy(t *testing.T) {
	objs, err := renderArm(testInputs())
	if err != nil {
		t.Fatal(err)
	}
	p := objs.policy.Spec
	sel, err := metav1.LabelSelectorAsSelector(&p.PodSelector)
	if err != nil || sel.Empty() || !sel.Matches(labels.Set(objs.pod.Labels)) {
		t.Errorf("the policy's pod selector %v (%v) does not select the trial Pod alone", p.PodSelector, err)
	}
	other := Labels("candidate", "ba9876543210")
	if sel.Matches(labels.Set(other)) {
		t.Errorf("the policy's pod selector %v selects another trial's Pod", p.PodSelector)
	}
	tcp := corev1.ProtocolTCP
	port, metrics, etcd := intstr.FromInt32(SandboxPort), intstr.FromInt32(SchedulerMetricsPort), intstr.FromInt32(SandboxEtcdPort)
	want := []networkingv1.NetworkPolicyIngressRule{{
		From: []networkingv1.NetworkPolicyPeer{{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "openshift-secondary-scheduler-operator"}},
			PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "secondary-scheduler-operator"}},
		}},
		Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port}, {Protocol: &tcp, Port: &metrics}, {Protocol: &tcp, Port: &etcd}},
	}}
	if !reflect.DeepEqual(p.Ingress, want) {
		t.Errorf("the policy admits %+v, want only the operator's pods on TCP %d, %d and %d", p.Ingress, SandboxPort, SchedulerMetricsPort, SandboxEtcdPort)
	}
	// Egress among the policy's types, with no rule: everything out is denied.
	if !reflect.DeepEqual(p.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) || len(p.Egress) > 0 {
		t.Errorf("the policy's types are %v with egress rules %+v, want Ingress and Egress with none", p.PolicyTypes, p.Egress)
	}
}

// The Pod needs no egress: every address its containers and files name is
// 127.0.0.1, so nothing resolves a name or leaves the Pod (an arm's extender
// aside, which the policy keeps out of reach).
func TestRenderArmTalksOnlyOverLoopback(t *testing.T) {
	objs, err := renderArm(testInputs())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range append(append([]corev1.Container{}, objs.pod.Spec.InitContainers...), objs.pod.Spec.Containers...) {
		texts = append(texts, c.Args...)
		for _, e := range c.Env {
			texts = append(texts, e.Value)
		}
	}
	for _, k := range []string{kubeconfigKey, configKey} {
		texts = append(texts, string(objs.secret.Data[k]))
	}
	urls := regexp.MustCompile(`[a-z]+://([^/:\s",]+)`)
	seen := 0
	for _, text := range texts {
		for _, m := range urls.FindAllStringSubmatch(text, -1) {
			seen++
			// The service-account issuer is a name in tokens, never dialled;
			// etcd's TLS port, for the operator, is listened on, never dialled.
			listens := m[1] == "0.0.0.0" && strings.HasPrefix(text, "--listen-client-urls=")
			if m[1] != "127.0.0.1" && m[0] != "https://"+SandboxServerName && !listens {
				t.Errorf("%q names %s: the trial Pod would need egress (and DNS) to reach it", text, m[1])
			}
		}
	}
	if seen < 4 {
		t.Errorf("found %d URLs in the Pod's arguments and files, want etcd's, kube-apiserver's and the kubeconfig's", seen)
	}
}

func TestRenderArmSecret(t *testing.T) {
	objs, err := renderArm(testInputs())
	if err != nil {
		t.Fatal(err)
	}
	d := objs.secret.Data
	var config map[string]any
	if err := yaml.Unmarshal(d[configKey], &config); err != nil {
		t.Fatal(err)
	}
	if kc := config["clientConnection"].(map[string]any)["kubeconfig"]; kc != "/etc/trial/kubeconfig" {
		t.Errorf("config.yaml points at kubeconfig %v, want /etc/trial/kubeconfig", kc)
	}
	if le := config["leaderElection"].(map[string]any); le["leaderElect"] != false {
		t.Errorf("config.yaml elects a leader: %v", le)
	}
	kc, err := clientcmd.Load(d[kubeconfigKey])
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.NewDefaultClientConfig(*kc, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:6443" || string(cfg.CAData) != string(fakeCredentials.ca) ||
		string(cfg.CertData) != string(fakeCredentials.clientCert) || string(cfg.KeyData) != string(fakeCredentials.clientKey) || cfg.BearerToken != "" {
		t.Errorf("the kubeconfig points at %s with CA %q, client certificate %q and key %q (token %q); want 127.0.0.1:6443 with the admin certificate",
			cfg.Host, cfg.CAData, cfg.CertData, cfg.KeyData, cfg.BearerToken)
	}
	for _, k := range []string{caKey, tlsCertKey, tlsKeyKey, saKeyKey, saPubKey} {
		if len(d[k]) == 0 {
			t.Errorf("the Secret lacks %s", k)
		}
	}
	// The admin certificate is the only credential: no static token the
	// API server would accept past the trial.
	if len(d) != 7 {
		t.Errorf("the Secret holds %d keys, want 7 (CA, serving certificate and key, service-account keys, kubeconfig, config.yaml)", len(d))
	}
}

func TestRenderArmRefuses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*podInputs)
		want   string
	}{
		{"no scheduler image", func(in *podInputs) { in.arm.Image = "" }, `arm "candidate"'s image is empty`},
		{"no etcd image", func(in *podInputs) { in.etcdImage = "" }, "the etcd image is empty"},
		{"no trial id", func(in *podInputs) { in.trialID = "" }, "trial id is empty"},
		{"a trial id no label takes", func(in *podInputs) { in.trialID = "a b" }, `trial id "a b"`},
		{"an arm name no object takes", func(in *podInputs) { in.arm.Name = "Candidate" }, `arm name "Candidate"`},
		{"no lifetime", func(in *podInputs) { in.lifetime = 0 }, `arm "candidate" has no lifetime (Runtime.Lifetime)`},
		{"a configuration that is no YAML", func(in *podInputs) { in.arm.Config = []byte("[") }, "candidate: the scheduler configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := testInputs()
			tc.mutate(&in)
			if _, err := renderArm(in); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("renderArm: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// On plain Kubernetes the Pod names a non-root user, which the upstream
// images (root by default) need under runAsNonRoot; on OpenShift it names
// none, so that the restricted SCC assigns the namespace's.
func TestRenderArmRunAsUser(t *testing.T) {
	in := testInputs()
	objs, err := renderArm(in)
	if err != nil {
		t.Fatal(err)
	}
	if sc := objs.pod.Spec.SecurityContext; sc.RunAsUser != nil || sc.FSGroup != nil {
		t.Errorf("no user asked for, yet the Pod runs as %v (fsGroup %v)", sc.RunAsUser, sc.FSGroup)
	}
	user := NonRootUser
	in.runAsUser = &user
	if objs, err = renderArm(in); err != nil {
		t.Fatal(err)
	}
	sc := objs.pod.Spec.SecurityContext
	if sc.RunAsUser == nil || *sc.RunAsUser != NonRootUser || sc.FSGroup == nil || *sc.FSGroup != NonRootUser || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("securityContext %+v, want user, group and fsGroup %d with runAsNonRoot", sc, NonRootUser)
	}
	spec := objs.pod.Spec
	if results := policy.AggregateCheckResults(mustEvaluator(t).EvaluatePod(
		psapi.LevelVersion{Level: psapi.LevelRestricted, Version: psapi.LatestVersion()}, &objs.pod.ObjectMeta, &spec)); !results.Allowed {
		t.Errorf("Pod Security restricted forbids the trial Pod with a user: %s", results.ForbiddenDetail())
	}
}

// Every container is limited in memory and every scratch volume in size, at
// least to what it holds at the snapshot bound (bindata/assets/trial/pod.yaml
// says why): when trial.MaxSnapshotBytes grows, this fails until they do.
func TestRenderArmLimits(t *testing.T) {
	objs, err := renderArm(testInputs())
	if err != nil {
		t.Fatal(err)
	}
	bound := int64(trial.MaxSnapshotBytes)
	// decoded is how many times its protobuf size a snapshot takes decoded.
	const decoded = 12
	atLeast := map[string]struct {
		bytes int64
		why   string
	}{
		EtcdContainer:      {4 * bound, "its database (twice the snapshot in pages) and its raft log"},
		APIServerContainer: {2 * decoded * bound, "the watch cache of the snapshot decoded, twice over for Go's collector"},
		SchedulerContainer: {2 * decoded * bound, "its informers' copy of the snapshot decoded, twice over for Go's collector"},
	}
	spec := objs.pod.Spec
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		limit, request := c.Resources.Limits.Memory(), c.Resources.Requests.Memory()
		if limit.IsZero() || limit.Cmp(*request) < 0 {
			t.Errorf("container %s: memory limit %s, request %s; want a limit above the request", c.Name, limit, request)
		}
		if want, ok := atLeast[c.Name]; !ok || limit.Value() < want.bytes {
			t.Errorf("container %s: memory limit %s, want at least %d MiB: %s", c.Name, limit, want.bytes>>20, want.why)
		}
		if _, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
			t.Errorf("container %s has a CPU limit: a throttled arm only ends undecided", c.Name)
		}
	}
	emptyDirs := 0
	for _, v := range spec.Volumes {
		if v.EmptyDir == nil {
			continue
		}
		emptyDirs++
		if v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.Value() < 4*bound {
			t.Errorf("emptyDir %s: sizeLimit %v, want at least %d MiB (etcd's database and write-ahead log at the snapshot bound)",
				v.Name, v.EmptyDir.SizeLimit, 4*bound>>20)
		}
	}
	if emptyDirs != 1 {
		t.Errorf("%d emptyDir volumes, want 1 (etcd's data)", emptyDirs)
	}
}

// The sandbox's kube-apiserver serves Workloads and PodGroups only for a
// snapshot that holds them, after the asset's own flags: one that does not
// know their API version or feature gate would refuse to start on them.
func TestRenderArmWorkloadAPI(t *testing.T) {
	apiServerArgs := func(gangVersion string) []string {
		t.Helper()
		in := testInputs()
		in.arm.Holds.GangVersion = gangVersion
		objs, err := renderArm(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range objs.pod.Spec.InitContainers {
			if c.Name == APIServerContainer {
				return c.Args
			}
		}
		t.Fatal("no kube-apiserver container")
		return nil
	}
	plain, gangs := apiServerArgs(""), apiServerArgs("v1beta1")
	for _, a := range plain {
		if strings.HasPrefix(a, "--runtime-config=") || strings.HasPrefix(a, "--feature-gates=") {
			t.Errorf("without Workloads or PodGroups the kube-apiserver gets %s", a)
		}
	}
	want := append(slices.Clone(plain), "--runtime-config=scheduling.k8s.io/v1beta1=true", "--feature-gates=GenericWorkload=true")
	if !slices.Equal(gangs, want) {
		t.Errorf("with Workloads or PodGroups the kube-apiserver's args are\n%q, want\n%q", gangs, want)
	}
}
