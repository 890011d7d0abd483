package operandrunner

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	simv1alpha1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/simulation/v1alpha1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/simulatorrender"
)

// The Pod the operator renders for a Simulator with a configuration mounted
// through podTemplate, as the harness runs it: the environment and arguments
// are the containers' own (the pod has its own network namespace, so ports
// stay), except paths under a volume mount, which go to the volume's directory.
func TestSimulatorRewrite(t *testing.T) {
	sim := &simv1alpha1.Simulator{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"},
		Spec: simv1alpha1.SimulatorSpec{
			KubeSchedulerConfigurationPath: "/etc/simulator/scheduler.yaml",
			PodTemplate: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "simulator", VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/simulator"}}}},
				Volumes:    []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}},
			}},
		},
	}
	r, err := simulatorrender.Render(simulatorrender.Inputs{Simulator: sim})
	if err != nil {
		t.Fatal(err)
	}
	kube := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}, Data: map[string]string{"scheduler.yaml": "x"}})
	sp, err := ReadSimulatorPod(context.Background(), kube, r.Pod)
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Volumes["config"].files["scheduler.yaml"]; got != "x" {
		t.Errorf("the ConfigMap volume's file: %q, want the ConfigMap's data", got)
	}
	n := &simulatorNetwork{dir: "/host/pod"}
	env := map[string]string{}
	rw := n.rewriter(sp.Simulator)
	for _, e := range sp.Simulator.Env {
		env[e.Name] = rw(e.Value)
	}
	want := map[string]string{
		"KUBE_API_HOST": "0.0.0.0", "KUBE_API_PORT": "3131", "PORT": "1212",
		"KUBE_SCHEDULER_SIMULATOR_ETCD_URL": "http://127.0.0.1:2379",
		"KUBE_SCHEDULER_CONFIG_PATH":        filepath.Join("/host/pod/volumes/config", "scheduler.yaml"),
		"CORS_ALLOWED_ORIGIN_LIST":          "http://localhost:3000",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s=%q, want %q", k, env[k], v)
		}
	}
	var args []string
	erw := n.rewriter(sp.Etcd)
	for _, a := range sp.Etcd.Args {
		args = append(args, rewriteArg(a, erw))
	}
	joined := strings.Join(args, " ")
	for _, w := range []string{"--data-dir=/host/pod/volumes/etcd-data", "--listen-client-urls=http://127.0.0.1:2379",
		"--initial-cluster=simulator=http://127.0.0.1:2380"} {
		if !strings.Contains(joined, w) {
			t.Errorf("etcd args %q lack %q", joined, w)
		}
	}
}

// A sandbox is a network namespace of its own: a port taken on the host is
// free in it, and the forward reaches what listens in it.
func TestSandboxForwardsIntoItsNetworkNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a network namespace needs CAP_SYS_ADMIN")
	}
	hostListener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hostListener.Close()
	port := hostListener.Addr().(*net.TCPAddr).Port

	sb, err := newSandbox()
	if err != nil {
		t.Fatal(err)
	}
	defer sb.close()
	// What kube-apiserver needs to choose an address: a default route, and an
	// address on its interface.
	if err := sb.do(func() error {
		routes, err := os.ReadFile("/proc/thread-self/net/route")
		if err != nil {
			return err
		}
		if !strings.Contains(string(routes), "lo\t00000000\t00000000") {
			return fmt.Errorf("no default route:\n%s", routes)
		}
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return err
		}
		if !strings.Contains(fmt.Sprint(addrs), "10.244.0.2/32") {
			return fmt.Errorf("addresses %v lack the pod IP", addrs)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var inside net.Listener
	if err := sb.do(func() (err error) {
		inside, err = net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", port))
		return err
	}); err != nil {
		t.Fatalf("the host's port %d is taken inside the sandbox too: %v", port, err)
	}
	defer inside.Close()
	go func() {
		c, err := inside.Accept()
		if err == nil {
			_, _ = c.Write([]byte("from inside"))
			c.Close()
		}
	}()
	addr, err := sb.forward(int32(port))
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "from inside" {
		t.Fatalf("through the forward: %q, %v; want %q", got, err, "from inside")
	}
}

func TestSimulatorBinaryFollowsTheImage(t *testing.T) {
	o := SimulatorOptions{Simulator: "/bin/simulator", Etcd: "/bin/etcd"}
	for image, want := range map[string]string{
		simv1alpha1.DefaultImage:                                       "/bin/simulator",
		simulatorrender.DefaultEtcdImage:                               "/bin/etcd",
		"registry.k8s.io/scheduler-simulator/simulator-backend:v0.4.0": "",
		"example.com/simulator:v0.1.1":                                 "",
	} {
		got, err := o.binary(image)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("%s: %q, %v; want %q", image, got, err, want)
		}
	}
}
