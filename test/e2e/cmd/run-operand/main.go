// Command run-operand plays kubelet for the secondary scheduler's pods on a
// local control plane with kwok nodes: for each operand pod it runs the real
// kube-scheduler binary as a host process with the pod's arguments, the
// ConfigMap its config volume names and a token of its ServiceAccount, and
// reports the container's status on the pod, until it receives SIGTERM or
// SIGINT (which stops every process). With --simulator it also plays kubelet
// for the Pods of Simulators: the real simulator and etcd binaries, on loopback
// ports listed in DIR/simulators/<namespace>_<pod>/endpoints. With --etcd and
// --kube-apiserver it plays trial Pods: those binaries as the sandbox, the
// scheduler image's binary as the arm, each Pod on an address 127.0.0.N of its
// own (DIR/trials/<pod>_<uid>/). See package operandrunner.
//
//	run-operand --kubeconfig=ADMIN --kube-scheduler=BIN --dir=DIR [--simulator=BIN --simulator-config=FILE --etcd=BIN] [--kube-apiserver=BIN]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/openshift/secondary-scheduler-operator/test/e2e/operandrunner"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of a user who may read the operand's pods and ConfigMaps, update and delete its pods and request ServiceAccount tokens")
	binary := flag.String("kube-scheduler", "", "path of the kube-scheduler binary")
	plugins := flag.String("scheduler-plugins", "", "path of scheduler-plugins' scheduler, for pods of its image (optional)")
	dir := flag.String("dir", "", "directory for one directory per pod with its kubeconfig, token, config.yaml, log and pid file")
	simulator := flag.String("simulator", "", "path of the simulator binary (v0.1.x): also play the Pods of Simulators (optional)")
	simulatorConfig := flag.String("simulator-config", "", "the simulator module's config.yaml, with --simulator")
	etcd := flag.String("etcd", "", "path of the etcd binary, with --simulator or --kube-apiserver")
	apiserver := flag.String("kube-apiserver", "", "path of the kube-apiserver binary: also play trial Pods, with --etcd (optional)")
	flag.Parse()
	if *kubeconfig == "" || *binary == "" || *dir == "" || flag.NArg() > 0 ||
		(*simulator != "" && (*simulatorConfig == "" || *etcd == "")) || (*apiserver != "" && *etcd == "") {
		fmt.Fprintln(os.Stderr, "usage: run-operand --kubeconfig=FILE --kube-scheduler=BIN --dir=DIR [--simulator=BIN --simulator-config=FILE --etcd=BIN] [--kube-apiserver=BIN --etcd=BIN]")
		os.Exit(2)
	}
	admin, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log.SetPrefix("run-operand: ")
	errs := make(chan error, 3)
	runs := 1
	schedulers := operandrunner.Options{
		Admin:            admin,
		KubeScheduler:    *binary,
		SchedulerPlugins: *plugins,
		Dir:              *dir,
		Logf:             log.Printf,
	}
	go func() {
		errs <- operandrunner.Run(ctx, schedulers, nil)
	}()
	if *apiserver != "" {
		runs++
		trials := operandrunner.TrialOptions{Options: schedulers, Etcd: *etcd, KubeAPIServer: *apiserver}
		trials.Dir = filepath.Join(*dir, "trials")
		go func() {
			errs <- operandrunner.RunTrials(ctx, trials, nil)
		}()
	}
	if *simulator != "" {
		runs++
		go func() {
			errs <- operandrunner.RunSimulators(ctx, operandrunner.SimulatorOptions{
				Admin:           admin,
				Simulator:       *simulator,
				SimulatorConfig: *simulatorConfig,
				Etcd:            *etcd,
				Dir:             filepath.Join(*dir, "simulators"),
				Logf:            log.Printf,
			}, nil)
		}()
	}
	for ; runs > 0; runs-- {
		if err := <-errs; err != nil {
			log.Fatal(err)
		}
		stop() // one ended: end the other
	}
}
