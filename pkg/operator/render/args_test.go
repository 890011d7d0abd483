package render

import (
	"strings"
	"testing"

	secondaryschedulerv1 "github.com/openshift/secondary-scheduler-operator/pkg/apis/operator/v1"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render/problem"
)

func TestSchedulerArgs(t *testing.T) {
	const src = "SecondaryScheduler cluster: "
	tests := []struct {
		name    string
		command []string
		args    []string
		want    []string // substrings of the problems, in order; none: accepted
	}{
		{name: "no args"},
		{name: "verbosity and gates", args: []string{"-v=4", "--feature-gates=A=true", "--v", "6"}},
		{name: "underscores read as dashes", args: []string{"--logging_format=json"}},
		{name: "boolean alone", args: []string{"--profiling"}},
		{name: "value of a flag that starts with a dash", args: []string{"--v", "-1"}},
		{name: "config", args: []string{"--config=/x"},
			want: []string{src + "spec.schedulerContainer.args[0]: --config is the operator's"}},
		{name: "lease name, underscores, single dash", args: []string{"-leader_elect_resource_name=kube-scheduler"},
			want: []string{"spec.schedulerContainer.args[0]: --leader-elect-resource-name is the operator's and cannot be set here: leader election uses the operator's lease"}},
		{name: "lease namespace as two arguments", args: []string{"-v=2", "--leader-elect-resource-namespace", "kube-system"},
			want: []string{"spec.schedulerContainer.args[1]: --leader-elect-resource-namespace is the operator's"}},
		{name: "identity", args: []string{"--kubeconfig=/k", "--master=https://x", "--authentication-kubeconfig=/k", "--authorization-kubeconfig=/k"},
			want: []string{"args[0]: --kubeconfig", "args[1]: --master", "args[2]: --authentication-kubeconfig", "args[3]: --authorization-kubeconfig"}},
		{name: "misspelt", args: []string{"--leader-elec=false"},
			want: []string{"spec.schedulerContainer.args[0]: --leader-elec is not a kube-scheduler flag"}},
		{name: "positional", args: []string{"run"},
			want: []string{"spec.schedulerContainer.args[0]: kube-scheduler takes no positional arguments"}},
		{name: "a boolean takes no separate value", args: []string{"--profiling", "false"},
			want: []string{"args[1]: kube-scheduler takes no positional arguments"}},
		{name: "after the terminator", args: []string{"--", "x"},
			want: []string{"args[1]: kube-scheduler takes no positional arguments"}},
		{name: "command override: unknown flags are the command's", command: []string{"/bin/fluence"}, args: []string{"--policy=x", "pos"}},
		{name: "command override: owned flags still refused", command: []string{"/bin/sh", "-c", "exec kube-scheduler", "--config=/x"},
			args: []string{"--leader-elect=false"},
			want: []string{"spec.schedulerContainer.command[3]: --config is the operator's", "spec.schedulerContainer.args[0]: --leader-elect is the operator's"}},
		{name: "version exits", args: []string{"--version"},
			want: []string{"args[0]: --version is the operator's and cannot be set here: kube-scheduler would print or write something and exit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := withSpec(func(s *secondaryschedulerv1.SecondarySchedulerSpec) {
				s.SchedulerContainer = &secondaryschedulerv1.SchedulerContainer{Command: tt.command, Args: tt.args}
			})
			_, err := Render(in)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			ie, ok := err.(*InputError)
			if !ok {
				t.Fatalf("got %v, want an InputError", err)
			}
			if len(ie.Problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(ie.Problems), len(tt.want), err)
			}
			for i, w := range tt.want {
				if !strings.Contains(ie.Problems[i].String(), w) {
					t.Errorf("problem %d: %q does not contain %q", i, ie.Problems[i], w)
				}
			}
		})
	}
}

// TestOwnedFlagsAreSchedulerFlags keeps the owned list honest: a flag that is
// no kube-scheduler flag (a typo here) would guard nothing.
func TestOwnedFlagsAreSchedulerFlags(t *testing.T) {
	for name := range ownedFlags {
		if _, ok := knownFlags()[name]; !ok {
			t.Errorf("owned flag --%s is not in %s", name, KubeSchedulerFlagsAsset)
		}
	}
}

// TestDeploymentArgsAreAllowed: the flags the operator itself sets pass the
// check it holds users to, but --config, which only it may set.
func TestDeploymentArgsAreAllowed(t *testing.T) {
	in := minimalInputs()
	in.ServingCertAvailable = true
	objs, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range objs.Deployment.Spec.Template.Spec.Containers[0].Args {
		if !strings.HasPrefix(a, "--config=") {
			args = append(args, a)
		}
	}
	errs := &problem.List{}
	checkArgs("", "args", args, 0, true, errs)
	if err := inputError(errs, nil); err != nil {
		t.Errorf("the operator's own args %q: %v", args, err)
	}
}

func TestTrialArgs(t *testing.T) {
	got := TrialArgs([]string{"--feature-gates=A=true", "--config=/etc/x", "-v=4", "--tls-cert-file", "/certs/tls.crt",
		"--tls_private_key_file=/certs/tls.key", "--profiling", "--secure-port", "10259", "pos"})
	want := []string{"--feature-gates=A=true", "-v=4", "--profiling", "pos"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("TrialArgs = %q, want %q", got, want)
	}
}
