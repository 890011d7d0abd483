package ctl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/secondary-scheduler-operator/pkg/operator/gather"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/render"
	"github.com/openshift/secondary-scheduler-operator/pkg/operator/rollout"
)

// errRefused is diff's exit status when the operator would refuse the input.
var errRefused = errors.New("the operator would apply nothing of this input")

// printRefusal prints the controller's decision on an input Render refused
// for spec.rbac, and returns errRefused; other errors are returned as they are.
func printRefusal(w io.Writer, err error) error {
	var refused *render.RBACRefusedError
	if !errors.As(err, &refused) {
		return err
	}
	fmt.Fprintln(w, "Decision: would be refused: RBACRefused. Nothing would be applied, and granted rules the ceiling no longer holds would be revoked:")
	for _, p := range refused.Problems {
		fmt.Fprintln(w, "  "+p)
	}
	return errRefused
}

// printDecision prints what the controller would decide for the Deployment:
// the same rollout.Decide, on the same gathered inputs.
func printDecision(w io.Writer, objs *render.Objects, in *gather.Inputs) {
	d := rollout.Decide(rollout.Inputs{Desired: objs, Live: in.Live, Observed: in.Observed, Record: in.Record, Trial: in.Trial, Now: metav1.Now()})
	fmt.Fprint(w, "\nDecision: ")
	switch {
	case d.Action == rollout.Gate:
		fmt.Fprintf(w, "would keep configuration %s until a trial allows configuration %s (spec.rollout.strategy Trial):\n",
			rollout.Short(d.ConfigHash), rollout.Short(d.TrialRequest.Candidate.ConfigHash))
	case d.Action == rollout.RollBack:
		fmt.Fprintf(w, "would roll back to configuration %s (RolloutFailed):\n", rollout.Short(d.ConfigHash))
	case d.Action == rollout.Hold:
		fmt.Fprintf(w, "would hold configuration %s, which failed (RolloutFailed):\n", rollout.Short(d.ConfigHash))
	case in.Live == nil:
		fmt.Fprintf(w, "would roll out configuration %s (no Deployment exists)\n", rollout.Short(d.ConfigHash))
	case in.Observed.Current.TemplateHash == objs.TemplateHash:
		fmt.Fprintf(w, "no rollout: the Deployment runs configuration %s already\n", rollout.Short(d.ConfigHash))
	default:
		fmt.Fprintf(w, "would roll out configuration %s, replacing %s\n", rollout.Short(d.ConfigHash), rollout.Short(in.Observed.Current.ConfigHash))
	}
	if d.Message != "" {
		fmt.Fprintln(w, "  "+strings.ReplaceAll(d.Message, "\n", "\n  "))
	}
}
