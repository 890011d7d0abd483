// Command run-operand plays kubelet for the secondary scheduler's pods on a
// local control plane with kwok nodes: for each operand pod it runs the real
// kube-scheduler binary as a host process with the pod's arguments, the
// ConfigMap its config volume names and a token of its ServiceAccount, and
// reports the container's status on the pod, until it receives SIGTERM or
// SIGINT (which stops every process). See package operandrunner.
//
//	run-operand --kubeconfig=ADMIN --kube-scheduler=BIN --dir=DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of a user who may read the operand's pods and ConfigMaps, update and delete its pods and request ServiceAccount tokens")
	binary := flag.String("kube-scheduler", "", "path of the kube-scheduler binary")
	plugins := flag.String("scheduler-plugins", "", "path of scheduler-plugins' scheduler, for pods of its image (optional)")
	dir := flag.String("dir", "", "directory for one directory per pod with its kubeconfig, token, config.yaml, log and pid file")
	flag.Parse()
	if *kubeconfig == "" || *binary == "" || *dir == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: run-operand --kubeconfig=FILE --kube-scheduler=BIN --dir=DIR")
		os.Exit(2)
	}
	admin, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.SetPrefix("run-operand: ")
	err = operandrunner.Run(ctx, operandrunner.Options{
		Admin:            admin,
		KubeScheduler:    *binary,
		SchedulerPlugins: *plugins,
		Dir:              *dir,
		Logf:             log.Printf,
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
}
