package ctl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/names"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
	"github.com/openshift/secondary-scheduler-operator/pkg/trial"
)

// trialArms are the current scheduler (as it serves) and the candidate (the
// rendered objects), each with its binary: the flag's, else the local build
// of its image.
func trialArms(o *TrialOptions, binDir string, current trial.Arm, objs *render.Objects) (trial.Arm, trial.Arm, error) {
	current.Name, current.Binary = "current", o.Current
	a := rollout.TrialArm(objs.Deployment, "")
	candidate := trial.Arm{Name: "candidate", Binary: o.Candidate, Image: a.Image, Command: a.Command, Args: a.Args,
		Config: []byte(objs.ConfigMap.Data[names.ConfigKey])}
	for _, a := range []struct {
		arm  *trial.Arm
		flag string
	}{{&current, "--current-scheduler"}, {&candidate, "--candidate-scheduler"}} {
		if a.arm.Binary == "" {
			var err error
			if a.arm.Binary, err = schedulerBinary(binDir, a.arm.Image); err != nil {
				return trial.Arm{}, trial.Arm{}, fmt.Errorf("%s: %w", a.flag, err)
			}
		}
	}
	return current, candidate, nil
}

// schedulerBinary is the local build of an image: scheduler-plugins' for its
// images, kube-scheduler otherwise; in binDir, or else on $PATH.
func schedulerBinary(binDir, image string) (string, error) {
	name := "kube-scheduler"
	if strings.Contains(image, "/scheduler-plugins/") {
		name = "scheduler-plugins"
	}
	p := filepath.Join(binDir, name)
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		return p, nil
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("image %s runs %s, which is neither in %s nor on $PATH; name a binary", image, name, binDir)
}

// trialBinDir resolves --bin-dir's default.
func trialBinDir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if d := os.Getenv("KUBEBUILDER_ASSETS"); d != "" {
		return d, nil
	}
	var candidates []string
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			candidates = append(candidates, filepath.Join(dir, "_output", "controlplane", "bin"))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "..", "controlplane", "bin"))
	}
	for _, d := range candidates {
		if fi, err := os.Stat(filepath.Join(d, "kube-apiserver")); err == nil && !fi.IsDir() {
			return d, nil
		}
	}
	return "", errors.New("--bin-dir: no kube-apiserver found in _output/controlplane/bin of the working directory's repository " +
		"nor beside this executable; build them with hack/controlplane/build.sh or name the directory")
}
