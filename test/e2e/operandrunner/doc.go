// Package operandrunner plays kubelet for the secondary scheduler's pods on a
// control plane whose nodes are kwok's: kwok runs no container, so this runs
// the one that matters, the scheduler, as a host process with the real
// kube-scheduler binary, one process per pod.
//
// Run watches the pods of namespace openshift-secondary-scheduler labelled
// app.kubernetes.io/name=secondary-scheduler that are bound to a node. For each
// it reads what a kubelet would: the arguments of the pod's container
// secondary-scheduler, and config.yaml of the ConfigMap that the pod's volume
// secondary-scheduler-config names (never a fixed name: the operator may name
// ConfigMaps by content). It obtains a token for the pod's ServiceAccount with
// the TokenRequest API, bound to the pod and refreshed before it expires, as a
// kubelet's projected token is, so the scheduler runs with exactly the RBAC the
// operator grants. Each pod gets its own directory, Options.Dir/<pod name>, with
// its own log. Pods never change their spec (a new template is a new pod), so
// nothing is restarted in place. A pod that is gone has its process stopped; a
// pod being deleted too, and is then deleted for good (grace period 0), as a
// kubelet does once its containers are gone.
//
// It reports the scheduler container's status as a kubelet does, through the
// pod's status subresource: running, and ready only once the process has run
// readyAfter without exiting (the stand-in for the readiness probe: the host
// process serves no port); when it exits, restartCount+1,
// lastState.terminated with the real exit code (128+signal when killed) and,
// for a failure, the tail of its log as FallbackToLogsOnError takes it (the
// last 80 lines, at most 2048 bytes), waiting CrashLoopBackOff, and a restart
// after a back-off that doubles from 2 s to 40 s (a kubelet's 10 s to 5 min,
// scaled). The pod's Ready and ContainersReady conditions follow; phase is
// Running throughout. When Run ends it stops every process and deletes the pods
// it played, as when a node goes away: their ReplicaSets replace them and kwok
// runs the replacements, so no test that follows sees a status the runner left.
//
// kwok and these pods. The stage file (hack/controlplane/kwok-stages.sh, from kwok's
// kustomize/stage/fast) has three pod stages. pod-ready matches a pod bound to
// a kwok node, not being deleted, in phase Pending and not Ready, and patches it
// at once (no delay) to phase Running, Ready, ContainersReady, every container
// ready and running. pod-complete matches only pods of Jobs. pod-delete deletes
// a pod as soon as it has a deletionTimestamp, without a grace period, before
// the runner has stopped its process. So:
//
//   - kwok does not overwrite the runner's status later: the runner always
//     writes phase Running, which pod-ready never matches. The one exception is
//     a patch already in flight: kwok's patch is a strategic merge with no
//     resourceVersion, computed from the pod as kwok saw it, so it can land
//     after the runner's first write. The runner therefore compares every pod
//     with the status it wants on every event and every resync and writes it
//     again (and logs that someone else changed the Ready condition).
//   - A new pod is Ready before its scheduler has even started. The runner
//     writes ready=false as soon as it sees a new pod, before it starts the
//     process, but that comes too late: the Deployment controller (no
//     minReadySeconds) counts the pod available as soon as kwok has patched it.
//     On a kwok control plane, a rollout with maxUnavailable 0 to a template
//     whose scheduler exits at once had the old pod deleted within the second,
//     before the runner had started the new pod's process; the new pod then
//     crash-looped alone. The operand Deployment therefore sets
//     minReadySeconds (10 s, which a real cluster needs too: kube-scheduler
//     answers /healthz before it has taken its lease): the runner marks the new
//     pod not ready within that window, and the old pod keeps serving.
//
// The binary that plays the scheduler container follows its image
// (Options.Binary): scheduler-plugins' image runs scheduler-plugins' scheduler
// built from its Go module, with Coscheduling and the other out-of-tree plugins;
// any other image runs the upstream kube-scheduler, so an image's own
// out-of-tree plugins (Fluence ...) are not available. Sidecars do not run
// (they are reported running).
//
// # Simulators
//
// RunSimulators plays kubelet, in the same way, for the Pods of Simulators in
// every namespace (label SimulatorSelector). kwok's pod-ready stage leaves these
// Pods alone (hack/controlplane/kwok-stages.sh excludes them), so a Simulator's Pod is
// Ready only when this runner says so. Per Pod:
//
//   - A network namespace of its own (CAP_SYS_ADMIN: run as root), held by a
//     sleep process as a pod sandbox is by pause, with loopback up and the
//     address 10.244.0.2 plus a default route on lo: the simulator's embedded
//     kube-apiserver picks its advertised address from the default route and
//     exits without one. The containers therefore listen on exactly the ports
//     of their spec, and simulator v0.1.1 may bind 0.0.0.0:6443 (its
//     kube-apiserver's secure port, which nothing configures) in every Pod.
//   - Each named containerPort of the "simulator" container is forwarded from
//     a free host loopback port, as kubectl port-forward does; Simulator.Endpoints
//     and the file <dir>/endpoints ("<port name> <URL>" lines) give the URLs.
//   - The "etcd" container runs the control plane's etcd binary with the
//     container's arguments; it starts first, keeps running while the simulator
//     restarts (so the simulated cluster survives a simulator crash, as in a
//     Pod), and stops with the Pod.
//   - The "simulator" container runs the simulator binary (image
//     simulator-backend v0.1.x; any other image is reported
//     CreateContainerError) with exactly the container's env, plus PATH and
//     HOME as a runtime adds them, in a working directory holding the module's
//     config.yaml (the image runs it from /, next to its /config.yaml).
//   - configMap and emptyDir volumes live under <dir>/volumes/<name>; a path in
//     env or arguments under a volume mount is rewritten to it (there is no
//     mount namespace). ConfigMap files are written afresh at every start.
//   - Readiness is the container's own readinessProbe (TCP or HTTP GET), run
//     in the Pod's namespace at every resync.
//
// Restarts, back-off, the status written and deletion are as for the
// scheduler's pods.
//
// # Trial Pods
//
// RunTrials plays kubelet for the operator's trial Pods (label TrialSelector,
// in the operand namespace): per arm, a sandbox API server and the arm's
// scheduler in one Pod. kwok's pod-ready stage leaves them alone too
// (hack/controlplane/kwok-stages.sh), so their status is only this runner's.
// Per Pod, in a directory of its own, Options.Dir/<pod name>_<uid prefix>:
//
//   - A network namespace as for a Simulator's Pod, and an address of its own
//     on the host: the first of 127.0.0.10, 127.0.0.11 ... whose ports 6443
//     and 10259 are free (another runner or harness on the host may hold
//     one), reused once the Pod is gone. It is the Pod's status.podIP and
//     podIPs, and the host's podIP:6443 (the sandbox's API server) and
//     podIP:10259 (the scheduler's metrics) are forwarded into the
//     namespace's same ports, so a host process (the operator) dials them as
//     it would in a cluster. The
//     serving certificate names a fixed DNS name, which clients set as TLS
//     server name: any address verifies.
//   - The init containers etcd and kube-apiserver, native sidecars, start in
//     this order, each once the one before has started, as the control plane's
//     etcd and kube-apiserver binaries (TrialOptions; their images are not
//     looked at) with the containers' arguments. kube-apiserver has started
//     once its startup probe (TCP 6443) passes in the namespace; until then
//     the Pod is Pending, Initialized False, and the scheduler waits
//     (PodInitializing). A sidecar that exits is reported terminated with its
//     exit code and log tail, and is not started again (a kubelet would, after
//     a back-off): the Pod stays Pending.
//   - Then the container scheduler, the binary its image maps to
//     (Options.Binary), with its arguments (and its command after the first
//     word). Ready once running: it has no readiness probe.
//   - The Secret volume's files are written under <dir>/volumes/<name>, with
//     every path under the volume's mount path rewritten in the files
//     themselves as well as in arguments: config.yaml names
//     /etc/trial/kubeconfig, which is <dir>/volumes/trial/kubeconfig on the
//     host. A mount namespace per process would need the mount path to exist
//     on the host (/etc/trial); rewriting needs nothing, and these files are
//     the operator's own, whose only container paths are the mount's.
//
// restartPolicy Never is the pod's, so a scheduler that exits is not started
// again: it is reported terminated with its exit code and, for a failure, its
// log tail as message (FallbackToLogsOnError), and the Pod is Failed
// (Succeeded for exit code 0): the phase follows the scheduler alone, as for
// native sidecars. The sidecars are then stopped (the address is free again)
// and reported terminated. A Pod being deleted, or gone, has its
// processes stopped, the scheduler first, then kube-apiserver, then etcd, and
// is then deleted for good, as for Simulators.
package operandrunner
