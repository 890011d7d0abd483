package operandrunner

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestSchedulerArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{
			name: "the operator's arguments",
			in:   []string{"--config=/etc/secondary-scheduler/config.yaml", "-v=2"},
			want: []string{"-v=2"},
		},
		{
			name: "serving certificate paths of the pod are dropped, TLS settings kept",
			in: []string{"--config=/etc/secondary-scheduler/config.yaml", "--tls-cert-file=/var/run/secrets/serving-cert/tls.crt",
				"--tls-private-key-file=/var/run/secrets/serving-cert/tls.key", "--tls-min-version=VersionTLS12"},
			want: []string{"--tls-min-version=VersionTLS12"},
		},
		{
			name: "--config as two arguments",
			in:   []string{"--config", "/etc/x.yaml", "--v=4"},
			want: []string{"--v=4"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := append(tc.want, "--config=/d/config.yaml", "--secure-port=0",
				"--authentication-kubeconfig=/d/kubeconfig", "--authorization-kubeconfig=/d/kubeconfig")
			if got := SchedulerArgs(tc.in, "/d/config.yaml", "/d/kubeconfig"); !reflect.DeepEqual(got, want) {
				t.Errorf("SchedulerArgs(%q) =\n%q, want\n%q", tc.in, got, want)
			}
		})
	}
}

func TestWriteConfigPointsAtTheKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	in := []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
		"clientConnection:\n  kubeconfig: \"\"\n  qps: 50\npodMaxBackoffSeconds: 9007199254740993\nprofiles:\n- schedulerName: secondary-scheduler\n")
	if err := WriteConfig(in, "/d/kubeconfig", path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "podMaxBackoffSeconds: 9007199254740993\n") {
		t.Errorf("a number changed on the way (a float64 holds 2^53+1 as 2^53):\n%s", data)
	}
	var got, want map[string]interface{}
	if err := yaml.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(in, &want); err != nil {
		t.Fatal(err)
	}
	want["clientConnection"].(map[string]interface{})["kubeconfig"] = "/d/kubeconfig"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("wrote %v, want %v", got, want)
	}
}

func TestBinaryFollowsTheImage(t *testing.T) {
	o := Options{KubeScheduler: "/bin/kube-scheduler", SchedulerPlugins: "/bin/scheduler-plugins"}
	for image, want := range map[string]string{
		"registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7":           "/bin/scheduler-plugins",
		"registry.k8s.io/scheduler-plugins/kube-scheduler@sha256:0123":       "/bin/scheduler-plugins",
		"registry.k8s.io/scheduler-plugins/kube-scheduler:v0.33.5@sha256:01": "/bin/scheduler-plugins",
		"registry.k8s.io/kube-scheduler:v1.36.2":                             "/bin/kube-scheduler",
		"quay.io/cniv/fluence:latest":                                        "/bin/kube-scheduler",
		"registry.k8s.io/scheduler-plugins/controller:v0.34.7":               "/bin/kube-scheduler",
		"localhost:5000/scheduler-plugins/kube-scheduler":                    "/bin/kube-scheduler",
	} {
		if got, err := o.Binary(image); err != nil || got != want {
			t.Errorf("Binary(%s) = %q, %v; want %q", image, got, err, want)
		}
	}
	o.SchedulerPlugins = ""
	if _, err := o.Binary("registry.k8s.io/scheduler-plugins/kube-scheduler:v0.34.7"); err == nil || !strings.Contains(err.Error(), "hack/controlplane/build.sh") {
		t.Errorf("without the binary: %v, want an error saying how to build it", err)
	}
}
